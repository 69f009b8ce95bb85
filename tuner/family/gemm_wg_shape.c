/* gemm_wg_shape.c -- the shape a point of the wgmma GEMM family gives
 * templates/gemm_wg.cu: tiles, warpgroups, the ring of stages, the
 * epilogue's staging and their bytes (gemm_wg_shape.h).  The family's
 * rules, launch, defines and tensor maps and its access plan all read
 * it. */
#include <string.h>

#include "family/gemm_wg_shape.h"

tn_elem_type tn_gemm_wg_in_type(const tn_problem *prob)
{
  static const tn_elem_type types[] = {TN_ELEM_BF16, TN_ELEM_F16,
                                       TN_ELEM_E4M3, TN_ELEM_E5M2};
  int i = (int)prob->opt[WG_OPT_INPUT];
  return types[i >= 0 && i < 4 ? i : 0];
}

/* f32; "input": A's type (a 16-bit one: check_problem refuses fp8 C);
 * bf16 */
tn_elem_type tn_gemm_wg_out_type(const tn_problem *prob)
{
  double o = prob->opt[WG_OPT_OUTPUT];
  if (o == 0)
    return TN_ELEM_F32;
  if (o == 2 || WG_IN_FP8(prob))
    return TN_ELEM_BF16;
  return tn_gemm_wg_in_type(prob);
}

void tn_gemm_wg_geometry(const tn_params *p, const tn_problem *prob,
                         wg_geometry *g)
{
  memset(g, 0, sizeof(*g));
  g->bm = (int)p->v[WG_BM].i;
  g->bn = (int)p->v[WG_BN].i;
  g->bk = (int)p->v[WG_BK].i;
  g->consumers = (int)p->v[WG_CONSUMERS].i;
  g->stages = (int)p->v[WG_STAGES].i;
  g->swizzle = (int)p->v[WG_SWIZZLE].i;
  g->producer = (int)p->v[WG_PRODUCER].i;
  g->epilogue = (int)p->v[WG_EPILOGUE].i;
  g->pingpong = (int)p->v[WG_PINGPONG].i;
  g->cm = g->consumers > 0 && !g->pingpong ? g->bm / g->consumers : g->bm;
  g->threads = 128 * (g->consumers + g->producer);
  g->in_bytes = tn_elem_bytes(tn_gemm_wg_in_type(prob));
  g->out_bytes = tn_elem_bytes(tn_gemm_wg_out_type(prob));
  g->kstep = g->in_bytes == 1 ? 32 : 16;
  g->promote = WG_PROMOTE(prob) ? 1 : 0;
  g->partials = (int)p->v[WG_PARTIALS].i;
  g->a_stage = (long long)g->in_bytes * g->bm * g->bk;
  g->b_stage = (long long)g->in_bytes * g->bn * g->bk;
  for (g->c_col = 128; g->c_col > 32 && g->bn * g->out_bytes % g->c_col;)
    g->c_col /= 2;
  g->c_subs = g->bn * g->out_bytes / g->c_col;
  g->c_bufs = p->v[WG_C_RING].i > 0 ? (int)p->v[WG_C_RING].i : g->c_subs;
  g->c_staging =
      g->epilogue == 1 ? (long long)g->cm * g->c_col * g->c_bufs : 0;
  g->smem_bytes = 1024 + g->stages * (g->a_stage + g->b_stage) +
                  g->consumers * g->c_staging + 16LL * g->stages;
  g->m = prob->size.dims[0];
  g->n = prob->size.dims[1];
  g->k = prob->size.dims[2];
  g->cluster = (int)p->v[WG_CLUSTER].i;
  g->multicast = g->cluster > 1 ? (int)p->v[WG_MULTICAST].i : 0;
  {
    long long tm = (g->m + g->bm - 1) / g->bm, tn = (g->n + g->bn - 1) / g->bn;
    long long cl = g->cluster > 0 ? g->cluster : 1;
    long long persistent = p->v[WG_PERSISTENT].i;
    g->tiles = tm * tn;
    /* templates/tile_order.h's cluster_units */
    g->units = g->multicast == 1   ? (tm + cl - 1) / cl * tn
               : g->multicast == 2 ? tm * ((tn + cl - 1) / cl)
                                   : g->tiles;
    g->computed = g->multicast ? g->units * cl : g->tiles;
    /* persistent: P blocks, or one per tile computed where there are
     * fewer; whole clusters.  -1 leaves the count to the launch (what
     * runs at once): a block per tile is its most. */
    g->blocks = persistent > 0 && persistent < g->computed ? persistent
                                                           : g->computed;
    g->blocks = (g->blocks + cl - 1) / cl * cl;
    /* the split of templates/gemm_wg_schedule.h's make_sched */
    g->stream_k = (int)p->v[WG_STREAM_K].i;
    g->dp_units = g->units;
    if (g->stream_k) {
      long long cols = g->blocks / (g->multicast ? cl : 1);
      long long kt = (g->k + g->bk - 1) / g->bk;
      long long rem = cols > 0 ? g->units % cols : 0, busiest = 0;
      if (g->stream_k == 1) {
        busiest = (rem * kt + cols - 1) / cols;
      } else if (rem > 0) {
        long long n = (rem + (cols - rem) - 1) / (cols - rem);
        busiest = (n * kt + n) / (n + 1); /* the head */
        if (busiest >= kt)
          rem = busiest = 0;
      }
      g->dp_units = g->units - rem;
      g->split_ktiles = rem * kt;
      g->split_busiest = busiest;
      g->workspace_block = 4LL * (32 + (long long)g->bm * g->bn);
    }
  }
}

/* gemm_tc_shape.c -- the shape a point of the tensor-core GEMM family
 * gives templates/gemm_tc.cu: tiles, warps, the ring of stages, the
 * epilogue's staging and their bytes (gemm_tc_shape.h).  The family's
 * rules, launch and defines and its access plan all read it. */
#include <string.h>

#include "family/gemm_tc_shape.h"

void tn_gemm_tc_geometry(const tn_params *p, const tn_problem *prob,
                         tc_geometry *g)
{
  int i;
  memset(g, 0, sizeof(*g));
  g->bm = (int)p->v[TC_BM].i;
  g->bn = (int)p->v[TC_BN].i;
  g->bk = (int)p->v[TC_BK].i;
  g->wm = (int)p->v[TC_WARP_M].i;
  g->wn = (int)p->v[TC_WARP_N].i;
  g->warps_m = g->bm / g->wm;
  g->warps_n = g->bn / g->wn;
  g->mi = g->wm / 16;
  g->ni = g->wn / 8;
  g->threads = 32 * g->warps_m * g->warps_n;
  g->stages = (int)p->v[TC_STAGES].i;
  g->epilogue = (int)p->v[TC_EPILOGUE].i;
  g->pad_c = (int)p->v[TC_PAD_C].i;
  g->group_m = (int)p->v[TC_GROUP_M].i;
  g->m = prob->size.dims[0];
  g->n = prob->size.dims[1];
  g->k = prob->size.dims[2];
  for (i = 0; i < 2; i++) {
    tc_operand *o = &g->op[i];
    int mn = i ? g->bn : g->bm;
    o->kcontig = i ? TC_TRANS_B(prob) : !TC_TRANS_A(prob);
    o->rows = o->kcontig ? mn : g->bk;
    o->width = o->kcontig ? g->bk : mn;
    o->pad = (int)p->v[i ? TC_PAD_B : TC_PAD_A].i;
    o->elems = o->rows * (o->width + o->pad);
    o->sw = p->v[i ? TC_SWIZZLE_B : TC_SWIZZLE_A].sw;
  }
  g->op[0].base = 0;
  g->op[1].base = g->stages * g->op[0].elems;
  g->ring_bytes = 2LL * g->stages * (g->op[0].elems + g->op[1].elems);
  /* epilogue 1 stages floats, epilogue 2 C's 16-bit values */
  g->staging_bytes = g->epilogue
                         ? (g->epilogue == 2 ? 2LL : 4LL) * g->warps_m *
                               g->warps_n * 16 * (g->wn + g->pad_c)
                         : 0;
  g->smem_bytes = g->ring_bytes > g->staging_bytes ? g->ring_bytes
                                                   : g->staging_bytes;
}

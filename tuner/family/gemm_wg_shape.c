/* gemm_wg_shape.c -- the shape a point of the wgmma GEMM family gives
 * templates/gemm_wg.cu: tiles, warpgroups, the ring of stages, the
 * epilogue's staging and their bytes (gemm_wg_shape.h).  The family's
 * rules, launch, defines and tensor maps and its access plan all read
 * it. */
#include <string.h>

#include "family/gemm_wg_shape.h"

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
  g->cm = g->consumers > 0 ? g->bm / g->consumers : g->bm;
  g->threads = 128 * (g->consumers + g->producer);
  g->out_bytes = WG_OUT_F32(prob) ? 4 : 2;
  g->a_stage = 2LL * g->bm * g->bk;
  g->b_stage = 2LL * g->bn * g->bk;
  g->c_staging =
      g->epilogue == 1 ? (long long)g->cm * g->bn * g->out_bytes : 0;
  g->smem_bytes = 1024 + g->stages * (g->a_stage + g->b_stage) +
                  g->consumers * g->c_staging + 16LL * g->stages;
  g->m = prob->size.dims[0];
  g->n = prob->size.dims[1];
  g->k = prob->size.dims[2];
  g->tiles = ((g->m + g->bm - 1) / g->bm) * ((g->n + g->bn - 1) / g->bn);
}

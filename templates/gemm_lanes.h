/* gemm_lanes.h -- where a lane of the register-tiled SIMT GEMM sits in its
 * warp's LM x LN grid of thread tiles (LM = lanes_m, LN = 32 / LM).
 * Included by templates/gemm.cu and by the plan (tuner/family/
 * gemm_plan.c), so the lanes the model prices are the kernel's.  C and
 * CUDA at once, as smem_layout.h.
 *
 *   order 0  lane = lr * LN + lc
 *   order 1  the lane's bits dealt to lc and lr in turn, lc's first (with
 *            LM = 4: bit 0 lc, 1 lr, 2 lc, 3 lr, 4 lc), once one has its
 *            bits the rest to the other.  Lanes l and l ^ 1 then share A's
 *            rows and lanes l and l ^ 2 B's columns, so the 16-byte
 *            fragment loads of both operands are paired warps, which the
 *            shared-memory pipeline serves in half the phases (the
 *            model's rule, tuner/model/model.c).
 */
#ifndef TN_GEMM_LANES_H
#define TN_GEMM_LANES_H

#include "smem_layout.h" /* TN_LAYOUT_FN */

/* The lane's row (want_row) or column in the LM x LN grid. */
TN_LAYOUT_FN int tn_gemm_lane_pos(int lane, int lm, int order, int want_row)
{
  int rbits = 0, cbits, r = 0, c = 0, nr = 0, nc = 0, p;
  if (order == 0)
    return want_row ? lane / (32 / lm) : lane % (32 / lm);
  while ((1 << rbits) < lm)
    rbits++;
  cbits = 5 - rbits;
  for (p = 0; p < 5; p++) {
    int bit = (lane >> p) & 1;
    if (nc < cbits && (nr >= rbits || nc <= nr))
      c |= bit << nc++;
    else
      r |= bit << nr++;
  }
  return want_row ? r : c;
}

#endif

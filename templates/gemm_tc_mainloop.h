/* gemm_tc_mainloop.h -- the k-loops of templates/gemm_tc.cu, included by
 * it after the operands, the fragment offsets and load_fragments that
 * they use (so not on its own): mainloop for any operands, and
 * mainloop_aligned for those whose 16-byte chunks are all aligned.  Both
 * make the same shared-memory accesses, the ones gemm_tc_plan.c lists. */
#ifndef TN_GEMM_TC_MAINLOOP_H
#define TN_GEMM_TC_MAINLOOP_H

/* The ring's first STAGES - 1 tiles, in flight, and tile 0 landed: both
 * mainloops start so.  A commit per tile even when empty, so that the
 * waits count groups uniformly. */
__device__ __forceinline__ void ring_prologue(elem_t *smem, op_a &ga,
                                              op_b &gb, int K, int ktiles,
                                              bool aa, bool ab, int tid)
{
#pragma unroll
  for (int s = 0; s < TN_STAGES - 1; s++) {
    if (s < ktiles) {
      ga.load(smem, s, s * BK, K, aa, tid);
      gb.load(smem, s, s * BK, K, ab, tid);
      ga.advance();
      gb.advance();
    }
    cp_async_commit();
  }
  cp_async_wait<TN_STAGES - 2>();
  __syncthreads();
}

/* acc = the block's tile of op(A) op(B), k-tile by k-tile.  aa, ab: the
 * operands' chunks are 16-byte aligned (cp.async), else copied element by
 * element.  (Instances of this loop for each case, with the flags as
 * template parameters, spilled registers on sm_90 where this one, with a
 * branch uniform over the launch, does not.) */
__device__ __forceinline__ void mainloop(elem_t *smem, unsigned sbase,
                                         op_a &ga, op_b &gb, int K,
                                         int ktiles, bool aa, bool ab,
                                         int tid, int wm0, int wn0, int lane,
                                         float (&acc)[MI][NI][4])
{
  /* Tile t lives in stage t % STAGES.  The fragments are double-buffered
   * in registers: while the mma of k-step kk run, the ldmatrix of kk + 1
   * are in flight, and the last k-step of a tile overlaps the first loads
   * of the next.  So the wait and the barrier come before the last k-step:
   * after them tile kt + 1 has landed and every warp has read all of tile
   * kt's stage it will read (kt's last fragments are in registers), and at
   * the next tile's first k-step the stage of tile kt receives tile
   * kt + STAGES.  One barrier per k-tile; a commit per tile even when
   * empty, so that the wait counts groups uniformly. */
  ring_prologue(smem, ga, gb, K, ktiles, aa, ab, tid);

  constexpr int KK = BK / 16;
  unsigned af[2][MI][4], bf[2][NI / 2][4];
  int read_stage = 0, write_stage = TN_STAGES - 1;
  frag_offsets<0> fa;
  frag_offsets<1> fb;
  fa.init(wm0, lane);
  fb.init(wn0, lane);
  load_fragments(smem, sbase, 0, 0, fa, fb, af[0], bf[0]);
  for (int kt = 0; kt < ktiles; kt++) {
#pragma unroll
    for (int kk = 0; kk < KK; kk++) {
      if (kk == KK - 1) {
        cp_async_wait<TN_STAGES - 2>();
        __syncthreads();
        read_stage = read_stage + 1 == TN_STAGES ? 0 : read_stage + 1;
      }
      /* the next k-step's fragments (none past the last tile) */
      if (kk < KK - 1 || kt + 1 < ktiles)
        load_fragments(smem, sbase, read_stage, 16 * ((kk + 1) % KK), fa, fb,
                       af[(kk + 1) % 2], bf[(kk + 1) % 2]);
      if (kk == 0) {
        const int next = kt + TN_STAGES - 1;
        if (next < ktiles) {
          ga.load(smem, write_stage, next * BK, K, aa, tid);
          gb.load(smem, write_stage, next * BK, K, ab, tid);
          ga.advance();
          gb.advance();
        }
        cp_async_commit();
        write_stage = write_stage + 1 == TN_STAGES ? 0 : write_stage + 1;
      }
#pragma unroll
      for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
          mma16816(acc[i][j], af[kk % 2][i], bf[kk % 2][j / 2][2 * (j % 2)],
                   bf[kk % 2][j / 2][2 * (j % 2) + 1]);
    }
  }

}

/* mainloop for operands whose chunks are all 16-byte aligned (the
 * common case): the same accesses, but no branch inside a k-tile, so
 * that ptxas interleaves them with the mma.  Each row i of the warp
 * tile's mma follows its share of the next k-step's ldmatrix and, at the
 * tile's first k-step, of its cp.async; the loads past the last tile are
 * predicated off.  The ring, the wait and the barrier are mainloop's.
 * (On the H200 this took 128 x 256 x 64 tiles from 48% to 61% of cuBLAS:
 * with a branch per chunk the mma ran in bursts between the loads.) */
__device__ __forceinline__ void mainloop_aligned(elem_t *smem, unsigned sbase,
                                                 op_a &ga, op_b &gb, int K,
                                                 int ktiles, int tid, int wm0,
                                                 int wn0, int lane,
                                                 float (&acc)[MI][NI][4])
{
  ring_prologue(smem, ga, gb, K, ktiles, true, true, tid);

  constexpr int KK = BK / 16, NB = NI / 2;
  constexpr int TA = op_a::ITERS, T = op_a::ITERS + op_b::ITERS;
  constexpr bool TA_ = TN_TRANS_A != 0, TB_ = TN_TRANS_B == 0;
  unsigned af[2][MI][4], bf[2][NB][4];
  int read_stage = 0, write_stage = TN_STAGES - 1;
  frag_offsets<0> fa;
  frag_offsets<1> fb;
  fa.init(wm0, lane);
  fb.init(wn0, lane);
  load_fragments(smem, sbase, 0, 0, fa, fb, af[0], bf[0]);
  for (int kt = 0; kt < ktiles; kt++) {
#pragma unroll
    for (int kk = 0; kk < KK; kk++) {
      if (kk == KK - 1) {
        cp_async_wait<TN_STAGES - 2>();
        __syncthreads();
        read_stage = read_stage + 1 == TN_STAGES ? 0 : read_stage + 1;
      }
      const int nk = 16 * ((kk + 1) % KK), k0n = (kt + TN_STAGES - 1) * BK;
      const bool pre = kk < KK - 1 || kt + 1 < ktiles;
      const bool go = kk == 0 && kt + TN_STAGES - 1 < ktiles;
      const unsigned a_st = sbase + 2u * read_stage * op_a::ELEMS;
      const unsigned b_st = sbase + 2u * read_stage * op_b::ELEMS;
#pragma unroll
      for (int i = 0; i < MI; i++) {
        TN_TRACE_LDMATRIX(smem + read_stage * op_a::ELEMS + fa.at(i, nk) / 2,
                          pre);
        ldmatrix_x4_if<TA_>(af[(kk + 1) % 2][i], a_st + fa.at(i, nk), pre);
#pragma unroll
        for (int q = i * NB / MI; q < (i + 1) * NB / MI; q++) {
          TN_TRACE_LDMATRIX(smem + read_stage * op_b::ELEMS + fb.at(q, nk) / 2,
                            pre);
          ldmatrix_x4_if<TB_>(bf[(kk + 1) % 2][q], b_st + fb.at(q, nk), pre);
        }
        if (kk == 0) {
#pragma unroll
          for (int c = i * T / MI; c < (i + 1) * T / MI; c++) {
            if (c < TA)
              ga.load_chunk(smem, write_stage, k0n, K, tid, c, go);
            else
              gb.load_chunk(smem, write_stage, k0n, K, tid, c - TA, go);
          }
        }
#pragma unroll
        for (int j = 0; j < NI; j++)
          mma16816(acc[i][j], af[kk % 2][i], bf[kk % 2][j / 2][2 * (j % 2)],
                   bf[kk % 2][j / 2][2 * (j % 2) + 1]);
      }
      if (kk == 0) {
        ga.advance();
        gb.advance();
        cp_async_commit();
        write_stage = write_stage + 1 == TN_STAGES ? 0 : write_stage + 1;
      }
    }
  }
}

#endif

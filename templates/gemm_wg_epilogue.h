/* gemm_wg_epilogue.h -- C from a consumer warpgroup's accumulators, for
 * templates/gemm_wg.cu (included there, after its types): straight to
 * global memory (epilogue 0), or staged in shared memory, the whole tile
 * or through a ring of its columns (CCOL bytes), and stored by the copy
 * engine (epilogue 1).  Thread t of the warpgroup holds, of slab mc
 * (rows 64 mc.. of the consumer's CM), rows 16 (t / 32) + (t % 32) / 4
 * (h = 0) and 8 below (h = 1), columns 8 j + 2 (t % 4) and the next:
 * acc[mc][4 j + 2 h] and acc[mc][4 j + 2 h + 1].  alpha and beta apply in
 * fp32 before C's one rounding. */
#ifndef TN_GEMM_WG_EPILOGUE_H
#define TN_GEMM_WG_EPILOGUE_H

__device__ __forceinline__ float out_value(out_t v)
{
#if TN_OUT_F32
  return v;
#else
  return elem_to_float(v);
#endif
}

/* alpha * (v0, v1) + beta * C's (row, col), (row, col + 1) (those inside
 * the matrix; with beta == 0, C is not read). */
__device__ __forceinline__ void combine(const out_t *C, int M, int N,
                                        int row, int col, float alpha,
                                        float beta, float &v0, float &v1)
{
  v0 *= alpha;
  v1 *= alpha;
  if (beta != 0.0f && row < M) {
    const out_t *p = C + (size_t)row * N + col;
    if (col < N)
      v0 += beta * out_value(p[0]);
    if (col + 1 < N)
      v1 += beta * out_value(p[1]);
  }
}

/* Epilogue 0: each pair to C, 8 (fp32) or 4 bytes at once when N is even
 * (the pair then starts on its size), else element by element. */
__device__ __forceinline__ void epilogue_direct(out_t *C, int M, int N,
                                                int m_base, int n0, int wtid,
                                                float alpha, float beta,
                                                float (&acc)[MC][NACC])
{
  const int w = wtid / 32, lane = wtid % 32;
  const bool pairs = N % 2 == 0;
#pragma unroll
  for (int mc = 0; mc < MC; mc++)
#pragma unroll
    for (int j = 0; j < BN / 8; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int row = m_base + 64 * mc + 16 * w + lane / 4 + 8 * h;
        const int col = n0 + 8 * j + 2 * (lane % 4);
        float v0 = acc[mc][4 * j + 2 * h], v1 = acc[mc][4 * j + 2 * h + 1];
        if (row >= M || col >= N)
          continue;
        combine(C, M, N, row, col, alpha, beta, v0, v1);
        out_t *p = C + (size_t)row * N + col;
        if (pairs) {
#if TN_OUT_F32
          *(float2 *)p = make_float2(v0, v1);
#else
          *(unsigned *)p = pack2(v0, v1);
#endif
        } else {
#if TN_OUT_F32
          p[0] = v0;
          if (col + 1 < N)
            p[1] = v1;
#else
          p[0] = round1(v0);
          if (col + 1 < N)
            p[1] = round1(v1);
#endif
        }
      }
}

/* Byte offset of (row, col) of a consumer's staged tile: its column
 * col / SC in buffer (col / SC) % C_BUFS of CM rows x CCOL bytes, under
 * the swizzle of CCOL bytes (the 16-byte chunk ^= the address's bits 7
 * and up, as many as the chunks of a row: row % 8 for 128-byte rows, row
 * / 2 % 4 for 64, row / 4 % 2 for 32), as the copy engine reads them with
 * C's tensor map. */
__device__ __forceinline__ unsigned staged_offset(int row, int col)
{
  const int sub = TN_C_RING ? (col / SC) % C_BUFS : col / SC;
  const int within = (col % SC) * OB;
  return (unsigned)(sub * CM * CCOL + row * CCOL +
                    (((within / 16) ^ (row * CCOL / 128 % (CCOL / 16))) *
                     16) +
                    within % 16);
}

/* Epilogue 1's stores of the staged columns s0 .. s0 + n - 1 of the
 * consumer's CM x BN tile into their buffers: st.shared of float pairs
 * for fp32 C, stmatrix.x4 of two n8 blocks by 16 rows for a 16-bit C. */
__device__ __forceinline__ void stage_columns(unsigned sbase,
                                              unsigned char *stage,
                                              const out_t *C, int M, int N,
                                              int m_base, int n0, int wtid,
                                              float alpha, float beta,
                                              float (&acc)[MC][NACC], int s0,
                                              int n)
{
  const int w = wtid / 32, lane = wtid % 32;
#if TN_OUT_F32
#pragma unroll
  for (int mc = 0; mc < MC; mc++)
#pragma unroll
    for (int j = s0 * SC / 8; j < (s0 + n) * SC / 8; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int row = 64 * mc + 16 * w + lane / 4 + 8 * h;
        const int col = 8 * j + 2 * (lane % 4);
        float v0 = acc[mc][4 * j + 2 * h], v1 = acc[mc][4 * j + 2 * h + 1];
        combine(C, M, N, m_base + row, n0 + col, alpha, beta, v0, v1);
        TN_TRACE_ST(stage + staged_offset(row, col), 8, true);
        asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(
                         sbase + staged_offset(row, col)),
                     "f"(v0), "f"(v1)
                     : "memory");
      }
#else
#pragma unroll
  for (int mc = 0; mc < MC; mc++)
#pragma unroll
    for (int jp = s0 * SC / 16; jp < (s0 + n) * SC / 16; jp++) {
      unsigned q[4];
#pragma unroll
      for (int e = 0; e < 4; e++) {
        /* matrix e: rows + 8 (e & 1), n8 block 2 jp + (e >> 1) */
        const int j = 2 * jp + (e >> 1), h = e & 1;
        const int row = 64 * mc + 16 * w + lane / 4 + 8 * h;
        const int col = 8 * j + 2 * (lane % 4);
        float v0 = acc[mc][4 * j + 2 * h], v1 = acc[mc][4 * j + 2 * h + 1];
        combine(C, M, N, m_base + row, n0 + col, alpha, beta, v0, v1);
        q[e] = pack2(v0, v1);
      }
      const int e = lane / 8;
      const int row = 64 * mc + 16 * w + 8 * (e & 1) + lane % 8;
      const int col = 8 * (2 * jp + (e >> 1));
      TN_TRACE_STMATRIX(stage + staged_offset(row, col), true);
      stmatrix_x4(sbase + staged_offset(row, col), q);
    }
#endif
}

/* Epilogue 1: the consumer's CM x BN tile staged and, for a tile inside
 * the grid (`store`), one TMA store per staged column, issued by the
 * warpgroup's thread 0 without waiting for them.  The whole tile at once
 * (C_BUFS == C_SUBS): the next tile's epilogue waits until they have read
 * the staging, before its first barrier (and the block before it ends),
 * so that the store does not hold up the next main loop.  A ring
 * (TN_C_RING): column by column, each committed alone; a buffer is
 * written once the store that last read it, C_BUFS commits ago, has (a
 * tile not stored, ping-pong's padding, commits nothing: it waits for
 * every store before each column). */
__device__ __forceinline__ void
epilogue_staged(unsigned char *stage, const tn_tensor_map *map_c,
                const out_t *C, int M, int N, int m_base, int n0, int cw,
                int wtid, float alpha, float beta, float (&acc)[MC][NACC],
                bool store)
{
  constexpr int step = TN_C_RING ? 1 : C_SUBS; /* columns a commit */
  const unsigned sbase = tn_smem_u32(stage);
#pragma unroll
  for (int s0 = 0; s0 < C_SUBS; s0 += step) {
    if (wtid == 0) {
      if (store)
        tn_tma_store_wait_read_n<TN_C_RING ? TN_C_RING - 1 : 0>();
      else /* no commit follows, so the ring's count would slip: all */
        tn_tma_store_wait_read();
    }
    wg_bar(1 + cw, 128);
    stage_columns(sbase, stage, C, M, N, m_base, n0, wtid, alpha, beta, acc,
                  s0, step);
    tn_tma_store_fence();
    wg_bar(1 + cw, 128);
    if (wtid == 0 && store) {
#pragma unroll
      for (int sub = s0; sub < s0 + step; sub++)
        tn_tma_store_2d(map_c, stage + (sub % C_BUFS) * CM * CCOL,
                        n0 + sub * SC, m_base);
      tn_tma_store_commit();
    }
  }
}

#endif

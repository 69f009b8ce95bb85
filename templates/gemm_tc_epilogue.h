/* gemm_tc_epilogue.h -- the epilogue of templates/gemm_tc.cu: C = alpha *
 * acc + beta * C from each warp's fp32 accumulators, by TN_EPILOGUE:
 *   0  each fragment's pairs straight to C;
 *   1  each warp's tile staged through shared memory in fp32 (rows of
 *      WN + TN_PAD_C floats), then 16-byte rows to C;
 *   2  (sm_90 and later, C of the inputs' 16-bit type) each warp's tile
 *      staged as C's final 16-bit values by stmatrix.x4 (rows of
 *      WN + TN_PAD_C elements), then 16-byte rows (8 elements) to C.
 * Kept apart from the main loop so that the two change independently.
 * Included by gemm_tc.cu after its types (out_t, elem_t), tile macros
 * (MI, NI, WN) and tc_ops.h / smem_trace.h, which it uses; not a header
 * of its own (the template loader hands it to NVRTC by name).
 * tuner/family/gemm_tc_plan.c lists its shared-memory accesses. */
#ifndef TN_GEMM_TC_EPILOGUE_H
#define TN_GEMM_TC_EPILOGUE_H

/* C[row][col] (and col + 1 when pair) = alpha * acc + beta * C. */
__device__ __forceinline__ void store_pair(out_t *C, int N, int row, int col,
                                           float v0, float v1, float beta,
                                           bool pair_ok)
{
  out_t *p = C + (size_t)row * N + col;
  if (pair_ok && col + 1 < N) {
#if TN_OUT_F32
    if (beta != 0.0f) {
      const float2 o = *reinterpret_cast<const float2 *>(p);
      v0 += beta * o.x;
      v1 += beta * o.y;
    }
    *reinterpret_cast<float2 *>(p) = make_float2(v0, v1);
#else
    if (beta != 0.0f) {
      const unsigned o = *reinterpret_cast<const unsigned *>(p);
      v0 += beta * elem_to_float((unsigned short)(o & 0xffffu));
      v1 += beta * elem_to_float((unsigned short)(o >> 16));
    }
    *reinterpret_cast<unsigned *>(p) = pack2(v0, v1);
#endif
    return;
  }
  if (col < N) {
    if (beta != 0.0f)
      v0 += beta * out_to_float(p[0]);
#if TN_OUT_F32
    p[0] = v0;
#else
    p[0] = round1(v0);
#endif
  }
  if (col + 1 < N) {
    if (beta != 0.0f)
      v1 += beta * out_to_float(p[1]);
#if TN_OUT_F32
    p[1] = v1;
#else
    p[1] = round1(v1);
#endif
  }
}

#if TN_EPILOGUE == 0
/* Fragment (i, j): rows g and g + 8, columns 2t and 2t + 1. */
__device__ __forceinline__ void epilogue_direct(out_t *C, int M, int N,
                                                int rm0, int cn0, int lane,
                                                float alpha, float beta,
                                                float (&acc)[MI][NI][4])
{
  const int g = lane / 4, t = lane % 4;
  const bool pair_ok = N % 2 == 0 && ((size_t)C & (2 * sizeof(out_t) - 1)) == 0;
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int row = rm0 + 16 * i + g + 8 * h;
        const int col = cn0 + 8 * j + 2 * t;
        if (row < M)
          store_pair(C, N, row, col, alpha * acc[i][j][2 * h],
                     alpha * acc[i][j][2 * h + 1], beta, pair_ok);
      }
}
#endif

#if TN_EPILOGUE == 1
/* Each warp stages 16 rows of its tile at a time in its own part of
 * shared memory (fp32, rows of WN + PAD_C), then writes them to C in
 * 16-byte (4-float) runs: C's rows are written whole, not in the 8-byte
 * pieces a fragment holds. */
__device__ __forceinline__ void epilogue_staged_f32(elem_t *smem, out_t *C,
                                                    int M, int N, int rm0,
                                                    int cn0, int warp,
                                                    int lane, float alpha,
                                                    float beta,
                                                    float (&acc)[MI][NI][4])
{
  const int g = lane / 4, t = lane % 4;
  const bool pair_ok = N % 2 == 0 && ((size_t)C & (2 * sizeof(out_t) - 1)) == 0;
  cp_async_wait<0>();
  __syncthreads(); /* every warp is done with the ring */
  constexpr int SP = WN + TN_PAD_C; /* staging row pitch, floats */
  float *stage_c = reinterpret_cast<float *>(smem) + warp * 16 * SP;
  const bool vec4 =
      N % 4 == 0 && ((size_t)C & (4 * sizeof(out_t) - 1)) == 0;
#pragma unroll
  for (int i = 0; i < MI; i++) {
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        float *p = stage_c + (g + 8 * h) * SP + 8 * j + 2 * t;
        TN_TRACE_ST(p, 8, true);
        *reinterpret_cast<float2 *>(p) =
            make_float2(alpha * acc[i][j][2 * h], alpha * acc[i][j][2 * h + 1]);
      }
    __syncwarp();
#pragma unroll
    for (int q = lane; q < 16 * (WN / 4); q += 32) {
      const int r = q / (WN / 4), c = 4 * (q % (WN / 4));
      const float *p = stage_c + r * SP + c;
      TN_TRACE_LD(p, 16, true);
      const uint4 u = lds128(p);
      const float4 v = make_float4(__uint_as_float(u.x), __uint_as_float(u.y),
                                   __uint_as_float(u.z), __uint_as_float(u.w));
      const int row = rm0 + 16 * i + r, col = cn0 + c;
      if (row >= M)
        continue;
      out_t *o = C + (size_t)row * N + col;
      if (vec4 && col + 3 < N) {
        float x = v.x, y = v.y, z = v.z, w = v.w;
#if TN_OUT_F32
        if (beta != 0.0f) {
          const float4 b4 = *reinterpret_cast<const float4 *>(o);
          x += beta * b4.x;
          y += beta * b4.y;
          z += beta * b4.z;
          w += beta * b4.w;
        }
        *reinterpret_cast<float4 *>(o) = make_float4(x, y, z, w);
#else
        if (beta != 0.0f) {
          const uint2 b2 = *reinterpret_cast<const uint2 *>(o);
          x += beta * elem_to_float((unsigned short)(b2.x & 0xffffu));
          y += beta * elem_to_float((unsigned short)(b2.x >> 16));
          z += beta * elem_to_float((unsigned short)(b2.y & 0xffffu));
          w += beta * elem_to_float((unsigned short)(b2.y >> 16));
        }
        *reinterpret_cast<uint2 *>(o) = make_uint2(pack2(x, y), pack2(z, w));
#endif
      } else {
        store_pair(C, N, row, col, v.x, v.y, beta, pair_ok);
        store_pair(C, N, row, col + 2, v.z, v.w, beta, pair_ok);
      }
    }
    __syncwarp();
  }
}
#endif

#if TN_EPILOGUE == 2
/* The 16-bit C the inputs have: C = round(alpha * acc + beta * C0), one
 * rounding, as epilogue 0 and the check (gemm_ref.h) have it.  stmatrix
 * stores b16, so the values are rounded before they are staged; adding
 * beta * C0 to the staged (rounded) alpha * acc on the way out would round
 * twice: the errors add (up to a unit in the last place, not half of one)
 * and the result need not be the correctly rounded value at all.  So
 * beta is applied here, in fp32 before the packing: each lane reads C0 at
 * its own fragment's pairs (the reads epilogue 0 makes; global memory,
 * nothing of the plan), and the staged values are final: the copy out
 * moves bits.  beta == 0 reads nothing (C may hold NaN). */
__device__ __forceinline__ float2 c0_pair(const out_t *C, int M, int N,
                                          int row, int col, bool pair_ok)
{
  float2 o = make_float2(0.0f, 0.0f);
  if (row >= M)
    return o;
  const out_t *p = C + (size_t)row * N + col;
  if (pair_ok && col + 1 < N) {
    const unsigned w = *reinterpret_cast<const unsigned *>(p);
    o.x = elem_to_float((unsigned short)(w & 0xffffu));
    o.y = elem_to_float((unsigned short)(w >> 16));
    return o;
  }
  if (col < N)
    o.x = elem_to_float(p[0]);
  if (col + 1 < N)
    o.y = elem_to_float(p[1]);
  return o;
}

/* Per 16-row slice i of the warp's tile: NI / 2 stmatrix.x4, each of the
 * 16 x 16 block of fragments j = 2 jj and 2 jj + 1 as four 8 x 8 matrices
 * (j's rows 0-7, j's rows 8-15, j + 1's rows 0-7, j + 1's rows 8-15: a
 * register of mma's accumulator pairs per matrix, packed), lane l naming
 * row l % 8 of matrix l / 8; then 16-byte loads of the slice's rows,
 * written to C whole where C allows (16-byte aligned, N a multiple of 8),
 * else element by element. */
__device__ __forceinline__ void epilogue_staged_b16(elem_t *smem, out_t *C,
                                                    int M, int N, int rm0,
                                                    int cn0, int warp,
                                                    int lane, float alpha,
                                                    float beta,
                                                    float (&acc)[MI][NI][4])
{
  const int g = lane / 4, t = lane % 4, mq = lane / 8, mr = lane % 8;
  const bool pair_ok = N % 2 == 0 && ((size_t)C & (2 * sizeof(out_t) - 1)) == 0;
  constexpr int SP = WN + TN_PAD_C; /* staging row pitch, 16-bit elements */
  static_assert(SP % 8 == 0, "16-byte staging rows (pad_c a multiple of 8)");
  cp_async_wait<0>();
  __syncthreads(); /* every warp is done with the ring */
  elem_t *stage_c = smem + warp * 16 * SP;
  /* lane's stmatrix row: matrix mq's row mr, at row 8 (mq & 1) + mr and
   * column 8 (mq >> 1) of the 16 x 16 block */
  const int row_el = (8 * (mq & 1) + mr) * SP + 8 * (mq >> 1);
  const unsigned row_addr = smem_addr(stage_c) + 2u * (unsigned)row_el;
  const bool vec8 = N % 8 == 0 && ((size_t)C & 15) == 0;
#pragma unroll
  for (int i = 0; i < MI; i++) {
#pragma unroll
    for (int jj = 0; jj < NI / 2; jj++) {
      unsigned v[4];
#pragma unroll
      for (int f = 0; f < 2; f++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          const int j = 2 * jj + f;
          float x = alpha * acc[i][j][2 * h], y = alpha * acc[i][j][2 * h + 1];
          if (beta != 0.0f) {
            const float2 o = c0_pair(C, M, N, rm0 + 16 * i + g + 8 * h,
                                     cn0 + 8 * j + 2 * t, pair_ok);
            x += beta * o.x;
            y += beta * o.y;
          }
          v[2 * f + h] = pack2(x, y);
        }
      TN_TRACE_STMATRIX(stage_c + row_el + 16 * jj, true);
      stmatrix_x4(row_addr + 32u * (unsigned)jj, v);
    }
    __syncwarp();
#pragma unroll
    for (int q = lane; q < 16 * (WN / 8); q += 32) {
      const int r = q / (WN / 8), c = 8 * (q % (WN / 8));
      const elem_t *p = stage_c + r * SP + c;
      TN_TRACE_LD(p, 16, true);
      const uint4 w = lds128(p);
      const int row = rm0 + 16 * i + r, col = cn0 + c;
      if (row >= M)
        continue;
      out_t *o = C + (size_t)row * N + col;
      if (vec8 && col + 7 < N) {
        *reinterpret_cast<uint4 *>(o) = w;
      } else {
        const unsigned wv[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int e = 0; e < 8; e++)
          if (col + e < N)
            o[e] = (unsigned short)(e % 2 ? wv[e / 2] >> 16
                                          : wv[e / 2] & 0xffffu);
      }
    }
    __syncwarp();
  }
}
#endif

/* The warp's WM x WN tile of C, whose first row is rm0 and first column
 * cn0, from its accumulators.  smem: the ring, free for staging once every
 * warp is done with it (the staged epilogues wait for that). */
__device__ __forceinline__ void epilogue(elem_t *smem, out_t *C, int M, int N,
                                         int rm0, int cn0, int warp, int lane,
                                         float alpha, float beta,
                                         float (&acc)[MI][NI][4])
{
#if TN_EPILOGUE == 0
  (void)smem;
  (void)warp;
  epilogue_direct(C, M, N, rm0, cn0, lane, alpha, beta, acc);
#elif TN_EPILOGUE == 1
  epilogue_staged_f32(smem, C, M, N, rm0, cn0, warp, lane, alpha, beta, acc);
#else
  epilogue_staged_b16(smem, C, M, N, rm0, cn0, warp, lane, alpha, beta, acc);
#endif
}

#endif

/* gemm_tc_epilogue.h -- the epilogue of templates/gemm_tc.cu: C = alpha *
 * acc + beta * C from each warp's fp32 accumulators, by TN_EPILOGUE:
 *   0  each fragment's pairs straight to C;
 *   1  each warp's tile staged through shared memory in fp32 (rows of
 *      WN + TN_PAD_C floats), then 16-byte rows to C.
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
      const float4 v = *reinterpret_cast<const float4 *>(p);
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
#else
  epilogue_staged_f32(smem, C, M, N, rm0, cn0, warp, lane, alpha, beta, acc);
#endif
}

#endif

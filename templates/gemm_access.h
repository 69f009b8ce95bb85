/* gemm_access.h -- the element accesses templates/gemm.cu shares between
 * its kernels: where (m, k) of op(A) and (k, n) of op(B) are stored
 * (TN_TRANS_A, TN_TRANS_B), and one shared-memory load of V floats as one
 * instruction of that width (the width the plan prices). */
#ifndef TN_GEMM_ACCESS_H
#define TN_GEMM_ACCESS_H

/* Element (m, k) of op(A) and (k, n) of op(B) in their row-major storage. */
__device__ __forceinline__ size_t a_index(int m, int k, int M, int K)
{
#if TN_TRANS_A
  return (size_t)k * M + m;
#else
  return (size_t)m * K + k;
#endif
}

__device__ __forceinline__ size_t b_index(int k, int n, int K, int N)
{
#if TN_TRANS_B
  return (size_t)n * K + k;
#else
  return (size_t)k * N + n;
#endif
}

/* One shared-memory load of V consecutive floats (V = 1, 2 or 4), aligned
 * to 4 * V bytes by construction. */
template <int V>
__device__ __forceinline__ void lds_vec(float *dst, const float *src)
{
  if constexpr (V == 4) {
    float4 v = *reinterpret_cast<const float4 *>(src);
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
    dst[3] = v.w;
  } else if constexpr (V == 2) {
    float2 v = *reinterpret_cast<const float2 *>(src);
    dst[0] = v.x;
    dst[1] = v.y;
  } else {
    dst[0] = *src;
  }
}

#endif

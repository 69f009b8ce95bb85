/* cuda_host.h -- what a CUDA template of plain C++ needs to compile and
 * run on the host, one OS thread per CUDA thread (the emulation tests,
 * tests/unit/test_transpose_emulate.c and test_gemm_emulate.c): the
 * qualifiers as nothing (a kernel's static __shared__ array wants
 * `static`, which its test defines), the vector types and their make_*,
 * fmaf, the built-in indices, __syncthreads as a barrier of the block's
 * threads and __syncwarp as one of the warp's.  Inline PTX has no host
 * form: a template point that emits it cannot run here, but for the copy
 * engine's (tma_ops.h), whose host form is tests/support/tma_host.h. */
#ifndef TN_CUDA_HOST_H
#define TN_CUDA_HOST_H

#include <math.h>
#include <pthread.h>
#include <stddef.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))

struct float2 {
  float x, y;
} __attribute__((aligned(8)));
struct float4 {
  float x, y, z, w;
} __attribute__((aligned(16)));
static inline float2 make_float2(float x, float y)
{
  return float2{x, y};
}
static inline float4 make_float4(float x, float y, float z, float w)
{
  return float4{x, y, z, w};
}
struct dim3 {
  unsigned x, y, z;
};

/* the grid's and the block's shape, set before the threads start; each
 * thread's own index, and the block it is running */
static dim3 gridDim, blockDim;
static thread_local dim3 threadIdx, blockIdx;
static pthread_barrier_t tn_block_barrier;
/* one a warp, each for the warp's lanes (the last warp may be partial) */
static pthread_barrier_t tn_warp_barrier[32];

static inline void __syncthreads(void)
{
  pthread_barrier_wait(&tn_block_barrier);
}

static inline void __syncwarp(void)
{
  pthread_barrier_wait(
      &tn_warp_barrier[(threadIdx.x + blockDim.x * threadIdx.y) / 32]);
}

static inline int min(int a, int b)
{
  return a < b ? a : b;
}

#endif

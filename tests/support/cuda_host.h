/* cuda_host.h -- what a CUDA template of plain C++ needs to compile and
 * run on the host, one OS thread per CUDA thread (the transpose's
 * emulation test, tests/unit/test_transpose_emulate.c): the qualifiers
 * as nothing, the vector types, the built-in indices, and __syncthreads
 * as a barrier of the block's threads.  Inline PTX has no host form: a
 * template point that emits it cannot run here. */
#ifndef TN_CUDA_HOST_H
#define TN_CUDA_HOST_H

#include <pthread.h>
#include <stddef.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __shared__
#define __align__(n) __attribute__((aligned(n)))

struct float2 {
  float x, y;
} __attribute__((aligned(8)));
struct float4 {
  float x, y, z, w;
} __attribute__((aligned(16)));
struct dim3 {
  unsigned x, y, z;
};

/* the grid's and the block's shape, set before the threads start; each
 * thread's own index, and the block it is running */
static dim3 gridDim, blockDim;
static thread_local dim3 threadIdx, blockIdx;
static pthread_barrier_t tn_block_barrier;

static inline void __syncthreads(void)
{
  pthread_barrier_wait(&tn_block_barrier);
}

static inline int min(int a, int b)
{
  return a < b ? a : b;
}

#endif

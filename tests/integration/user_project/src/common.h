/* common.h -- what the host code of the project shares: a check on every
 * CUDA call, and the shape of a launch. */
#ifndef USER_COMMON_H
#define USER_COMMON_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

/* Every CUDA call goes through CK(): on an error it names the call, the
 * file and the line, and the program exits 1. */
#define CK(call) user_check((call), #call, __FILE__, __LINE__)

static inline void user_check(cudaError_t e, const char *call,
                              const char *file, int line)
{
  if (e != cudaSuccess) {
    fprintf(stderr, "%s:%d: %s: %s (%s)\n", file, line, call,
            cudaGetErrorString(e), cudaGetErrorName(e));
    exit(1);
  }
}

/* How a kernel is launched. */
typedef struct {
  dim3 grid, block;
  int threads;         /* per block */
  size_t smem_static;  /* bytes the kernel declares (__shared__ arrays) */
  size_t smem_dynamic; /* bytes given at launch */
} launch_shape;

#endif

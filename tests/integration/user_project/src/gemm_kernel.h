/* gemm_kernel.h -- the host side of gemm_kernel.cu: the shipped GEMM
 * template, compiled with the dispatch header's parameters. */
#ifndef USER_GEMM_KERNEL_H
#define USER_GEMM_KERNEL_H

#include "common.h"
#include "gemm_dispatch.h"

/* What the kernel's code for the current device was compiled with, as that
 * code reports it from its TN_ macros. */
typedef struct {
  int cuda_arch;   /* __CUDA_ARCH__ */
  int config_arch; /* GEMM_CONFIG_ARCH (0: the portable default) */
  int kernel, bm, bn, bk, tm, tn, lanes_m, a_kmajor, b_kmajor, pipeline;
  int min_blocks, pad_a, pad_b;
  int swizzle_a_b, swizzle_a_m, swizzle_a_s;
  int swizzle_b_b, swizzle_b_m, swizzle_b_s;
  /* the problem's defines: how A and B are stored, threads per block,
   * 1 if shared memory is dynamic */
  int trans_a, trans_b, threads, dynamic_smem;
} gemm_built;

/* Fills *b from the kernel itself and *attr from cudaFuncGetAttributes(). */
void gemm_query(gemm_built *b, cudaFuncAttributes *attr);

/* The launch shape of configuration c for C (M x N) += op(A) op(B). */
void gemm_shape(const gemm_config *c, int M, int N, int K, launch_shape *s);

/* C = alpha * op(A) * op(B) + beta * C with the compiled kernel, launched
 * with shape s (of the configuration compiled in), and waits for it. */
void gemm_run(const launch_shape *s, const float *A, const float *B,
              float *C, int M, int N, int K, float alpha, float beta);

#endif

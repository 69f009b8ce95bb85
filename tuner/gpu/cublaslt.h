/* cublaslt.h -- cuBLASLt's fp8 matmul, loaded at run time, for the
 * baseline of the wgmma family's fp8 problems (family/gemm_wg.c).
 *
 * As cuBLAS (gpu/cublas.h), the library is found with dlopen when it is
 * first needed: libcublasLt.so.13, .12, then libcublasLt.so (each by
 * name, then under $CUDA_HOME/lib64 and /usr/local/cuda/lib64); without
 * it the tuner runs on and the baseline is reported missing.
 *
 * What it runs is cuBLASLt's fp8 GEMM as its documentation asks for it:
 * the "TN" layout (in column-major terms A transposed, B not: both
 * operands K-major), fp32 compute and scale type, the per-tensor scales
 * as device pointers (CUBLASLT_MATMUL_DESC_A_SCALE_POINTER and
 * B_SCALE_POINTER), CUBLASLT_MATMUL_DESC_FAST_ACCUM as asked, the first
 * algorithm cublasLtMatmulAlgoGetHeuristic proposes for a workspace of
 * the caller's size.  The descriptors and the algorithm of the last
 * problem are kept, so that a timed call enqueues the matmul and nothing
 * else of note; the scales' pointers are set on every call (the bench
 * rotates buffer sets).
 *
 * Not thread-safe: call it from one thread (the worker's). */
#ifndef TN_CUBLASLT_H
#define TN_CUBLASLT_H

#include <stddef.h>

#include "family/param.h"

/* The workspace the bench gives it: cuBLASLt's guidance for Hopper
 * (32 MiB). */
#define TN_CUBLASLT_WORKSPACE (32u << 20)

/* Enqueues on `stream` (a CUstream) one row-major C (m x n) = alpha *
 * scale_a * scale_b * A B^T + beta C: A m x k and B n x k, both stored
 * K-major (row-major with k innermost), of type in (TN_ELEM_E4M3 or
 * TN_ELEM_E5M2); C of type out (TN_ELEM_BF16 or TN_ELEM_F32), not read
 * when beta is 0; scale_a and scale_b device pointers to one fp32 each;
 * fp32 accumulation promoted out of the tensor cores, or not with
 * fast_accum.  a, b, c, the scales and workspace are device pointers
 * (CUdeviceptr).  The first call loads the library and creates a handle
 * in the current context, which later calls must share.  Returns 0, or
 * -1 with why (types it does not take, before the library is loaded;
 * library missing, no algorithm for the problem, a call failed). */
int tn_cublaslt_fp8(void *stream, tn_elem_type in, tn_elem_type out, int m,
                    int n, int k, float alpha, unsigned long long a,
                    unsigned long long b, float beta, unsigned long long c,
                    unsigned long long scale_a, unsigned long long scale_b,
                    int fast_accum, unsigned long long workspace,
                    size_t workspace_bytes, char *why, size_t why_len);

#endif

/* cublas.h -- cuBLAS SGEMM and GemmEx for the GEMM families' baselines,
 * and DGEMM for their reference, loaded at run time.
 *
 * The tuner links no CUDA library but NVRTC, so cuBLAS is found with dlopen
 * when it is first needed: libcublas.so.13, .12, .11, then libcublas.so
 * (each by name, then under $CUDA_HOME/lib64 and /usr/local/cuda/lib64).
 * Without it the tuner runs on and the baseline is reported missing.
 *
 * The math mode is CUBLAS_DEFAULT_MATH: for SGEMM, fp32 inputs, products
 * and sums, no TF32 (GemmEx's 16-bit inputs go to the tensor cores, which
 * that mode allows for them).  NVIDIA_TF32_OVERRIDE can only switch TF32
 * off, never on; the loader sets it to 0 for the process anyway, before
 * cuBLAS reads it, so no setting of the environment can change what is
 * measured.
 *
 * Not thread-safe: call it from one thread (the worker's). */
#ifndef TN_CUBLAS_H
#define TN_CUBLAS_H

#include <stddef.h>

#include "family/param.h"

/* Enqueues one C = alpha * op(A) * op(B) + beta * C on `stream` (a
 * CUstream, the same as a cudaStream_t) for row-major fp32 matrices: op(A)
 * is m x k (A stored m x k, or k x m if trans_a), op(B) is k x n (B stored
 * k x n, or n x k if trans_b), C is m x n; a, b and c are device pointers
 * (CUdeviceptr).  With beta == 0, C is not read.  The first call loads the
 * library and creates a handle in the current context, which later calls
 * must share.  Returns 0, or -1 with why (library missing, handle or call
 * failed; a load failure is remembered and repeated). */
int tn_cublas_sgemm(void *stream, int trans_a, int trans_b, int m, int n,
                    int k, float alpha, unsigned long long a,
                    unsigned long long b, float beta, unsigned long long c,
                    char *why, size_t why_len);

/* The same product with 16-bit inputs, through cublasGemmEx: A and B of
 * in_type (TN_ELEM_BF16 or TN_ELEM_F16), C of out_type (TN_ELEM_F32 or
 * in_type), products and sums in fp32 (CUBLAS_COMPUTE_32F), alpha and
 * beta fp32, cuBLAS's default algorithm.  in_type and out_type both
 * TN_ELEM_F32 is tn_cublas_sgemm.  Other pairs return -1 with why, before
 * the library is loaded. */
int tn_cublas_gemm_ex(void *stream, tn_elem_type in_type,
                      tn_elem_type out_type, int trans_a, int trans_b, int m,
                      int n, int k, float alpha, unsigned long long a,
                      unsigned long long b, float beta, unsigned long long c,
                      char *why, size_t why_len);

/* fp64 C = op(A) * op(B) for row-major matrices (as tn_cublas_sgemm,
 * alpha 1, beta 0): the GEMM families' reference.  cuBLAS's default math
 * mode does plain fp64 (no emulation).  Returns 0, 1 when cuBLAS is not
 * there (why says so), or -1 with why. */
int tn_cublas_dgemm(void *stream, int trans_a, int trans_b, int m, int n,
                    int k, unsigned long long a, unsigned long long b,
                    unsigned long long c, char *why, size_t why_len);

#endif

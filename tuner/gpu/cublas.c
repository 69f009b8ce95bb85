/* cublas.c -- cuBLAS SGEMM and GemmEx loaded with dlopen, for the GEMM
 * baselines.
 *
 * cublas_api.h gives the types and prototypes only; every function is
 * taken with dlsym, so nothing here links against cuBLAS or cudart. */
#define _POSIX_C_SOURCE 200809L
#include "gpu/cublas.h"
#include "gpu/toolkit_lib.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cublas_api.h>

#define CUBLAS_FUNCS(X)                                                      \
  X(cublasCreate_v2)                                                         \
  X(cublasDestroy_v2)                                                        \
  X(cublasSetStream_v2)                                                      \
  X(cublasSetMathMode)                                                       \
  X(cublasSgemm_v2)                                                          \
  X(cublasDgemm_v2)                                                          \
  X(cublasGemmEx)

static struct {
  int tried;       /* loading was attempted; error says how it went */
  void *lib;
  cublasHandle_t handle;
  char error[512];
#define CUBLAS_DECLARE(f) __typeof__(&f) f;
  CUBLAS_FUNCS(CUBLAS_DECLARE)
#undef CUBLAS_DECLARE
  __typeof__(&cublasGetStatusString) status_string; /* optional */
} g;

static const char *status_text(cublasStatus_t s)
{
  static char buf[32];
  if (g.status_string)
    return g.status_string(s);
  snprintf(buf, sizeof(buf), "cuBLAS status %d", (int)s);
  return buf;
}

/* Loads the library and creates the handle.  Returns 0 or -1 (g.error). */
static int load(void)
{
  static const char *const names[] = {"libcublas.so.13", "libcublas.so.12",
                                      "libcublas.so.11", "libcublas.so"};
#define CUBLAS_SYM(f) {#f, (void **)&g.f, 0},
  static const tn_toolkit_sym syms[] = {
      CUBLAS_FUNCS(CUBLAS_SYM){"cublasGetStatusString",
                               (void **)&g.status_string, 1}};
#undef CUBLAS_SYM
  cublasStatus_t s;
  int i;

  g.tried = 1;
  /* TF32 off whatever the environment says; cuBLAS reads it when loaded */
  setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
  g.lib = tn_toolkit_lib_load("cuBLAS", names,
                              (int)(sizeof(names) / sizeof(names[0])), syms,
                              (int)(sizeof(syms) / sizeof(syms[0])), g.error,
                              sizeof(g.error));
  if (g.lib == NULL)
    return -1;
  s = g.cublasCreate_v2(&g.handle);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(g.error, sizeof(g.error), "cublasCreate: %s", status_text(s));
    g.handle = NULL;
    goto fail;
  }
  s = g.cublasSetMathMode(g.handle, CUBLAS_DEFAULT_MATH);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(g.error, sizeof(g.error), "cublasSetMathMode: %s",
             status_text(s));
    goto fail;
  }
  return 0;
fail:
  if (g.handle)
    g.cublasDestroy_v2(g.handle);
  g.handle = NULL;
  dlclose(g.lib);
  g.lib = NULL;
  for (i = 0; i < (int)(sizeof(syms) / sizeof(syms[0])); i++)
    *syms[i].slot = NULL; /* nothing points into the closed library */
  return -1;
}

/* The first call loads; every call then needs the handle on stream.
 * Returns 0, or -1 with why. */
static int ready(void *stream, char *why, size_t why_len)
{
  cublasStatus_t s;
  if (!g.tried)
    load();
  if (g.handle == NULL) {
    snprintf(why, why_len, "%s", g.error);
    return -1;
  }
  s = g.cublasSetStream_v2(g.handle, (cudaStream_t)stream);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(why, why_len, "cublasSetStream: %s", status_text(s));
    return -1;
  }
  return 0;
}

int tn_cublas_sgemm(void *stream, int trans_a, int trans_b, int m, int n,
                    int k, float alpha, unsigned long long a,
                    unsigned long long b, float beta, unsigned long long c,
                    char *why, size_t why_len)
{
  cublasStatus_t s;

  if (ready(stream, why, why_len) != 0)
    return -1;
  /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, and a
   * row-major buffer read column-major is its transpose: so B comes first,
   * each operand transposed iff the problem transposes it, and the
   * leading dimensions are the row lengths of the stored matrices. */
  s = g.cublasSgemm_v2(g.handle, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                       trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha,
                       (const float *)(uintptr_t)b, trans_b ? k : n,
                       (const float *)(uintptr_t)a, trans_a ? m : k, &beta,
                       (float *)(uintptr_t)c, n);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(why, why_len, "cublasSgemm: %s", status_text(s));
    return -1;
  }
  return 0;
}

int tn_cublas_gemm_ex(void *stream, tn_elem_type in_type,
                      tn_elem_type out_type, int trans_a, int trans_b, int m,
                      int n, int k, float alpha, unsigned long long a,
                      unsigned long long b, float beta, unsigned long long c,
                      char *why, size_t why_len)
{
  cudaDataType in, out;
  cublasStatus_t s;

  if (in_type == TN_ELEM_F32 && out_type == TN_ELEM_F32)
    return tn_cublas_sgemm(stream, trans_a, trans_b, m, n, k, alpha, a, b,
                           beta, c, why, why_len);
  /* the pairs cublasGemmEx has with fp32 compute for 16-bit inputs; an
   * fp32 input with a 16-bit output is not among them */
  if ((in_type != TN_ELEM_BF16 && in_type != TN_ELEM_F16) ||
      (out_type != TN_ELEM_F32 && out_type != in_type)) {
    snprintf(why, why_len,
             "cuBLAS GemmEx: inputs %s with output %s: expected bf16 or f16 "
             "inputs with an f32 output or one of the inputs' type, or f32 "
             "with f32",
             tn_elem_name(in_type), tn_elem_name(out_type));
    return -1;
  }
  in = in_type == TN_ELEM_BF16 ? CUDA_R_16BF : CUDA_R_16F;
  out = out_type == TN_ELEM_F32 ? CUDA_R_32F : in;
  if (ready(stream, why, why_len) != 0)
    return -1;
  /* B first, as in tn_cublas_sgemm: the row-major product is the
   * column-major one of the transposes. */
  s = g.cublasGemmEx(g.handle, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                     trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha,
                     (const void *)(uintptr_t)b, in, trans_b ? k : n,
                     (const void *)(uintptr_t)a, in, trans_a ? m : k, &beta,
                     (void *)(uintptr_t)c, out, n, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(why, why_len, "cublasGemmEx (%s inputs, %s output): %s",
             tn_elem_name(in_type), tn_elem_name(out_type), status_text(s));
    return -1;
  }
  return 0;
}

int tn_cublas_dgemm(void *stream, int trans_a, int trans_b, int m, int n,
                    int k, unsigned long long a, unsigned long long b,
                    unsigned long long c, char *why, size_t why_len)
{
  const double one = 1.0, zero = 0.0;
  cublasStatus_t s;

  if (ready(stream, why, why_len) != 0)
    return g.lib == NULL ? 1 : -1;
  /* B first, as in tn_cublas_sgemm */
  s = g.cublasDgemm_v2(g.handle, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                       trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &one,
                       (const double *)(uintptr_t)b, trans_b ? k : n,
                       (const double *)(uintptr_t)a, trans_a ? m : k, &zero,
                       (double *)(uintptr_t)c, n);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(why, why_len, "cublasDgemm: %s", status_text(s));
    return -1;
  }
  return 0;
}

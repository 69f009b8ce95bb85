/* cublaslt.c -- cuBLASLt's fp8 matmul loaded with dlopen (cublaslt.h).
 *
 * cublasLt.h gives the types and prototypes only; every function is taken
 * with dlsym, so nothing here links against cuBLASLt or cudart. */
#define _POSIX_C_SOURCE 200809L
#include "gpu/cublaslt.h"
#include "gpu/toolkit_lib.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the header declares one function with () (cublasLtLoggerForceDisable),
 * which -Wstrict-prototypes refuses: a toolkit header, not our code */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#pragma GCC diagnostic pop

#define LT_FUNCS(X)                                                          \
  X(cublasLtCreate)                                                          \
  X(cublasLtDestroy)                                                         \
  X(cublasLtMatmulDescCreate)                                                \
  X(cublasLtMatmulDescDestroy)                                               \
  X(cublasLtMatmulDescSetAttribute)                                          \
  X(cublasLtMatrixLayoutCreate)                                              \
  X(cublasLtMatrixLayoutDestroy)                                             \
  X(cublasLtMatmulPreferenceCreate)                                          \
  X(cublasLtMatmulPreferenceDestroy)                                         \
  X(cublasLtMatmulPreferenceSetAttribute)                                    \
  X(cublasLtMatmulAlgoGetHeuristic)                                          \
  X(cublasLtMatmul)

/* The problem the kept descriptors and algorithm are for. */
typedef struct {
  tn_elem_type in, out;
  int m, n, k, fast_accum;
  size_t workspace_bytes;
} plan_key;

static struct {
  int tried; /* loading was attempted; error says how it went */
  void *lib;
  cublasLtHandle_t handle;
  char error[512];
#define LT_DECLARE(f) __typeof__(&f) f;
  LT_FUNCS(LT_DECLARE)
#undef LT_DECLARE
  __typeof__(&cublasLtGetStatusString) status_string; /* optional */
  /* the last problem's plan */
  int planned;
  plan_key key;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t lt_a, lt_b, lt_c;
  cublasLtMatmulAlgo_t algo;
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
  static const char *const names[] = {"libcublasLt.so.13",
                                      "libcublasLt.so.12", "libcublasLt.so"};
#define LT_SYM(f) {#f, (void **)&g.f, 0},
  static const tn_toolkit_sym syms[] = {
      LT_FUNCS(LT_SYM){"cublasLtGetStatusString", (void **)&g.status_string,
                       1}};
#undef LT_SYM
  cublasStatus_t s;
  int i;

  g.tried = 1;
  g.lib = tn_toolkit_lib_load("cuBLASLt", names,
                              (int)(sizeof(names) / sizeof(names[0])), syms,
                              (int)(sizeof(syms) / sizeof(syms[0])), g.error,
                              sizeof(g.error));
  if (g.lib == NULL)
    return -1;
  s = g.cublasLtCreate(&g.handle);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(g.error, sizeof(g.error), "cublasLtCreate: %s",
             status_text(s));
    g.handle = NULL;
    goto fail;
  }
  return 0;
fail:
  dlclose(g.lib);
  g.lib = NULL;
  for (i = 0; i < (int)(sizeof(syms) / sizeof(syms[0])); i++)
    *syms[i].slot = NULL; /* nothing points into the closed library */
  return -1;
}

static void drop_plan(void)
{
  if (!g.planned)
    return;
  g.cublasLtMatrixLayoutDestroy(g.lt_a);
  g.cublasLtMatrixLayoutDestroy(g.lt_b);
  g.cublasLtMatrixLayoutDestroy(g.lt_c);
  g.cublasLtMatmulDescDestroy(g.desc);
  g.planned = 0;
}

/* Sets attribute `attr` of the kept descriptor; 0, or -1 with why. */
static int set_attr(cublasLtMatmulDescAttributes_t attr, const void *v,
                    size_t size, const char *name, char *why, size_t n)
{
  cublasStatus_t s = g.cublasLtMatmulDescSetAttribute(g.desc, attr, v, size);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(why, n, "cublasLtMatmulDescSetAttribute(%s): %s", name,
             status_text(s));
    return -1;
  }
  return 0;
}

/* The descriptors and the algorithm of problem key.  In cuBLASLt's
 * column-major terms the row-major C = A B^T is C^T = B A^T with C^T
 * n x m (ld n), B^T read from B's storage as a k x n matrix transposed
 * (its "A", TRANSA T) and A's storage as a k x m matrix (its "B", TRANSB
 * N): the TN layout its fp8 kernels take.  0, or -1 with why. */
static int make_plan(const plan_key *key, char *why, size_t n)
{
  cudaDataType in = key->in == TN_ELEM_E4M3 ? CUDA_R_8F_E4M3 : CUDA_R_8F_E5M2;
  cudaDataType out = key->out == TN_ELEM_BF16 ? CUDA_R_16BF : CUDA_R_32F;
  cublasOperation_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
  int8_t fast = key->fast_accum ? 1 : 0;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t result;
  size_t ws = key->workspace_bytes;
  cublasStatus_t s;
  int found = 0;

  drop_plan();
  g.lt_a = g.lt_b = g.lt_c = NULL;
  s = g.cublasLtMatmulDescCreate(&g.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(why, n, "cublasLtMatmulDescCreate: %s", status_text(s));
    return -1;
  }
  s = g.cublasLtMatrixLayoutCreate(&g.lt_a, in, (uint64_t)key->k,
                                   (uint64_t)key->n, (int64_t)key->k);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = g.cublasLtMatrixLayoutCreate(&g.lt_b, in, (uint64_t)key->k,
                                     (uint64_t)key->m, (int64_t)key->k);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = g.cublasLtMatrixLayoutCreate(&g.lt_c, out, (uint64_t)key->n,
                                     (uint64_t)key->m, (int64_t)key->n);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(why, n, "cublasLtMatrixLayoutCreate: %s", status_text(s));
    if (g.lt_a)
      g.cublasLtMatrixLayoutDestroy(g.lt_a);
    if (g.lt_b)
      g.cublasLtMatrixLayoutDestroy(g.lt_b);
    g.cublasLtMatmulDescDestroy(g.desc);
    return -1;
  }
  g.planned = 1;
  if (set_attr(CUBLASLT_MATMUL_DESC_TRANSA, &op_t, sizeof(op_t), "TRANSA",
               why, n) ||
      set_attr(CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof(op_n), "TRANSB",
               why, n) ||
      set_attr(CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof(fast),
               "FAST_ACCUM", why, n))
    goto fail;
  s = g.cublasLtMatmulPreferenceCreate(&pref);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = g.cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  if (s == CUBLAS_STATUS_SUCCESS)
    s = g.cublasLtMatmulAlgoGetHeuristic(g.handle, g.desc, g.lt_a, g.lt_b,
                                         g.lt_c, g.lt_c, pref, 1, &result,
                                         &found);
  if (pref)
    g.cublasLtMatmulPreferenceDestroy(pref);
  if (s != CUBLAS_STATUS_SUCCESS || found < 1 ||
      result.state != CUBLAS_STATUS_SUCCESS) {
    snprintf(why, n,
             "cublasLtMatmulAlgoGetHeuristic: no algorithm for %s x %s -> "
             "%s, %d x %d x %d (TN), fast accumulation %s: %s",
             tn_elem_name(key->in), tn_elem_name(key->in),
             tn_elem_name(key->out), key->m, key->n, key->k,
             key->fast_accum ? "on" : "off",
             status_text(s != CUBLAS_STATUS_SUCCESS ? s
                         : found < 1 ? CUBLAS_STATUS_NOT_SUPPORTED
                                     : result.state));
    goto fail;
  }
  g.algo = result.algo;
  g.key = *key;
  return 0;
fail:
  drop_plan();
  return -1;
}

int tn_cublaslt_fp8(void *stream, tn_elem_type in, tn_elem_type out, int m,
                    int n, int k, float alpha, unsigned long long a,
                    unsigned long long b, float beta, unsigned long long c,
                    unsigned long long scale_a, unsigned long long scale_b,
                    int fast_accum, unsigned long long workspace,
                    size_t workspace_bytes, char *why, size_t why_len)
{
  const void *sa = (const void *)(uintptr_t)scale_a;
  const void *sb = (const void *)(uintptr_t)scale_b;
  cublasStatus_t s;
  plan_key key;

  if ((in != TN_ELEM_E4M3 && in != TN_ELEM_E5M2) ||
      (out != TN_ELEM_BF16 && out != TN_ELEM_F32)) {
    snprintf(why, why_len,
             "cuBLASLt fp8 matmul: inputs %s with output %s: expected e4m3 "
             "or e5m2 inputs with a bf16 or f32 output",
             tn_elem_name(in), tn_elem_name(out));
    return -1;
  }
  if (!g.tried)
    load();
  if (g.handle == NULL) {
    snprintf(why, why_len, "%s", g.error);
    return -1;
  }
  memset(&key, 0, sizeof(key));
  key.in = in;
  key.out = out;
  key.m = m;
  key.n = n;
  key.k = k;
  key.fast_accum = fast_accum ? 1 : 0;
  key.workspace_bytes = workspace_bytes;
  if ((!g.planned || memcmp(&key, &g.key, sizeof(key)) != 0) &&
      make_plan(&key, why, why_len) != 0)
    return -1;
  /* cuBLASLt's A is our B, its B our A (make_plan) */
  if (set_attr(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sb, sizeof(sb),
               "A_SCALE_POINTER", why, why_len) ||
      set_attr(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sa, sizeof(sa),
               "B_SCALE_POINTER", why, why_len))
    return -1;
  s = g.cublasLtMatmul(g.handle, g.desc, &alpha, (const void *)(uintptr_t)b,
                       g.lt_a, (const void *)(uintptr_t)a, g.lt_b, &beta,
                       (const void *)(uintptr_t)c, g.lt_c,
                       (void *)(uintptr_t)c, g.lt_c, &g.algo,
                       (void *)(uintptr_t)workspace, workspace_bytes,
                       (cudaStream_t)stream);
  if (s != CUBLAS_STATUS_SUCCESS) {
    snprintf(why, why_len, "cublasLtMatmul (%s inputs, %s output): %s",
             tn_elem_name(in), tn_elem_name(out), status_text(s));
    return -1;
  }
  return 0;
}

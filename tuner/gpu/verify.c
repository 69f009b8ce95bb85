/* verify.c -- the check of a launch's output inside the worker
 * (verify.h). */
#define _POSIX_C_SOURCE 200809L
#include "gpu/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "gpu/cublas.h"
#include "gpu/nvrtc.h"

#define CU(call) tn_cuda_failed(v->cu, v->st, v->cu->call, #call)

/* The services of tn_verify_env. */
static int env_launch(tn_verify_env *env, const char *name,
                      const unsigned grid[3], const unsigned block[3],
                      tn_args *args)
{
  tn_verify *v = env->impl;
  CUfunction fn;
  if (v->ref_module == NULL || args->overflow)
    return -1;
  if (CU(cuModuleGetFunction(&fn, v->ref_module, name)) ||
      CU(cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1],
                        block[2], 0, v->stream, args->ptrs, NULL)) ||
      CU(cuStreamSynchronize(v->stream)))
    return -1;
  return 0;
}

static int env_alloc(tn_verify_env *env, size_t bytes, tn_devptr *out)
{
  tn_verify *v = env->impl;
  CUdeviceptr p;
  if (v->n_scratch >= TN_VERIFY_MAX_SCRATCH || CU(cuMemAlloc(&p, bytes)))
    return -1;
  v->scratch[v->n_scratch++] = p;
  *out = p;
  return 0;
}

static int env_alloc_spare(tn_verify_env *env, size_t bytes,
                           tn_devptr *out)
{
  tn_verify *v = env->impl;
  CUdeviceptr p;
  CUresult r;
  if (v->n_scratch >= TN_VERIFY_MAX_SCRATCH)
    return 1;
  r = v->cu->cuMemAlloc(&p, bytes);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    return 1; /* not the job's failure: the caller has a fallback */
  if (tn_cuda_failed(v->cu, v->st, r, "cuMemAlloc"))
    return -1;
  v->scratch[v->n_scratch++] = p;
  *out = p;
  return 0;
}

static int env_dgemm(tn_verify_env *env, int trans_a, int trans_b, int m,
                     int n, int k, tn_devptr a, tn_devptr bm, tn_devptr c,
                     char *why, size_t why_len)
{
  tn_verify *v = env->impl;
  int rc = tn_cublas_dgemm(v->stream, trans_a, trans_b, m, n, k, a, bm, c,
                           why, why_len);
  if (rc != 0)
    return rc;
  return CU(cuStreamSynchronize(v->stream)) ? -1 : 0;
}

static int env_download(tn_verify_env *env, void *dst, tn_devptr src,
                        size_t bytes)
{
  tn_verify *v = env->impl;
  return CU(cuMemcpyDtoH(dst, src, bytes)) ? -1 : 0;
}

static int env_compare(tn_verify_env *env, tn_devptr got, tn_devptr want,
                       size_t count, tn_elem_type t, double atol,
                       double rtol, unsigned long long *bad,
                       unsigned long long *first)
{
  tn_verify *v = env->impl;
  char why[256] = "";
  if (tn_compare_run(&v->cmp, v->cc_major, v->cc_minor, got, want, count, t,
                     atol, rtol, bad, first, why, sizeof(why)) != 0) {
    if (why[0] && v->st->last == CUDA_SUCCESS)
      snprintf(v->st->what, sizeof(v->st->what), "%s", why);
    return -1;
  }
  return 0;
}

static void free_scratch(tn_verify *v)
{
  int i;
  for (i = 0; i < v->n_scratch; i++)
    v->cu->cuMemFree(v->scratch[i]);
  v->n_scratch = 0;
}

/* Compiles the family's reference kernels for this device, once. */
static int ensure_reference(tn_verify *v, const tn_family *f, char *why,
                            size_t n)
{
  void *cubin;
  size_t len;
  int rc;

  if (f->reference_source == NULL || v->ref_family == f)
    return 0;
  if (v->ref_module) {
    v->cu->cuModuleUnload(v->ref_module);
    v->ref_module = NULL;
  }
  if (tn_nvrtc_helper_cc(f->reference_source, "reference.cu", v->cc_major,
                         v->cc_minor, "the reference kernels do not compile",
                         &cubin, &len, why, n) != 0)
    return -1;
  rc = CU(cuModuleLoadData(&v->ref_module, cubin));
  free(cubin);
  if (rc) {
    snprintf(why, n, "%s", v->st->what);
    return -1;
  }
  v->ref_family = f;
  return 0;
}

int tn_verify_run(tn_verify *v, const tn_family *f, const tn_problem *prob,
                  const tn_buffers *bufs, const CUdeviceptr *expected,
                  unsigned long long seed, char *reason, size_t n)
{
  tn_verify_env env;
  int i, rc, on_host = f->verify_device == NULL;

  for (i = 0; on_host && i < bufs->n; i++)
    if (bufs->desc[i].role != TN_BUF_IN &&
        CU(cuMemcpyDtoH(bufs->host[i], bufs->dev[0][i],
                        bufs->desc[i].bytes)))
      return -1;
  if (ensure_reference(v, f, reason, n) != 0)
    return -1;
  memset(&env, 0, sizeof(env));
  env.family = f;
  env.problem = prob;
  env.n_buffers = bufs->n;
  env.descs = bufs->desc;
  for (i = 0; i < bufs->n; i++) {
    env.host[i] = bufs->host[i];
    env.host_init[i] = bufs->host_init[i];
    env.dev[i] = bufs->dev[0][i];
    env.dev_init[i] = bufs->dev_init[i];
    env.expected[i] = expected ? expected[i] : 0;
    if (bufs->desc[i].role != TN_BUF_OUT)
      env.seed[i] = tn_buffer_seed(seed, i);
  }
  env.launch = env_launch;
  env.alloc = env_alloc;
  env.alloc_spare = env_alloc_spare;
  env.dgemm = env_dgemm;
  env.download = env_download;
  env.compare = env_compare;
  env.impl = v;
  rc = on_host ? f->verify(&env, reason, n)
               : f->verify_device(&env, reason, n);
  free_scratch(v);
  if (rc < 0 && v->st->last == CUDA_SUCCESS && reason[0] == '\0')
    snprintf(reason, n, "the reference check failed");
  return rc;
}

void tn_verify_unload(tn_verify *v)
{
  tn_compare_unload(&v->cmp);
  free_scratch(v);
  if (v->ref_module)
    v->cu->cuModuleUnload(v->ref_module);
  v->ref_module = NULL;
  v->ref_family = NULL;
}

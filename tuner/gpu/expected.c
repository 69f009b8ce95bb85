/* expected.c -- a fixed-inputs family's reference outputs and its
 * modules' __constant__ symbols, in the worker. */
#define _POSIX_C_SOURCE 200809L
#include "gpu/expected.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "gpu/tmap.h"

#define CU(call) tn_cuda_failed(in->cu, in->st, in->cu->call, #call)

/* Fills the __constant__ symbols f's module mod holds for p on prob,
 * each from its own seed (the same values in every module). */
int tn_constants_set(tn_inputs *in, const tn_family *f, const tn_params *p,
                     const tn_problem *prob, CUmodule mod,
                     unsigned long long seed, char *why, size_t n)
{
  tn_constant_desc cd[TN_MAX_CONSTANTS];
  int i, nc;
  if (f->constants == NULL)
    return 0;
  memset(cd, 0, sizeof(cd));
  nc = f->constants(f, p, prob, cd);
  for (i = 0; i < nc && i < TN_MAX_CONSTANTS; i++) {
    CUdeviceptr dst;
    size_t bytes = 0;
    void *host;
    CUresult r = in->cu->cuModuleGetGlobal(&dst, &bytes, mod, cd[i].name);
    if (r != CUDA_SUCCESS) {
      snprintf(why, n, "the module has no __constant__ symbol %s (the "
                       "config's constants name it)",
               cd[i].name);
      return -1;
    }
    if (bytes < cd[i].bytes) {
      snprintf(why, n, "__constant__ %s is %zu bytes, the config fills "
                       "%zu",
               cd[i].name, bytes, cd[i].bytes);
      return -1;
    }
    host = malloc(cd[i].bytes ? cd[i].bytes : 1);
    if (host == NULL) {
      snprintf(why, n, "out of memory for __constant__ %s", cd[i].name);
      return -1;
    }
    tn_init_fill_host(&cd[i].init, cd[i].elem,
                      tn_buffer_seed(seed, TN_MAX_BUFFERS + i), host,
                      cd[i].bytes / (size_t)tn_elem_bytes(cd[i].elem));
    r = in->cu->cuMemcpyHtoD(dst, host, cd[i].bytes);
    free(host);
    if (tn_cuda_failed(in->cu, in->st, r, "cuMemcpyHtoD"))
      return -1;
  }
  return 0;
}

/* The key of a reference's outputs: its CUBIN, point and launch, the
 * problem and the inputs' seed. */
static unsigned long long expected_key(const tn_reference *ref,
                                       const void *ref_cubin,
                                       const tn_problem *prob,
                                       unsigned long long seed)
{
  unsigned long long k = XXH3_64bits_withSeed(ref_cubin, ref->cubin_len, seed);
  k = XXH3_64bits_withSeed(&ref->params, sizeof(ref->params), k);
  k = XXH3_64bits_withSeed(&ref->launch, sizeof(ref->launch), k);
  k = XXH3_64bits_withSeed(ref->kernel, strlen(ref->kernel), k);
  return XXH3_64bits_withSeed(prob, sizeof(*prob), k) | 1;
}

int tn_expected_ensure(tn_expected *e, tn_inputs *in, tn_buffers *bufs,
                       const tn_family *f, const tn_reference *ref,
                       const void *ref_cubin, const tn_problem *prob,
                       unsigned long long seed, char *why, size_t n)
{
  unsigned long long key = expected_key(ref, ref_cubin, prob, seed);
  const tn_launch *l = &ref->launch;
  CUmodule mod = NULL;
  CUfunction fn;
  tn_args args;
  int i, rc = -1;

  why[0] = '\0';
  if (e->key == key)
    return 0;
  tn_expected_clear(e);
  if (tn_inputs_fill(in, bufs, seed, why, n) != 0 ||
      CU(cuModuleLoadData(&mod, ref_cubin)) ||
      CU(cuModuleGetFunction(&fn, mod, ref->kernel)))
    goto done;
  if (tn_constants_set(in, f, &ref->params, prob, mod, seed, why, n) != 0)
    goto done;
  memset(&args, 0, sizeof(args));
  if (tn_kernel_args(in->cu, f, &ref->params, prob, bufs->dev[0], 0, &args,
                     why, n) != 0)
    goto done;
  if ((l->smem_dynamic > 0 &&
       CU(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             l->smem_dynamic))) ||
      CU(cuLaunchKernel(fn, l->grid[0], l->grid[1], l->grid[2], l->block[0],
                        l->block[1], l->block[2], (unsigned)l->smem_dynamic,
                        in->stream, args.ptrs, NULL)) ||
      CU(cuStreamSynchronize(in->stream)))
    goto done;
  for (i = 0; i < bufs->n; i++) {
    const tn_buffer_desc *d = &bufs->desc[i];
    if (d->role == TN_BUF_IN)
      continue;
    if (CU(cuMemAlloc(&e->dev[i], d->bytes ? d->bytes : 1)) ||
        CU(cuMemcpyDtoD(e->dev[i], bufs->dev[0][i], d->bytes)))
      goto done;
  }
  e->key = key;
  rc = 0;
done:
  if (rc != 0) {
    char tmp[1024];
    snprintf(tmp, sizeof(tmp), "the reference: %.900s",
             why[0] ? why : in->st->what);
    tn_strlcpy(why, tmp, n);
    tn_expected_clear(e);
  }
  if (mod)
    in->cu->cuModuleUnload(mod);
  return rc;
}

void tn_expected_clear(tn_expected *e)
{
  int i;
  for (i = 0; i < TN_MAX_BUFFERS; i++) {
    if (e->dev[i] && e->cu)
      e->cu->cuMemFree(e->dev[i]);
    e->dev[i] = 0;
  }
  e->key = 0;
}

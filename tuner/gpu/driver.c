/* driver.c -- the CUDA driver API, loaded at run time with dlopen. */
#define _GNU_SOURCE
#include "gpu/driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Expands cuda.h's version macros before stringifying, so that
 * NAME(cuMemAlloc) is "cuMemAlloc_v2", the symbol matching the prototype. */
#define STR(x) #x
#define NAME(x) STR(x)

int tn_cuda_load(tn_cuda *cu, tn_err *err)
{
  CUresult r;
  char msg[256];

  memset(cu, 0, sizeof(*cu));
  cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cu->lib == NULL)
    return tn_errf(err, TN_ENODEV,
                   "no NVIDIA driver: cannot load libcuda.so.1 (%s)",
                   dlerror());
#define TN_CUDA_RESOLVE(f)                                                   \
  *(void **)(&cu->f) = dlsym(cu->lib, NAME(f));                              \
  if (cu->f == NULL && strcmp(NAME(f), "cuEventElapsedTime_v2") == 0)        \
    /* drivers before CUDA 12.8 have the same call unversioned */           \
    *(void **)(&cu->f) = dlsym(cu->lib, "cuEventElapsedTime");               \
  /* the copy engine's call (CUDA 12.0) and the clusters' occupancy        \
   * (11.8) are optional: without them only the candidates that use tensor \
   * maps or fit a grid of clusters fail, each saying why (gpu/tmap.c,     \
   * gpu/grid_fit.c) */                                                    \
  if (cu->f == NULL && strcmp(NAME(f), "cuTensorMapEncodeTiled") != 0 &&     \
      strcmp(NAME(f), "cuOccupancyMaxActiveClusters") != 0) {               \
    tn_errf(err, TN_ENODEV, "the NVIDIA driver is too old: no %s",           \
            NAME(f));                                                        \
    goto fail;                                                               \
  }
  TN_CUDA_FUNCS(TN_CUDA_RESOLVE)
#undef TN_CUDA_RESOLVE

  r = cu->cuInit(0);
  if (r != CUDA_SUCCESS) {
    tn_errf(err, TN_ENODEV, "cuInit failed: %s",
            tn_cuda_strerror(cu, r, msg, sizeof(msg)));
    goto fail;
  }
  return 0;
fail:
  dlclose(cu->lib);
  memset(cu, 0, sizeof(*cu));
  return TN_ENODEV;
}

void tn_cuda_unload(tn_cuda *cu)
{
  if (cu->lib)
    dlclose(cu->lib);
  memset(cu, 0, sizeof(*cu));
}

const char *tn_cuda_strerror(const tn_cuda *cu, CUresult r, char *buf,
                             size_t n)
{
  const char *name = NULL, *text = NULL;
  if (cu && cu->cuGetErrorName)
    cu->cuGetErrorName(r, &name);
  if (cu && cu->cuGetErrorString)
    cu->cuGetErrorString(r, &text);
  snprintf(buf, n, "%s (%d): %s", name ? name : "CUDA error", (int)r,
           text ? text : "no description");
  return buf;
}

int tn_cuda_error_is_sticky(CUresult r)
{
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
    return 1;
  default:
    return 0;
  }
}

int tn_cuda_failed(const tn_cuda *cu, tn_cuda_status *st, CUresult r,
                   const char *call)
{
  char msg[200];
  if (r == CUDA_SUCCESS)
    return 0;
  if (st->last == CUDA_SUCCESS) {
    st->last = r;
    snprintf(st->what, sizeof(st->what), "%s: %s", call,
             tn_cuda_strerror(cu, r, msg, sizeof(msg)));
  }
  return 1;
}

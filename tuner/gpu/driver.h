/* driver.h -- the CUDA driver API, loaded at run time with dlopen.
 *
 * The tuner links no CUDA library but NVRTC, so it starts on a machine
 * without an NVIDIA driver; there, tn_cuda_load says so and everything that
 * needs no GPU still works.  Calls go through the table: cu->cuMemAlloc(..)
 * (cuda.h's macros map the names to their current versions, e.g.
 * cuMemAlloc_v2, on both sides). */
#ifndef TN_DRIVER_H
#define TN_DRIVER_H

#include <cuda.h>

#include "base/util.h"

#define TN_CUDA_FUNCS(X)                                                     \
  X(cuInit)                                                                  \
  X(cuDriverGetVersion)                                                      \
  X(cuGetErrorString)                                                        \
  X(cuGetErrorName)                                                          \
  X(cuDeviceGetCount)                                                        \
  X(cuDeviceGet)                                                             \
  X(cuDeviceGetName)                                                         \
  X(cuDeviceGetAttribute)                                                    \
  X(cuDeviceTotalMem)                                                        \
  X(cuDeviceGetPCIBusId)                                                     \
  X(cuDevicePrimaryCtxRetain)                                                \
  X(cuDevicePrimaryCtxRelease)                                               \
  X(cuCtxSetCurrent)                                                         \
  X(cuCtxSynchronize)                                                        \
  X(cuModuleLoadData)                                                        \
  X(cuModuleUnload)                                                          \
  X(cuModuleGetFunction)                                                     \
  X(cuModuleGetGlobal)                                                       \
  X(cuFuncSetAttribute)                                                      \
  X(cuFuncGetAttribute)                                                      \
  X(cuLaunchKernel)                                                          \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                             \
  X(cuOccupancyMaxActiveClusters)                                            \
  X(cuMemAlloc)                                                              \
  X(cuMemFree)                                                               \
  X(cuMemAllocHost)                                                          \
  X(cuMemFreeHost)                                                           \
  X(cuMemcpyHtoD)                                                            \
  X(cuMemcpyDtoH)                                                            \
  X(cuMemcpyDtoD)                                                            \
  X(cuMemcpyDtoDAsync)                                                       \
  X(cuMemsetD8)                                                              \
  X(cuMemsetD16)                                                             \
  X(cuMemsetD32)                                                             \
  X(cuStreamCreate)                                                          \
  X(cuStreamDestroy)                                                         \
  X(cuStreamSynchronize)                                                     \
  X(cuEventCreate)                                                           \
  X(cuEventDestroy)                                                          \
  X(cuEventRecord)                                                           \
  X(cuEventSynchronize)                                                      \
  X(cuEventElapsedTime)                                                      \
  X(cuTensorMapEncodeTiled)

typedef struct {
  void *lib;
#define TN_CUDA_DECLARE(f) __typeof__(&f) f;
  TN_CUDA_FUNCS(TN_CUDA_DECLARE)
#undef TN_CUDA_DECLARE
} tn_cuda;

/* Loads libcuda.so.1 and calls cuInit.  Returns 0, or TN_ENODEV with a
 * message saying what is missing (no driver, no GPU). */
int tn_cuda_load(tn_cuda *cu, tn_err *err);
void tn_cuda_unload(tn_cuda *cu);

/* "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access..." into buf. */
const char *tn_cuda_strerror(const tn_cuda *cu, CUresult r, char *buf,
                             size_t n);

/* Errors after which the context cannot be used again. */
int tn_cuda_error_is_sticky(CUresult r);

/* The first failing call of a sequence (one job), which is the one a
 * job's failure reports: later ones are mostly its consequences. */
typedef struct {
  CUresult last;  /* CUDA_SUCCESS until a call fails */
  char what[256]; /* "call: CUDA_ERROR_...: description" */
} tn_cuda_status;

/* Records r from call in st unless st already holds an error.  Returns 1
 * if r is an error, else 0. */
int tn_cuda_failed(const tn_cuda *cu, tn_cuda_status *st, CUresult r,
                   const char *call);

#endif

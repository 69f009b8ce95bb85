/* probe_check.h -- the GPU probes' (copy_probe.cu, ce_probe.cu) check of
 * a CUDA runtime call: its error named with the line, and exit 1. */
#ifndef PROBE_CHECK_H
#define PROBE_CHECK_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                       \
              cudaGetErrorString(e_));                                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#endif

/* verify.h -- the check of a launch's output inside the worker.
 *
 * A family checks its output in its verify() (on the host, with every
 * output read back) or verify_device() (on the GPU, reading back only
 * what it reports), given a tn_verify_env (family/family.h) that this
 * module fills: the buffers as uploaded and their seeds, the family's
 * reference kernels (compiled from its reference_source for this device
 * once, and launched by name), scratch device memory freed after the
 * check, an fp64 GEMM by cuBLAS, reads back to the host. */
#ifndef TN_VERIFY_H
#define TN_VERIFY_H

#include <stddef.h>

#include "family/family.h"
#include "gpu/compare.h"
#include "gpu/driver.h"
#include "gpu/inputs.h"

#define TN_VERIFY_MAX_SCRATCH 16

/* What the check runs with: the driver, the stream, where a failing call
 * is recorded (the bench's), the device's compute capability, and what
 * it keeps between checks (the reference kernels of the last family). */
typedef struct {
  const tn_cuda *cu;
  tn_cuda_status *st;
  CUstream stream;
  int cc_major, cc_minor;
  const tn_family *ref_family; /* whose reference module is loaded */
  CUmodule ref_module;
  CUdeviceptr scratch[TN_VERIFY_MAX_SCRATCH]; /* during one check */
  int n_scratch;
  tn_compare cmp; /* its cu, st, stream and sm_count set like these */
} tn_verify;

/* Checks the output of the launch just made on set 0 of bufs (whose
 * inputs came from seed) with f's check; expected (NULL, or one per
 * buffer) holds a fixed-inputs family's reference outputs on the device.  Returns 0 when it is right, 1
 * when it is wrong (why in reason), -1 when the check could not run (why
 * in reason, or a failing CUDA call in st). */
int tn_verify_run(tn_verify *v, const tn_family *f, const tn_problem *prob,
                  const tn_buffers *bufs, const CUdeviceptr *expected,
                  unsigned long long seed, char *reason, size_t n);

/* Frees the reference kernels and the comparison's. */
void tn_verify_unload(tn_verify *v);

#endif

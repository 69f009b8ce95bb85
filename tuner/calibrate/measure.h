/* measure.h -- `tuner calibrate` on the GPU: the device opened in this
 * process, the microbenchmarks compiled with NVRTC, and the timing that
 * every measurement shares (CUDA events, warm-up, repetitions).
 *
 * Calibration is one short job with no candidate that could crash, so
 * unlike a tuning run it needs no supervised worker process: a failing
 * call ends it with the call's name. */
#ifndef TN_CALIB_MEASURE_H
#define TN_CALIB_MEASURE_H

#include <cuda.h>

#include "calibrate/profile.h"
#include "gpu/driver.h"
#include "base/util.h"

typedef struct {
  tn_cuda cu;
  CUdevice dev;
  CUcontext ctx;
  CUstream stream;
  CUevent ev[2];
  CUmodule module;
  tn_cuda_status st; /* the first failing call */
  int repetitions, warmup;
  double clock_mhz;  /* measured SM clock (0 until measured) */
} tn_calib_gpu;

/* Opens GPU ordinal, fills p's device fields and compiles the kernels
 * for its architecture; g's repetitions and warmup, set by the caller,
 * are kept.  Returns 0, TN_ENODEV (no driver, no such GPU)
 * or TN_ETOOL, with err. */
int tn_calib_open(tn_calib_gpu *g, int ordinal, tn_calib_profile *p,
                  tn_err *err);
void tn_calib_close(tn_calib_gpu *g);

/* Compiles source (NVRTC program name) for the device's architecture,
 * or the newest known one before it, and loads it into *mod.  Returns
 * 0, or TN_ETOOL with err ("what: does not compile for sm_XX: log", or
 * the failing call). */
int tn_calib_load_module(tn_calib_gpu *g, const tn_calib_profile *p,
                         const char *source, const char *name,
                         const char *what, CUmodule *mod, tn_err *err);

/* The kernel of the module named name, or NULL (st says why). */
CUfunction tn_calib_fn(tn_calib_gpu *g, const char *name);

/* Launches fn `batch` times back to back between two events, after
 * g->warmup untimed launches on the first call of a measurement (warm),
 * and writes the milliseconds of the batch to *ms.  Returns 0 or -1
 * (st set). */
int tn_calib_time(tn_calib_gpu *g, CUfunction fn, unsigned grid,
                  unsigned block, void **args, int batch, int warm,
                  double *ms);

/* Times one launch of fn g->repetitions times (after g->warmup untimed
 * ones) into m: each sample is work / ms * scale (rate) or ms * scale.
 * Returns 0 or -1 (st set). */
int tn_calib_sample_launch(tn_calib_gpu *g, CUfunction fn, unsigned grid,
                           unsigned block, void **args, double work,
                           double scale, int rate, tn_calib_metric *m);

/* Blocks of TN_CALIB_BLOCK threads of fn that one SM holds at once, by
 * threads, registers (allocated 256 a warp) and static shared memory, at
 * most `most`: a grid of that many a SM runs as one full wave, with no
 * tail.  Returns 0 or -1 (st set). */
int tn_calib_resident_blocks(tn_calib_gpu *g, const tn_calib_profile *p,
                             CUfunction fn, int most, int *out);

/* Measures, into p: the SM clock, launch overhead, global copy and
 * device-to-device memcpy, fp32 FMA, integer and tensor-core
 * throughput.  Returns 0 or TN_ETOOL with err (the failing call). */
int tn_calib_measure_throughput(tn_calib_gpu *g, tn_calib_profile *p,
                                tn_err *err);

/* The error of the first failing call, as TN_ETOOL. */
int tn_calib_fail(tn_calib_gpu *g, tn_err *err);

#endif

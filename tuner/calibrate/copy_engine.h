/* copy_engine.h -- `tuner calibrate`: the copy engine's (TMA's) time per
 * box, by the box's shape, for loads into shared memory and stores from
 * it (sm_90 and later).
 *
 * A TMA kernel's layout parameter decides its boxes: a 32-byte swizzle
 * allows boxes 32 bytes wide, a 128-byte one 128, so the same tile moves
 * in four times as many boxes, each row a separate request.  What that
 * costs is the engine's, not DRAM's nor shared memory's: this measures
 * it with the data in L2, for boxes of rows 32, 64, 128 and 256 bytes
 * (under the 32, 64, 128-byte swizzle, none for 256) of 8 and of 64 rows,
 * as ns a box an SM; the time model prices a family's boxes at what
 * they cost beyond their bytes (model/profile.h:
 * tn_profile_tma_excess_ns). */
#ifndef TN_CALIB_COPY_ENGINE_H
#define TN_CALIB_COPY_ENGINE_H

#include "calibrate/measure.h"
#include "calibrate/profile.h"

/* The kernel's CUDA source (one NVRTC program, tn_cal_tma; empty before
 * sm_90). */
extern const char tn_calib_copy_engine_source[];

/* Measures p->tma[op][width][rows]; before sm_90 marks them skipped.
 * Returns 0 or TN_ETOOL with err (the failing call). */
int tn_calib_measure_copy_engine(tn_calib_gpu *g, tn_calib_profile *p,
                                 tn_err *err);

#endif

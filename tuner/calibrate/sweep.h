/* sweep.h -- the shared-memory stride sweep of `tuner calibrate`: for
 * each access width (4, 8, 16 bytes) and stride s = 1..64, lane l of
 * every warp loads element l * s; timed for one warp (clock64) and for
 * many warps on every SM (CUDA events and clock64), beside the wavefronts
 * the model predicts for the same addresses. */
#ifndef TN_CALIB_SWEEP_H
#define TN_CALIB_SWEEP_H

#include "calibrate/measure.h"
#include "calibrate/profile.h"

/* Loads a thread makes in each launch of the sweep. */
#define TN_CALIB_SWEEP_LOADS 4096

/* Fills p's predicted columns from the model (no GPU).  Returns 0, or -1
 * if the model refuses an access (it never should). */
int tn_calib_sweep_predict(tn_calib_profile *p);

/* Measures the sweep into p (the predicted columns first filled).
 * Returns 0 or TN_ETOOL with err. */
int tn_calib_sweep(tn_calib_gpu *g, tn_calib_profile *p, tn_err *err);

#endif

/* predict.h -- what the wavefront model (model/model.h) predicts for the
 * stride sweep of `tuner calibrate`: one warp loads, lane l, the
 * width-byte element l * stride of a shared buffer.  The measured time
 * ratios are printed beside these, so the model is read from the model
 * itself, never from a formula written again here. */
#ifndef TN_CALIB_PREDICT_H
#define TN_CALIB_PREDICT_H

#include "base/arch.h"

typedef struct {
  int wavefronts; /* passes of the shared-memory pipeline */
  int degree;     /* most distinct words asked of one bank in a phase */
  double ratio;   /* wavefronts against those of stride 1 */
} tn_calib_predicted;

/* The model's cost of the sweep's load of width bytes (4, 8 or 16) at
 * stride (1 or more) on arch (NULL: 32 banks).  Returns 0, or -1 if the
 * model refuses the access (a width it does not know). */
int tn_calib_predict(int width, int stride, const tn_arch *arch,
                     tn_calib_predicted *out);

#endif

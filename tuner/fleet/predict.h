/* predict.h -- a predicted winner for an architecture without a GPU of it
 * (`tuner --config CFG --arch sm_XX --predict`).
 *
 * The space is built for the architecture (limits and model), the
 * survivors are compiled with NVRTC to learn their registers, and the
 * winner is picked by the time model (model/time.h) with the
 * architecture's device profile: a measured one where results/devices/
 * has it (or --profile), else one derived from the architecture table's
 * vendor figures scaled by a measured profile (model/profile.h), by
 * TN_PREDICT_RULE.  The results JSON has the schema of a measured run
 * with "predicted": true at the top and in "best", no timings, and
 * device.name null; the header says PREDICTED.  `tuner merge` lets any
 * measurement of the architecture override it. */
#ifndef TN_PREDICT_H
#define TN_PREDICT_H

#include "pipeline/tune.h"

#define TN_PREDICT_RULE                                                      \
  "predicted: no register spills first; then the least time the time "      \
  "model predicts over the problems (model/time.h, with the compiled "      \
  "registers and run.profile); then the fewest modelled shared-memory "     \
  "wavefronts; then the highest estimated occupancy; then the fewest "      \
  "threads launched; then less shared memory, fewer registers, the "        \
  "lowest id"

/* What the architecture table says of one compiled candidate. */
typedef struct {
  int blocks_per_sm;  /* resident blocks per SM */
  double occupancy;   /* resident threads / the SM's maximum, 0..1 */
  const char *limited_by; /* "threads", "blocks", "shared memory",
                             "registers", "barriers", "nothing fits" */
  long long launched; /* threads launched over the problems */
} tn_predict_est;

/* Resident blocks of c on one SM of arch and what limits them, by the
 * CUDA toolkit's occupancy calculator (cuda_occupancy.h, as the time
 * model's: model/time.h) with the compiled registers and shared memory. */
void tn_predict_estimate(const tn_job *job, const tn_arch *arch,
                         const tn_candidate *c, tn_predict_est *est);

/* The index of the predicted winner among run's compiled candidates by
 * TN_PREDICT_RULE, or -1 if none compiled. */
int tn_predict_pick(const tn_run *run);
/* The same for size k alone (its wavefronts and threads launched); k < 0:
 * over all sizes, as tn_predict_pick. */
int tn_predict_pick_size(const tn_run *run, int k);

/* Runs a prediction like tn_tune runs a measurement: fills run (space,
 * compile statistics, sel.best = the predicted winner), writes
 * <output>/<name>-<arch>-<UTC time>.json and <output>/<arch>/<name>.h
 * (unless opts->dry_run; a measured header already there is kept) and
 * prints the candidates.  Needs opts->arch; uses no GPU.  Returns 0, or
 * TN_EINPUT (no or an unknown --arch, a bad template or space, --resume)
 * or TN_ETOOL with err. */
int tn_predict(const tn_job *job, const tn_tune_opts *opts, tn_run *run,
               tn_err *err);

#endif

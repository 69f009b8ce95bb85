/* tune.h -- one tuning run, from a loaded job to results and a header:
 * space -> limits -> model pruning -> NVRTC (the set-up of run.h) ->
 * worker (verify, time) -> selection -> results JSON (and its journal) ->
 * per-architecture header. */
#ifndef TN_TUNE_H
#define TN_TUNE_H

#include "pipeline/run.h"

/* Runs the job.  Returns 0, or a negative code with err: TN_EINPUT before
 * any work, TN_ENODEV when a GPU is needed and missing, TN_EINTR when
 * interrupted (what was measured is written), TN_ETOOL. */
int tn_tune(const tn_job *job, const tn_tune_opts *opts, tn_run *run,
            tn_err *err);

/* Tunes on every GPU of the host at once, one worker per GPU, compiling
 * once per architecture.  *runs (malloc'd, *n of them, each to be freed
 * with tn_run_free, then the array with free) holds one run per GPU; with
 * more than one GPU their results are named ...-gpuN.json, and the first
 * GPU of each architecture writes its header.  Returns like tn_tune. */
int tn_tune_all_devices(const tn_job *job, const tn_tune_opts *opts,
                        tn_run **runs, int *n, tn_err *err);


#endif

/* benchmark.h -- a prepared run (run.h: its space compiled, or compiling
 * in the background) measured on a GPU worker: the family's baselines,
 * then every compiled candidate in the selection's order (likely winners
 * first, select.h), group by group, a group decided first by the measured
 * bound (measured.h), each candidate verified and timed at every size and
 * raced against that size's leader; the journal gets a line after every
 * result, the results file is rewritten every TN_RESULTS_EVERY_S. */
#ifndef TN_BENCHMARK_H
#define TN_BENCHMARK_H

#include "base/util.h"
#include "gpu/worker.h"
#include "pipeline/run.h"

/* Measures run on worker w (started).  Candidates and baselines a
 * --resume restored are not measured again.  Returns 0, TN_EINTR when
 * interrupted (what was measured is in the journal), or the worker's,
 * the compile's or the journal's error. */
int tn_benchmark_run(tn_run *run, tn_worker *w, tn_err *err);

#endif

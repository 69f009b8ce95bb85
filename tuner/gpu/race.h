/* race.h -- when a candidate's timed launches may stop early.
 *
 * Both rules look only at the samples taken so far, in chunks that double
 * (bench.min_repetitions, then 2x, 4x, ... capped by bench.repetitions),
 * so the worker and the scripted test worker stop at the same launch.
 *
 * Racing: the supervisor sends the time above which this candidate cannot
 * win (the leader's median times 1 + the selection's noise, less what the
 * candidate already took on earlier problems).  Once the fastest of k >=
 * min_repetitions launches is above it, every launch is, so the median is
 * too: the candidate is neither the fastest nor within the noise of it.
 *
 * Adaptive repetitions: a contender stops when the distribution-free 95%
 * confidence interval of its median (order statistics, ranks n/2 -+
 * 0.98 sqrt(n)) is narrower than bench.ci_target times the median. */
#ifndef TN_RACE_H
#define TN_RACE_H

#include "gpu/timing.h"

typedef enum {
  TN_RACE_GO_ON = 0,   /* take the next chunk */
  TN_RACE_OUT = 1,     /* provably slower than the leader */
  TN_RACE_TIGHT = 2,   /* the median's interval is tight enough */
  TN_RACE_DONE = 3     /* bench.repetitions taken */
} tn_race_verdict;

/* Launches to take after n have been taken: 0 when n is the cap. */
int tn_race_next_chunk(const tn_bench_settings *bs, int full, int n);

/* The verdict after n samples (ms, sorted in place).  race: stop_ms is
 * valid; ci: adaptive repetitions are on. */
tn_race_verdict tn_race_check(const tn_bench_settings *bs, int race,
                              double stop_ms, int ci, double *ms, int n);

/* Relative width of the 95% interval of the median of n sorted samples. */
double tn_race_ci_width(const double *sorted, int n);

#endif

/* results_drift.h -- the drift's part of the results (results.c's
 * document, docs/results.md): NVML's readings per measurement, every
 * timing of a baseline with its time, each candidate against the
 * baseline measured nearest in time (baselines.h), and the run's verdict
 * on its clocks (throttle.h). */
#ifndef TN_RESULTS_DRIFT_H
#define TN_RESULTS_DRIFT_H

#include <jansson.h>

#include "pipeline/run.h"
#include "pipeline/throttle.h"

/* A time of tn_wall_now as the results write it: "timed_at_ms", whole
 * milliseconds since 1970 (an integer: a real number would keep 6
 * digits). */
long long tn_results_ms_since_1970(double t);

/* One timing's object: median, quartiles, min, max, repetitions, and the
 * blocks of a grid fitted at launch where there was one. */
json_t *tn_results_timing(const tn_timing *t);

/* A measurement's "clocks": samples, sm_mhz_first/min/max, power_w_max,
 * power_w_mean, temp_c_max, reasons (names; absent when NVML could not
 * read them) and, with t, throttled.  NULL when nothing was read. */
json_t *tn_results_clocks(const tn_clocks *c, const tn_throttle *t);

/* The same read back (a journal line's, untrusted): every field of its
 * kind and range, reasons known by name.  0, or -1 with why (".key:
 * what"). */
int tn_results_clocks_parse(json_t *o, tn_clocks *c, char *why, size_t n);

/* Measurement j of baseline b: measurement (j), timed_at, after,
 * median_ms, timings, clocks. */
json_t *tn_results_measure(const tn_run *run, const tn_baseline_result *b,
                           int j, const tn_throttle *t);

/* Adds to a baseline's object its measurements[], median_measurement and
 * spread. */
void tn_results_measurements(const tn_run *run, const tn_baseline_result *b,
                             const tn_throttle *t, json_t *o);

/* Adds to o what compares candidate c with the baseline at size k (k < 0:
 * the sums): baseline_measurement (its index), baseline_ms,
 * pct_of_baseline, baseline_noise and vs_baseline; nothing when the
 * reference baseline was not measured. */
void tn_results_vs_baseline(const tn_run *run, const tn_candidate *c, int k,
                            json_t *o);

/* run.clocks: the verdict t on the whole run. */
json_t *tn_results_run_clocks(const tn_run *run, const tn_throttle *t);

#endif

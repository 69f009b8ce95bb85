/* timing.h -- how a kernel's launches are timed, and what is kept of them.
 *
 * The settings are the config's `bench` group (docs/config.md): how many
 * launches warm up, how many are timed at most, when racing or the
 * median's interval may stop them (race.h), how long a job may run.  What
 * is kept of the samples is their median, quartiles, min and max. */
#ifndef TN_TIMING_H
#define TN_TIMING_H

typedef struct {
  int repetitions;   /* timed launches per measurement */
  int warmup;        /* untimed launches before them */
  double timeout_s;  /* a job running longer is killed and marked failed */
  unsigned long long seed; /* of the random inputs; 0: from the clock */
  double min_noise;  /* smallest relative difference told apart */
  int min_repetitions; /* launches before racing or the interval may stop
                          a candidate (gpu/race.h) */
  double ci_target;  /* a median's 95% interval this narrow (relative)
                        stops its launches; 0: always all repetitions */
  /* the baselines are timed again after this many seconds of
   * benchmarking (0: not by time) or this many candidates (0: not by
   * count), and at the end (pipeline/baselines.h); the supervisor's, not
   * the worker's */
  double baseline_every_s;
  int baseline_every;
} tn_bench_settings;

typedef struct {
  double median_ms, min_ms, max_ms, q1_ms, q3_ms;
  int repetitions;
  int blocks; /* the grid the launch fitted to the GPU (tn_launch.fit_grid);
                 0: the family's */
} tn_timing;

/* Median, quartiles, min and max of n samples (sorted in place). */
void tn_timing_from_samples(double *ms, int n, tn_timing *t);

#endif

/* throttle.h -- did the GPU hold its clocks through the run?  A sustained
 * bf16 GEMM drives an H200 to its 700 W cap and its SM clock from 1980 to
 * about 1450 MHz.  A measurement (a candidate's or a baseline's) is
 * throttled when NVML said, while it was timed, that the clocks were held
 * down for power or heat (gpu/clocks.h: TN_CLOCKS_THROTTLING), or its SM
 * clock fell more than TN_THROTTLE_DROP below the clock at the run's
 * start (the first reading of the earliest measurement); the run is
 * throttled when any measurement is.  The summary, the results
 * (run.clocks) and the report say so. */
#ifndef TN_THROTTLE_H
#define TN_THROTTLE_H

#include "pipeline/run.h"

#define TN_THROTTLE_DROP 0.10

typedef struct {
  int known;            /* some measurement has NVML's readings */
  unsigned start_mhz;   /* the SM clock at the run's start */
  unsigned min_mhz, max_mhz;
  unsigned power_max_mw, temp_max_c;
  unsigned long long reasons; /* every reason any measurement saw */
  int throttled;
  int candidates, candidates_throttled; /* timed with readings */
  int baselines, baselines_throttled;   /* measurements with readings */
} tn_throttle;

/* Judges every measurement of run (candidates timed, baselines). */
void tn_throttle_judge(const tn_run *run, tn_throttle *t);

/* 1 if one measurement's readings c are throttled, judged by t. */
int tn_throttle_one(const tn_throttle *t, const tn_clocks *c);

/* One line for the summary, no newline: "throttled: ..." or "steady:
 * ..." with the figures, or "clocks unknown: WHY". */
void tn_throttle_line(const tn_run *run, const tn_throttle *t, char *buf,
                      size_t n);

#endif

/* baselines.h -- a GPU drifts: its clock falls as it heats, and one
 * timing of a baseline at the start of a run is not the baseline of a
 * candidate timed a minute later.  So the benchmark (benchmark.h) times
 * the baselines at its start, again every bench.baseline_every_s seconds
 * of benchmarking or bench.baseline_every candidates, and at its end; each
 * measurement is kept with its time (tn_baseline_result.meas), and a
 * candidate is compared with the reference baseline (the family's first)
 * as measured nearest in time to it.
 *
 * The noise of such a comparison takes in the baseline's spread: the
 * largest of min_noise, the candidate's and that measurement's relative
 * interquartile ranges, and how far the baseline moved between its
 * measurements just before and just after the candidate. */
#ifndef TN_BASELINES_H
#define TN_BASELINES_H

#include "pipeline/run.h"

/* Appends measurement m to b (in the order taken) and makes b's figure
 * (timing, total_ms) its median measurement's.  0, or TN_ETOOL when out
 * of memory. */
int tn_baselines_add(tn_baseline_result *b, const tn_baseline_measure *m);

/* The reference baseline (run->baselines[0]) if it was measured, else
 * NULL. */
const tn_baseline_result *tn_baselines_ref(const tn_run *run);

/* The index in b->meas of the measurement nearest in time to t, or, when
 * t is 0 (not known), the median one; -1 when b has none. */
int tn_baselines_nearest(const tn_baseline_result *b, double t);

/* The reference baseline's measurement c is compared with: nearest in
 * time to it (its index in *index unless NULL), or NULL when the
 * reference was not measured. */
const tn_baseline_measure *tn_baselines_for(const tn_run *run,
                                            const tn_candidate *c,
                                            int *index);

/* That measurement's median at size k (k < 0: the sum over the sizes);
 * 0 when there is none. */
double tn_baselines_ms(const tn_run *run, const tn_candidate *c, int k);

/* The relative noise of comparing c with its baseline measurement at size
 * k (k < 0: the largest over the sizes), as said above; min_noise when
 * there is no measurement. */
double tn_baselines_noise(const tn_run *run, const tn_candidate *c, int k,
                          double min_noise);

/* How far b's measurements spread: the largest over its measurements'
 * totals over the least, less 1 (0 with fewer than two). */
double tn_baselines_spread(const tn_baseline_result *b);

/* "faster", "slower" or "within noise": c against its baseline
 * measurement at size k (k < 0: the totals), by tn_baselines_noise. */
const char *tn_baselines_verdict(const tn_run *run, const tn_candidate *c,
                                 int k, double min_noise);

#endif

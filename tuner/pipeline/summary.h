/* summary.h -- what a run prints when it ends, for a person: the table of
 * candidates on stdout, and on stderr the lines of its cost and, with
 * several sizes, of each size.  The same figures are in the results
 * (results.h). */
#ifndef TN_SUMMARY_H
#define TN_SUMMARY_H

#include <stdio.h>

#include "pipeline/run.h"

/* One line per candidate: parameters, status, the model's wavefronts per
 * block and conflict degree, registers, median, rate and % of the
 * reference baseline, the winner marked; a line with the reason under
 * each one pruned, wrong, failed or not compiled; then the baselines.
 * A space of more than TN_SUMMARY_ROWS candidates (unless -v or
 * --all-candidates) gets the count of each state and the lines of its
 * TN_SUMMARY_TOP most promising: the timed ones by their median, then
 * the others by the time model's prediction; and the winner's. */
#define TN_SUMMARY_ROWS 500
#define TN_SUMMARY_TOP 20
void tn_summary_table(const tn_run *run, FILE *out);

/* "tuner: wall X s = start-up A + compile warm-up B + compiling C +
 * verification D + timed launches E + other F; N launches, R candidates
 * raced out" (tn_results_cost_split). */
void tn_summary_cost_line(const tn_run *run, FILE *out);

/* When the budget (job.h) stopped the benchmark: "tuner: the budget (500
 * candidates) stopped the benchmark: N candidates timed, the most
 * promising first; M left untimed: continue with --resume FILE". */
void tn_summary_budget_line(const tn_run *run, FILE *out);

/* With several sizes, a line per size: its winner, the single best's time
 * there, the baseline's, and what the size cost (launches, raced out,
 * seconds timed). */
void tn_summary_size_lines(const tn_run *run, FILE *out);
/* With several sizes, "tuner: N sizes [dims]: AxB ..." (every run). */
void tn_summary_sizes_line(const tn_run *run, FILE *out);

/* A measured run: how often the reference baseline was timed and how far
 * it moved; the best against the timing nearest to it, with the noise of
 * that comparison; and what the clocks did ("clocks steady", "THROTTLED:
 * ...", "clocks unknown: why": throttle.h). */
void tn_summary_drift_lines(const tn_run *run, FILE *out);

#endif

/* results.h -- the results of a run as JSON (jansson), written atomically,
 * and a journal of JSON lines appended and flushed as each result is
 * known, from which --resume continues.  The schema is in docs/results.md. */
#ifndef TN_RESULTS_H
#define TN_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "pipeline/run.h"

#define TN_RESULTS_SCHEMA "tuner-results/1"

/* During a run the results file is rewritten at most this often (seconds)
 * and at the end; the journal is appended after every candidate. */
#define TN_RESULTS_EVERY_S 2.0

/* The whole document for run. */
json_t *tn_results_json(const tn_run *run);
/* One candidate / baseline as they appear in "candidates" / "baselines". */
json_t *tn_results_candidate(const tn_run *run, const tn_candidate *c);
json_t *tn_results_baseline(const tn_run *run, const tn_baseline_result *b);

/* "best_by_size"[k]: the winner of size k (run->sel_size[k]) with its
 * median there, its noise and ties, the baseline's median and the single
 * best's there; predicted: only the choice, marked so.  null when size k
 * has no winner. */
json_t *tn_results_size_best(const tn_run *run, int k, int predicted);

/* Serialises doc (stolen; NULL means building it failed) and writes it to
 * path atomically.  Returns 0 or TN_ETOOL. */
int tn_results_write_doc(json_t *doc, const char *path, tn_err *err);

/* Writes the document to run->results_path atomically. 0 or TN_ETOOL. */
int tn_results_write(const tn_run *run, tn_err *err);

/* Appends one line {"kind": kind, ...obj} to the journal and flushes it to
 * disk.  Steals obj.  Returns 0 or TN_ETOOL. */
int tn_journal_append(FILE *journal, const char *kind, json_t *obj,
                      tn_err *err);

/* Reads the journal of an earlier run of the same job and restores every
 * candidate and baseline it finished (same parameters, same problems).
 * A truncated last line (the run was killed while writing) is ignored.
 * Returns the number restored, or TN_EINPUT naming the file and line. */
int tn_journal_resume(const char *path, tn_run *run, tn_err *err);

/* Writes "tuner: wall X s = start-up A + compiling B + verification C +
 * timed launches D + other E; N launches, R raced out" to out: run.cost of
 * the results (docs/results.md). */
void tn_results_cost_line(const tn_run *run, FILE *out);

/* With several sizes, a line per size: its winner, the single best's time
 * there, the baseline's, and what the size cost (launches, raced out,
 * seconds timed). */
void tn_results_size_lines(const tn_run *run, FILE *out);
/* With several sizes, "tuner: N sizes [dims]: AxB ..." (every run). */
void tn_results_sizes_line(const tn_run *run, FILE *out);

#endif

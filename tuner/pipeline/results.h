/* results.h -- the results of a run as JSON (jansson), written atomically
 * (the journal, appended after every candidate, is journal.h).  The
 * schema is in docs/results.md. */
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
/* One candidate's journal line: as in "candidates", but neither its
 * clocks' verdict nor its comparison with the baseline, which depend on
 * timings taken after it. */
json_t *tn_results_candidate(const tn_run *run, const tn_candidate *c);
/* A baseline's journal line: name, status, reason, and measurement j's
 * figures (tn_results_measure; j < 0: none, a baseline that failed). */
json_t *tn_results_baseline_line(const tn_run *run,
                                 const tn_baseline_result *b, int j);

/* "best_by_size"[k]: the winner of size k (run->sel_size[k]) with its
 * median there, its noise and ties, the baseline's median and the single
 * best's there; predicted: only the choice, marked so.  null when size k
 * has no winner. */
json_t *tn_results_size_best(const tn_run *run, int k, int predicted);

/* doc (stolen; NULL means building it failed) as the text of a results
 * file, malloc'd into *text.  Returns 0 or TN_ETOOL. */
int tn_results_text(json_t *doc, char **text, tn_err *err);

/* Serialises doc (stolen; NULL means building it failed) and writes it to
 * path atomically.  Returns 0 or TN_ETOOL. */
int tn_results_write_doc(json_t *doc, const char *path, tn_err *err);

/* Writes the document to run->results_path atomically. 0 or TN_ETOOL. */
int tn_results_write(const tn_run *run, tn_err *err);

/* Where a run's wall time went, in seconds (run.cost of the results,
 * docs/results.md): start-up, the compile workers' warm-up waited for,
 * compiling (in a measured run only what the run waited for), verification,
 * timed launches (warm-up included) and the rest; they add up to
 * run->wall_s. */
typedef struct {
  double startup, warmup, compile, verify, timed, other;
} tn_results_cost;
tn_results_cost tn_results_cost_split(const tn_run *run);

#endif

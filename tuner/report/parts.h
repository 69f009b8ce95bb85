/* parts.h -- the report's sections, for command.c: one run (run.c) and a
 * fleet with its history (fleet.c).  Both take runs read and checked by
 * fleet/'s reader (tn_fleet_load_run).  Private to tuner/report/. */
#ifndef TN_REPORT_PARTS_H
#define TN_REPORT_PARTS_H

#include "fleet/fleet.h"
#include "report/html.h"

/* A run's section: counts by status, timed candidates as bars with the
 * baselines, the model against the clock, the winner and its ties, the
 * run's cost, each parameter's effect.  n: the section's number (ids). */
void tn_report_run(tn_html *h, const mg_run *r, int n);

/* Parts of a run's section (effect.c): the winner, its ties and the
 * run's cost; the best time reached with each value of each parameter. */
void tn_report_winner(tn_html *h, const mg_run *r, int n);
void tn_report_effect(tn_html *h, const mg_run *r, int n);

/* The GPU through the run (drift.c): whether its clocks held or
 * throttled, and the baseline timed through the run with its clocks. */
void tn_report_drift(tn_html *h, const mg_run *r, int n);

/* The fleet's sections for runs (the inputs, then the history's runs):
 * the matrix architecture x job by merge's rules (choose.c), and each job
 * and architecture's nights with regressions marked.  0 or TN_ETOOL. */
int tn_report_fleet(tn_html *h, mg_runs *runs, int n_inputs, tn_err *err);

#endif

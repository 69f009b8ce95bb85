/* run_files.h -- a run's results file and journal under names that no
 * other run has, and its header under its folder's lock.
 *
 * tn_run_set_paths names them after the job, the architecture and the
 * second the run started (<name>-<arch>-<UTC time>.json); two runs of one
 * config that start in the same second into one folder (an array job, two
 * users) would share them: one results file lost, two runs' lines in one
 * journal.  So the names are claimed, not assumed: the journal with
 * O_CREAT|O_EXCL, the results file by link(2) of its written temporary,
 * the first that neither exists of <stem>.json, <stem>-2.json, ... */
#ifndef TN_RUN_FILES_H
#define TN_RUN_FILES_H

#include <jansson.h>

#include "pipeline/run.h"

/* Claims run's names from run->results_path (and, with journal, an empty
 * journal beside it) and writes doc (stolen; NULL: building it failed)
 * as the results file, so that it exists before anything is measured;
 * run->results_path and journal_path become the names taken.  Returns 0,
 * or TN_ETOOL (nothing left behind). */
int tn_run_files_create(tn_run *run, json_t *doc, int journal, tn_err *err);

/* Writes the run's header (tn_run_header_write) holding its output folder's
 * lock (base/lock.h): never in the middle of a merge's header set there.
 * Returns 0, TN_EINTR or TN_ETOOL. */
int tn_run_files_header(const tn_run *run, tn_err *err);

/* Cuts the journal at path after its last whole line: a line that a kill
 * or a full disk cut short is dropped (it was never a measurement), so
 * that the lines a resumed run appends start on a line of their own.
 * Returns 0, or TN_ETOOL. */
int tn_run_files_trim_journal(const char *path, tn_err *err);

#endif

/* journal.h -- a run's journal: one JSON line per result, appended and
 * flushed to disk as each is known (a candidate, a baseline, as
 * results.h writes them, after a line for the run), so that a run killed
 * at any point keeps what it measured; --resume reads it back. */
#ifndef TN_JOURNAL_H
#define TN_JOURNAL_H

#include <jansson.h>
#include <stdio.h>

#include "base/util.h"
#include "pipeline/run.h"

/* Appends one line {"kind": kind, ...obj} to the journal and flushes it to
 * disk.  Steals obj.  Returns 0 or TN_ETOOL. */
int tn_journal_append(FILE *journal, const char *kind, json_t *obj,
                      tn_err *err);

/* Reads the journal of an earlier run of the same job and restores every
 * candidate and baseline it finished (same parameters, same problems).
 * A truncated last line (the run was killed while writing) is ignored.
 * Returns the number restored, or TN_EINPUT naming the file and line. */
int tn_journal_resume(const char *path, tn_run *run, tn_err *err);

#endif

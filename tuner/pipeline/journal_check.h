/* journal_check.h -- a run's journal (X.jsonl, docs/results.md) read as
 * untrusted input before --resume keeps anything of it, as `tuner merge`
 * reads a results file: every complete line whole, the last one cut short
 * by a kill left out.
 *
 *   "run"        the job's family and name; a later "run" line (a resumed
 *                run that had restored nothing) with the first one's seed
 *   "candidate"  an id of the job's space, its params and params_text
 *                those of that id, a valid point (not refused by the
 *                family's rules or a constraint), a measured status (ok,
 *                wrong_result, failed); when ok, one timing per problem of
 *                finite times, 0 < median <= 1e9 ms, min <= q1 <= median
 *                <= q3 <= max, repetitions in [1, 2^31 - 1]
 *   "baseline"   one of the family's baselines, a known status, the same
 *                timings when ok
 * and no id (or baseline) twice with other contents after a finished one
 * (a baseline that failed is measured again on resume; nothing else is).
 * Any other kind is refused. */
#ifndef TN_JOURNAL_CHECK_H
#define TN_JOURNAL_CHECK_H

#include "pipeline/space.h"

/* Checks the journal at path against job and its space (built for any
 * architecture, or none: ids and parameters do not depend on it).
 * Returns 0, or TN_EINPUT naming "path:line: what" (TN_ETOOL when out of
 * memory). */
int tn_journal_check(const char *path, const tn_job *job,
                     const tn_space *space, tn_err *err);

#endif

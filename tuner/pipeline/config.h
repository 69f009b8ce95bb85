/* config.h -- a libconfig file into a job description.
 *
 * Every problem in the file is reported as "FILE:LINE: what was expected"
 * and returns TN_EINPUT before any work is done.  The format is documented
 * in docs/config.md and the files in configs/. */
#ifndef TN_CONFIG_H
#define TN_CONFIG_H

#include "base/util.h"
#include "pipeline/job.h"

/* Frees what a loaded job holds (its described kernel, its text); the job
 * itself is the caller's.  A job that failed to load is freed too. */
void tn_config_free(tn_job *job);

/* Loads only the description of a kernel a config describes, from the
 * config's text as a results file keeps it (named name in messages): its
 * .cu files are not read, nor need they exist.  For reading results from
 * other hosts.  Returns 0 or TN_EINPUT. */
int tn_config_load_description(const char *text, const char *name,
                               tn_job *job, tn_err *err);

/* Parses a budget: "500" (candidates, 1 .. 1000000) or "120s", "20m",
 * "2h" (seconds, minutes, hours of the run; more than 0, at most a week).
 * Returns 0, or -1 with what a budget looks like in why. */
int tn_config_parse_budget(const char *text, tn_budget *out, char *why,
                           size_t n);

/* Loads path into job.  Returns 0, TN_EINPUT with "path:line: ..." in err,
 * or TN_ETOOL. */
int tn_config_load(const char *path, tn_job *job, tn_err *err);

/* The same from text in memory, reported as if it were the file name (a
 * template path in it is relative to name's folder). */
int tn_config_load_string(const char *text, const char *name, tn_job *job,
                          tn_err *err);

/* The same with family standing in for the registry: the config's
 * `family` must name it.  For the tests of what no shipped family has yet
 * (a choice option): they build their family, and the registry keeps to
 * the real ones. */
int tn_config_load_string_family(const char *text, const char *name,
                                 const tn_family *family, tn_job *job,
                                 tn_err *err);

#endif

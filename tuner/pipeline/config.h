/* config.h -- a libconfig file into a job description.
 *
 * Every problem in the file is reported as "FILE:LINE: what was expected"
 * and returns TN_EINPUT before any work is done.  The format is documented
 * in docs/config.md and the files in configs/. */
#ifndef TN_CONFIG_H
#define TN_CONFIG_H

#include "family/family.h"
#include "family/param.h"
#include "base/util.h"
#include "gpu/timing.h"

#define TN_PATH_LEN 4096

typedef struct {
  char path[TN_PATH_LEN];       /* the config file */
  char name[64];                /* names results and headers */
  const tn_family *family;
  char template_path[TN_PATH_LEN];
  int n_problems;
  tn_problem problems[TN_MAX_SIZES];
  tn_param_values values[TN_MAX_PARAMS]; /* by family parameter index */
  int space_line;                        /* of the space group */
  char space_file[TN_PATH_LEN];          /* ... in this file */
  int n_constraints;
  char constraints[TN_MAX_CONSTRAINTS][256];
  int constraint_lines[TN_MAX_CONSTRAINTS];
  /* the file each constraint is written in: the config or an @include */
  char constraint_files[TN_MAX_CONSTRAINTS][TN_PATH_LEN];
  tn_bench_settings bench;
  char output_dir[TN_PATH_LEN];
  int literals_tied; /* every number checked against its text (config.c) */
} tn_job;

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

/* Names a constraint may use besides the parameters. */
#define TN_CONSTRAINT_NAMES "threads, smem_bytes"

#endif

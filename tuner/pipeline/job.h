/* job.h -- a tuning job: what a config says, read and checked
 * (pipeline/config.h reads it). */
#ifndef TN_JOB_H
#define TN_JOB_H

#include "family/family.h"
#include "family/param.h"
#include "gpu/timing.h"

#define TN_PATH_LEN 4096

/* How much of a space a run may time (bench.budget, --budget): the
 * benchmark goes in its order, the most promising first, and stops before
 * the next candidate once this many were timed, or once the run is this
 * many seconds old.  0 and 0: no budget. */
typedef struct {
  int candidates;
  double seconds;
} tn_budget;

typedef struct tn_job {
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
  tn_budget budget;
  char output_dir[TN_PATH_LEN];
  int literals_tied; /* every number checked against its text (config.c) */
  /* a kernel the config describes (family is its family), else NULL;
   * freed by tn_config_free */
  struct tn_user_kernel *user;
  /* the config's text with its @includes spliced in (malloc'd): what a
   * worker and a results file rebuild a described family from */
  char *text;
} tn_job;

/* Names a constraint may use besides the parameters. */
#define TN_CONSTRAINT_NAMES "threads, smem_bytes"
/* ... and, for a kernel the config describes, the problem's dimensions. */

#endif

/* fuzz_journal.c -- libFuzzer target: any bytes as the journal that
 * `tuner --resume` continues.  The run it is checked against is fixed:
 * tests/fixtures/configs/cpu-fake.cfg for sm_90 (16 candidates), so a
 * journal of that run (the seeds) passes the identity check of
 * tn_precheck and the mutations of its lines reach the reader,
 * tn_journal_resume; every input
 * also goes to the reader directly.  Both must answer with a count or an
 * error message, never crash, leak or read out of bounds, and whatever the
 * reader restores must be a measurement of one of the run's candidates.
 * Paths are relative to the repository's root (the corpus replay runs
 * there). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/config.h"
#include "pipeline/precheck.h"
#include "pipeline/render.h"
#include "pipeline/journal.h"
#include "pipeline/run.h"
#include "pipeline/space.h"

#define CONFIG "tests/fixtures/configs/cpu-fake.cfg"

static tn_job job;
static tn_template tpl;
static tn_tune_opts opts;
static tn_run run;
static tn_space pristine;
static int pristine_made;
static char dir[64], json_path[128], journal_path[128];

static void clean_up(void)
{
  unlink(journal_path);
  unlink(json_path);
  rmdir(dir);
}

static void set_up(void)
{
  tn_err err = {{0}};
  FILE *f;
  tn_strlcpy(dir, "/tmp/fuzz_journal.XXXXXX", sizeof(dir));
  if (mkdtemp(dir) == NULL || tn_config_load(CONFIG, &job, &err) != 0 ||
      tn_template_load(job.template_path, &tpl, &err) != 0)
    abort();
  snprintf(json_path, sizeof(json_path), "%s/r.json", dir);
  snprintf(journal_path, sizeof(journal_path), "%s/r.jsonl", dir);
  f = fopen(json_path, "w"); /* --resume names an existing results file */
  if (f == NULL)
    abort();
  fclose(f);
  atexit(clean_up);
  memset(&opts, 0, sizeof(opts));
  opts.arch = "sm_90";
  opts.resume_path = json_path;
  opts.output_dir = dir;
  tn_run_init(&run, &job, &opts);
  run.arch = tn_arch_find("sm_90");
  if (tn_space_build(&job, run.arch, &run.space, &err) != 0)
    abort();
  if (tn_space_copy(&pristine, &run.space) != 0)
    abort();
  pristine_made = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  tn_err err = {{0}};
  FILE *f;
  int i, rc;

  if (!pristine_made)
    set_up();
  f = fopen(journal_path, "wb");
  if (f == NULL)
    abort();
  if (size > 0 && fwrite(data, 1, size, f) != size)
    abort();
  fclose(f);

  /* as --resume does it: the identity first, then the reader */
  rc = tn_precheck(&run, &tpl, &err);
  if (rc != 0 && err.msg[0] == '\0')
    abort(); /* a refusal must say why */
  for (i = 0; i < 2; i++) {
    tn_space_free(&run.space);
    if (tn_space_copy(&run.space, &pristine) != 0)
      abort();
    run.n_baselines = 1;
    memset(run.baselines, 0, sizeof(run.baselines));
    tn_strlcpy(run.baselines[0].name, "memcpy", sizeof(run.baselines[0].name));
    memset(&err, 0, sizeof(err));
    rc = tn_journal_resume(journal_path, &run, &err);
    if (rc < 0 && err.msg[0] == '\0')
      abort();
    if (rc > run.space.n + run.n_baselines)
      abort(); /* more restored than there is to restore */
  }
  return 0;
}

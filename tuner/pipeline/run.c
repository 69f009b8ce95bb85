/* run.c -- the set-up that a measured run and a prediction share. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void tn_run_init(tn_run *run, const tn_job *job, const tn_tune_opts *opts)
{
  int k;
  memset(run, 0, sizeof(*run));
  run->job = job;
  run->opts = opts;
  run->sel.best = run->sel.fastest = -1;
  run->sel.size = -1;
  for (k = 0; k < TN_MAX_SIZES; k++) {
    run->sel_size[k].best = run->sel_size[k].fastest = -1;
    run->sel_size[k].size = k;
  }
  run->t0 = tn_now();
  tn_utc_iso(run->started, sizeof(run->started));
  if (gethostname(run->host, sizeof(run->host)) != 0)
    tn_strlcpy(run->host, "unknown", sizeof(run->host));
  run->seed = job->bench.seed ? job->bench.seed
                              : (unsigned long long)time(NULL) * 2654435761ULL;
}

int tn_run_compilers(const tn_tune_opts *opts, const tn_arch *hint,
                     tn_compile_pool **out, tn_err *err)
{
  char exe[4096];
  tn_compile_pool *p;

  *out = NULL;
  if (tn_compile_pool_exe(exe, sizeof(exe)) != 0)
    return 0;
  p = malloc(sizeof(*p));
  if (p == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory");
  tn_compile_pool_init(p, exe,
                       opts->jobs > 0 ? opts->jobs : tn_compile_pool_cores());
  *out = p;
  /* a cache with entries may serve the whole run: wait for a miss */
  if (opts->use_cache && tn_compile_cache_has_entries(opts->cache_dir))
    return 0;
  return tn_compile_pool_warm(p, hint ? hint : tn_arch_find(TN_DEFAULT_ARCH),
                              err);
}

void tn_run_compilers_close(tn_compile_pool **p)
{
  if (*p == NULL)
    return;
  tn_compile_pool_close(*p);
  free(*p);
  *p = NULL;
}

/* snprintf into out that reports truncation: 0 or -1. */
static int fits(int written, size_t size)
{
  return written >= 0 && (size_t)written < size ? 0 : -1;
}

void tn_run_output_dir(const tn_run *run, char *out, size_t n)
{
  const tn_tune_opts *opts = run->opts;
  if (opts->output_dir)
    tn_strlcpy(out, opts->output_dir, n);
  else if (opts->resume_path)
    tn_dirname(out, n, opts->resume_path);
  else
    tn_strlcpy(out, run->job->output_dir, n);
}

int tn_run_resume_paths(const char *resume, char *results, size_t rn,
                        char *journal, size_t jn)
{
  size_t n = strlen(resume);
  int bad = 0;
  if (n > 6 && strcmp(resume + n - 6, ".jsonl") == 0) {
    bad |= fits(snprintf(results, rn, "%.*s.json", (int)(n - 6), resume),
                rn);
    bad |= tn_strlcpy(journal, resume, jn) != 0 ? -1 : 0;
    return bad;
  }
  if (n > 5 && strcmp(resume + n - 5, ".json") == 0)
    n -= 5;
  bad |= tn_strlcpy(results, resume, rn) != 0 ? -1 : 0;
  bad |= fits(snprintf(journal, jn, "%.*s.jsonl", (int)n, resume), jn);
  return bad;
}

int tn_run_set_paths(tn_run *run, tn_err *err)
{
  const tn_job *job = run->job;
  const tn_tune_opts *opts = run->opts;
  const char *dir = opts->output_dir ? opts->output_dir : job->output_dir;
  char stamp[32], resumed_dir[4096];
  time_t t = time(NULL);
  struct tm tm;
  int bad = 0;

  gmtime_r(&t, &tm);
  strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
  if (opts->resume_path && !opts->output_dir) {
    /* the header goes beside the results being resumed */
    tn_dirname(resumed_dir, sizeof(resumed_dir), opts->resume_path);
    dir = resumed_dir;
  }
  if (opts->resume_path) {
    bad |= tn_run_resume_paths(opts->resume_path, run->results_path,
                               sizeof(run->results_path), run->journal_path,
                               sizeof(run->journal_path));
  } else {
    bad |= fits(snprintf(run->results_path, sizeof(run->results_path),
                         "%s/%s-%s-%s.json", dir, job->name, run->arch->name,
                         stamp),
                sizeof(run->results_path));
    bad |= fits(snprintf(run->journal_path, sizeof(run->journal_path),
                         "%s/%s-%s-%s.jsonl", dir, job->name,
                         run->arch->name, stamp),
                sizeof(run->journal_path));
  }
  bad |= fits(snprintf(run->header_path, sizeof(run->header_path),
                       "%s/%s/%s.h", dir, run->arch->name, job->name),
              sizeof(run->header_path));
  if (bad)
    return tn_errf(err, TN_EINPUT, "%s: output path too long", dir);
  return 0;
}

int tn_run_predict(tn_run *run, tn_err *err)
{
  tn_profile given;
  int rc;
  if (run->opts->profile == NULL)
    rc = tn_profile_for(NULL, TN_PROFILE_DIR, run->arch, &run->space.profile,
                        err);
  else
    rc = tn_profile_read(run->opts->profile, &given, err);
  if (rc != 0)
    return rc;
  if (run->opts->profile != NULL &&
      !tn_arch_same_cc(tn_arch_find(given.arch), run->arch)) {
    fprintf(stderr, "tuner: --profile %s is of %s, the run is for %s: its "
                    "figures scaled to %s's\n",
            run->opts->profile, given.arch, run->arch->name,
            run->arch->name);
    tn_profile_derive(run->arch, &given, &run->space.profile);
  } else if (run->opts->profile != NULL) {
    run->space.profile = given;
  }
  tn_space_predict(run->job, &run->space.profile, &run->space);
  return 0;
}

int tn_run_prepare(tn_run *run, const tn_template *tpl, tn_err *err)
{
  const tn_job *job = run->job;
  const tn_tune_opts *opts = run->opts;
  tn_compile_opts copts;
  int rc, i, *order;

  rc = tn_space_build(job, run->arch, &run->space, err);
  if (rc == 0)
    rc = tn_run_predict(run, err);
  if (rc == 0 && run->ref.cubin == NULL)
    rc = tn_kernel_refs_build(job, run->arch, &run->ref, &run->base, err);
  if (rc != 0)
    return rc;
  /* a described kernel without a plan has no model to prune by */
  if (!opts->no_prune && job->family->plan != NULL)
    run->pruned_by_model = tn_space_prune(job, &run->space);
  rc = tn_run_set_paths(run, err);
  if (rc != 0)
    return rc;
  if (opts->resume_path) {
    /* the journal must exist before anything is compiled */
    FILE *probe = fopen(run->journal_path, "r");
    if (probe == NULL)
      return tn_errf(err, TN_EINPUT, "--resume %s: no journal %s beside it",
                     opts->resume_path, run->journal_path);
    fclose(probe);
  }
  memset(&copts, 0, sizeof(copts));
  if (opts->use_cache)
    tn_strlcpy(copts.cache_dir, opts->cache_dir, sizeof(copts.cache_dir));
  copts.cache_mac = opts->cache_keyed ? &opts->cache_key : NULL;
  copts.jobs = opts->jobs;
  copts.quiet = opts->quiet;
  copts.pool = run->pool;
  if (!run->compile_in_background) {
    rc = tn_compile_space(job, tpl, run->arch, &run->space, &copts,
                          &run->compile, err);
    if (rc)
      return rc;
    tn_space_check_registers(&run->space, run->arch);
    tn_space_predict(job, &run->space.profile, &run->space);
    return 0;
  }
  /* the compiles follow the benchmark's order (likely winners first), so
   * that the GPU rarely waits for the one it wants next */
  order = malloc(sizeof(int) * (size_t)(run->space.n + 1));
  if (order == NULL || tn_select_order(job->family, &run->space, order)) {
    free(order);
    return tn_errf(err, TN_ETOOL, "out of memory");
  }
  copts.order = order;
  run->compile_start_s = tn_now();
  rc = tn_compile_start(job, tpl, run->arch, &run->space, &copts, 1,
                        &run->compiling, err);
  for (i = 0; rc == 0 && i < run->space.n; i++) {
    rc = tn_run_wait(run, order[i], err);
    if (run->space.c[order[i]].status == TN_ST_COMPILED)
      break;
  }
  free(order); /* tn_compile_start keeps its own copy */
  if (rc)
    tn_run_finish_compile(run, 1);
  return rc;
}

int tn_run_wait(tn_run *run, int i, tn_err *err)
{
  tn_space one;
  double t0 = tn_now();
  int rc;
  if (run->compiling == NULL || i < 0 || i >= run->space.n)
    return 0;
  rc = tn_compile_wait(run->compiling, i, err);
  run->compile_wait_s += tn_now() - t0;
  one.n = 1;
  one.c = &run->space.c[i];
  one.arch = run->space.arch;
  tn_space_check_registers(&one, run->arch);
  /* the prediction with its compiled registers, before the measured
   * rules (measured.h) read it */
  if (run->space.have_profile)
    tn_space_predict(run->job, &run->space.profile, &one);
  return rc;
}

void tn_run_finish_compile(tn_run *run, int cancel)
{
  if (run->compiling == NULL)
    return;
  tn_compile_finish(run->compiling, cancel, &run->compile);
  run->compiling = NULL;
  /* the candidates no wait saw */
  tn_space_check_registers(&run->space, run->arch);
  /* with the compiled registers */
  tn_space_predict(run->job, &run->space.profile, &run->space);
}

void tn_run_free(tn_run *run)
{
  int k;
  tn_run_finish_compile(run, 1);
  tn_space_free(&run->space);
  tn_kernel_ref_free(&run->ref);
  tn_kernel_ref_free(&run->base);
  tn_selection_free(&run->sel);
  for (k = 0; k < TN_MAX_SIZES; k++)
    tn_selection_free(&run->sel_size[k]);
  for (k = 0; k < TN_MAX_BASELINES; k++) {
    free(run->baselines[k].meas);
    run->baselines[k].meas = NULL;
    run->baselines[k].n_meas = run->baselines[k].cap_meas = 0;
  }
}

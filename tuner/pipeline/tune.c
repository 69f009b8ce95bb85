/* tune.c -- one tuning run, from a loaded job to results and a header. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/tune.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/worker.h"
#include "pipeline/benchmark.h"
#include "pipeline/journal.h"
#include "pipeline/precheck.h"
#include "pipeline/render.h"
#include "pipeline/results.h"
#include "pipeline/run_header.h"
#include "pipeline/summary.h"
#include "pipeline/run_files.h"

/* The architecture to compile for: --arch, else the device's (sm_XXa
 * instead where the family needs it: tn_precheck_target). */
static int pick_arch(const tn_tune_opts *opts, tn_run *run, tn_err *err)
{
  char list[256];
  tn_arch_list(list, sizeof(list));
  if (opts->arch) {
    run->arch = tn_precheck_target(run->job, tn_arch_find(opts->arch));
    if (run->arch == NULL)
      return tn_errf(err, TN_EINPUT, "--arch %s: unknown (known: %s)",
                     opts->arch, list);
    if (run->have_device &&
        (run->arch->major != run->device.cc_major ||
         run->arch->minor != run->device.cc_minor))
      return tn_errf(err, TN_EINPUT,
                     "--arch %s does not match GPU %d, a %s (%s); leave "
                     "--arch out or use --dry-run",
                     opts->arch, run->device.ordinal, run->device.name,
                     run->device.arch);
    return 0;
  }
  if (run->have_device) {
    run->arch = tn_precheck_target(
        run->job,
        tn_arch_from_cc(run->device.cc_major, run->device.cc_minor));
    if (run->arch == NULL)
      return tn_errf(err, TN_EINPUT,
                     "GPU %d (%s) is %s, which this tuner does not know "
                     "(known: %s)",
                     run->device.ordinal, run->device.name, run->device.arch,
                     list);
    return 0;
  }
  return tn_errf(err, TN_EINPUT, "no architecture: give --arch or a GPU");
}

/* A described kernel's worker reads the run's config too. */
static void describe(tn_worker *w, const tn_job *job)
{
  w->family_path = job->user ? job->path : NULL;
  w->family_text = job->user ? job->text : NULL;
}

/* The architecture of a dry run without --arch: the GPU's if there is one
 * (asked through a worker), else the default; says which. */
static const tn_arch *dry_run_arch(const tn_tune_opts *opts)
{
  tn_err ignore = {{0}};
  tn_worker probe;
  const tn_arch *arch = NULL;
  int dev = opts->device < 0 ? 0 : opts->device;
  memset(&probe, 0, sizeof(probe));
  if (tn_worker_start(&probe, dev, &ignore) == 0) {
    arch = tn_arch_from_cc(probe.info.cc_major, probe.info.cc_minor);
    tn_worker_stop(&probe);
  }
  if (arch == NULL) {
    arch = tn_arch_find(TN_DEFAULT_ARCH);
    fprintf(stderr,
            "tuner: no GPU found (%s): dry run for %s, the default "
            "architecture\n",
            ignore.msg[0] ? ignore.msg : "unknown architecture",
            TN_DEFAULT_ARCH);
  } else {
    fprintf(stderr, "tuner: dry run for %s, the architecture of GPU %d\n",
            arch->name, dev);
  }
  return arch;
}

/* The shared set-up, and the family's baselines to measure. */
static int prepare(tn_run *run, const tn_template *tpl, tn_err *err)
{
  const tn_family *f = run->job->family;
  int i, rc = tn_run_prepare(run, tpl, err);
  if (rc != 0)
    return rc;
  run->n_baselines = f->n_baselines;
  for (i = 0; i < run->n_baselines && i < TN_MAX_BASELINES; i++)
    tn_strlcpy(run->baselines[i].name, f->baselines[i],
               sizeof(run->baselines[i].name));
  return 0;
}

/* Verification and timing on the worker, selection, results, header. */
static int measure(tn_run *run, tn_worker *worker, int write_header,
                   double t0, tn_err *err)
{
  const tn_job *job = run->job;
  char dir[4400];
  tn_err werr = {{0}};
  int rc, wrc, k;

  tn_dirname(dir, sizeof(dir), run->results_path);
  rc = tn_mkdirs(dir, err);
  if (rc != 0)
    return rc;
  if (!run->opts->resume_path) {
    /* names no other run has, and a results file before any measurement:
     * what --resume continues from exists whatever happens next */
    rc = tn_run_files_create(run, tn_results_json(run), 1, err);
    if (rc != 0)
      return rc;
  } else {
    rc = tn_run_files_trim_journal(run->journal_path, err);
    if (rc == 0)
      rc = tn_journal_resume(run->journal_path, run, err);
    if (rc < 0)
      return rc;
    run->resumed = rc;
    run->files_made = 1;
  }
  rc = tn_benchmark_run(run, worker, err);
  /* what the budget left untimed need not compile */
  tn_run_finish_compile(run, rc != 0 || run->budget_stopped);
  run->worker_starts = worker->starts;
  run->worker_start_s = worker->start_s;
  if (rc == TN_EINTR)
    run->interrupted = 1;
  else if (rc)
    return rc;
  tn_select(&run->space, job->bench.min_noise, &run->sel);
  for (k = 0; k < job->n_problems; k++)
    tn_select_size(&run->space, k, job->bench.min_noise, &run->sel_size[k]);
  run->wall_s = tn_now() - t0;
  tn_utc_iso(run->finished, sizeof(run->finished));
  /* results are written even when interrupted: they are what was measured */
  wrc = tn_results_write(run, &werr);
  if (wrc && rc == 0) {
    *err = werr;
    rc = wrc;
  }
  if (rc == 0 && write_header && run->sel.best >= 0)
    rc = tn_run_files_header(run, err);
  return rc;
}

int tn_tune(const tn_job *job, const tn_tune_opts *opts, tn_run *run,
            tn_err *err)
{
  tn_template tpl;
  tn_worker worker;
  double t0 = tn_now();
  int rc;

  tn_run_init(run, job, opts);
  memset(&worker, 0, sizeof(worker));
  memset(&tpl, 0, sizeof(tpl));
  describe(&worker, job);

  /* Everything that can be wrong with the input is found before any work
   * and before the worker starts: the template, the space, --arch, the
   * outputs, what --resume continues (precheck.h has the order). */
  rc = tn_template_load(job->template_path, &tpl, err);
  if (rc != 0)
    goto cleanup;
  rc = tn_space_build(job, NULL, &run->space, err);
  if (rc != 0)
    goto cleanup;
  tn_space_free(&run->space);
  rc = tn_precheck(run, &tpl, err);
  if (rc != 0)
    goto cleanup;
  /* the compile workers warm up while the GPU worker starts and the space
   * is built (run.h: when they wait for a miss instead) */
  rc = tn_run_compilers(opts, opts->arch ? tn_arch_find(opts->arch) : NULL,
                        &run->pool, err);
  if (rc != 0)
    goto cleanup;
  if (!opts->dry_run) {
    rc = tn_worker_start(&worker, opts->device, err);
    if (rc)
      goto cleanup;
    run->have_device = 1;
    run->device = worker.info;
  }
  if (opts->dry_run && opts->arch == NULL)
    run->arch = tn_precheck_target(job, dry_run_arch(opts));
  else {
    rc = pick_arch(opts, run, err);
    if (rc != 0)
      goto cleanup;
  }
  /* what only the device tells, before anything is compiled or measured */
  rc = tn_precheck_device(run, err);
  if (rc != 0)
    goto cleanup;
  /* a measured run benchmarks the first candidates while the rest compile;
   * a resumed one too (what it restores keeps its measurement), so that
   * the rest of a space a budget stopped compile only as far as the
   * benchmark goes */
  run->compile_in_background = !opts->dry_run;
  rc = prepare(run, &tpl, err);
  if (rc != 0)
    goto cleanup;
  if (!opts->dry_run) {
    rc = measure(run, &worker, 1, t0, err);
  } else {
    run->wall_s = tn_now() - t0;
    tn_utc_iso(run->finished, sizeof(run->finished));
  }
  if (rc == 0 || rc == TN_EINTR)
    tn_summary_table(run, stdout);
cleanup:
  tn_run_finish_compile(run, 1); /* before its workers go */
  tn_run_compilers_close(&run->pool);
  tn_worker_stop(&worker);
  tn_template_free(&tpl);
  return rc;
}

/* ---- every GPU of the host ---- */

typedef struct {
  tn_run *run;
  tn_worker *worker;
  int write_header;
  double t0;
  int rc;
  tn_err err;
} device_task;

static void *measure_thread(void *arg)
{
  device_task *t = arg;
  t->rc = measure(t->run, t->worker, t->write_header, t->t0, &t->err);
  return NULL;
}

/* Copies a prepared run for another device of the same architecture: the
 * same candidates, compiled once. */
static int clone_prepared(tn_run *dst, const tn_run *src, tn_err *err)
{
  tn_space space;
  int i;
  if (tn_space_copy(&space, &src->space) != 0)
    return tn_errf(err, TN_ETOOL, "out of memory");
  dst->space = space;
  dst->pruned_by_model = src->pruned_by_model;
  dst->n_baselines = src->n_baselines;
  memcpy(dst->baselines, src->baselines, sizeof(dst->baselines));
  for (i = 0; i < TN_MAX_BASELINES; i++) {
    /* each device times its own (none is timed yet: the names only) */
    dst->baselines[i].meas = NULL;
    dst->baselines[i].n_meas = dst->baselines[i].cap_meas = 0;
  }
  dst->compile = src->compile;
  return 0;
}

/* Inserts tag before path's extension: x.json -> x-gpu1.json. */
static void tag_path(char *path, size_t size, const char *tag)
{
  char *dot = strrchr(path, '.'), rest[16];
  size_t n;
  if (dot == NULL)
    return;
  tn_strlcpy(rest, dot, sizeof(rest));
  n = (size_t)(dot - path);
  snprintf(path + n, size - n, "%s%s", tag, rest);
}

/* Result and journal names of one device among several: -gpuN. */
static void per_device_paths(tn_run *run)
{
  char tag[32];
  snprintf(tag, sizeof(tag), "-gpu%d", run->device.ordinal);
  tag_path(run->results_path, sizeof(run->results_path), tag);
  tag_path(run->journal_path, sizeof(run->journal_path), tag);
}

int tn_tune_all_devices(const tn_job *job, const tn_tune_opts *opts,
                        tn_run **runs_out, int *n_out, tn_err *err)
{
  tn_template tpl;
  tn_worker first, *workers = NULL;
  tn_compile_pool *pool = NULL;
  tn_run *runs = NULL;
  device_task *tasks = NULL;
  pthread_t *threads = NULL;
  double t0 = tn_now();
  int n = 0, d, rc, started = 0;

  *runs_out = NULL;
  *n_out = 0;
  memset(&tpl, 0, sizeof(tpl));
  memset(&first, 0, sizeof(first));
  rc = tn_template_load(job->template_path, &tpl, err);
  if (rc != 0)
    return rc;
  runs = calloc(1, sizeof(tn_run));
  if (runs == NULL) {
    rc = tn_errf(err, TN_ETOOL, "out of memory");
    goto cleanup;
  }
  rc = tn_space_build(job, NULL, &runs[0].space, err);
  if (rc != 0)
    goto cleanup;
  tn_space_free(&runs[0].space);
  tn_run_init(&runs[0], job, opts);
  rc = tn_precheck(&runs[0], &tpl, err);
  if (rc != 0)
    goto cleanup;
  rc = tn_run_compilers(opts, NULL, &pool, err); /* shared by the GPUs */
  if (rc != 0)
    goto cleanup;
  describe(&first, job);
  rc = tn_worker_start(&first, 0, err);
  if (rc != 0)
    goto cleanup;
  n = first.info.device_count;
  free(runs);
  runs = calloc((size_t)n, sizeof(tn_run));
  workers = calloc((size_t)n, sizeof(tn_worker));
  tasks = calloc((size_t)n, sizeof(device_task));
  threads = calloc((size_t)n, sizeof(pthread_t));
  if (!runs || !workers || !tasks || !threads) {
    rc = tn_errf(err, TN_ETOOL, "out of memory");
    goto cleanup;
  }
  workers[0] = first;
  memset(&first, 0, sizeof(first));
  for (d = 1; d < n; d++) {
    describe(&workers[d], job);
    rc = tn_worker_start(&workers[d], d, err);
    if (rc != 0)
      goto cleanup;
  }
  /* compile once per architecture; devices of an architecture share it */
  for (d = 0; d < n; d++) {
    int e;
    tn_run_init(&runs[d], job, opts);
    runs[d].pool = pool;
    runs[d].seed = runs[0].seed; /* the same inputs on every GPU */
    runs[d].have_device = 1;
    runs[d].device = workers[d].info;
    runs[d].arch = tn_precheck_target(
        job, tn_arch_from_cc(runs[d].device.cc_major,
                             runs[d].device.cc_minor));
    if (runs[d].arch == NULL) {
      rc = tn_errf(err, TN_EINPUT, "GPU %d (%s) is %s, unknown to the tuner",
                   d, runs[d].device.name, runs[d].device.arch);
      goto cleanup;
    }
    tn_precheck_template_hash(&tpl, runs[d].template_hash);
    rc = tn_precheck_device(&runs[d], err);
    if (rc != 0)
      goto cleanup;
    for (e = 0; e < d && runs[e].arch != runs[d].arch; e++)
      ;
    if (e < d) {
      rc = tn_run_set_paths(&runs[d], err);
      if (rc == 0)
        rc = clone_prepared(&runs[d], &runs[e], err);
      tasks[d].write_header = 0; /* the first GPU of the arch writes it */
    } else {
      rc = prepare(&runs[d], &tpl, err);
      tasks[d].write_header = 1;
    }
    if (rc)
      goto cleanup;
    if (n > 1)
      per_device_paths(&runs[d]);
  }
  for (d = 0; d < n; d++) {
    tasks[d].run = &runs[d];
    tasks[d].worker = &workers[d];
    tasks[d].t0 = t0;
    if (pthread_create(&threads[d], NULL, measure_thread, &tasks[d]) != 0) {
      rc = tn_errf(err, TN_ETOOL, "pthread_create failed");
      break;
    }
    started++;
  }
  for (d = 0; d < started; d++)
    pthread_join(threads[d], NULL);
  for (d = 0; d < started; d++) {
    printf("== GPU %d: %s (%s)\n", d, runs[d].device.name,
           runs[d].device.arch);
    tn_summary_table(&runs[d], stdout);
    if (tasks[d].rc && (rc == 0 || tasks[d].rc == TN_EINTR)) {
      rc = tasks[d].rc;
      *err = tasks[d].err;
    }
  }
cleanup:
  for (d = 0; runs && d < (n > 0 ? n : 1); d++) {
    tn_run_finish_compile(&runs[d], 1); /* before its workers go */
    runs[d].pool = NULL;
  }
  tn_run_compilers_close(&pool);
  tn_worker_stop(&first);
  for (d = 0; workers && d < n; d++)
    tn_worker_stop(&workers[d]);
  tn_template_free(&tpl);
  free(workers);
  free(tasks);
  free(threads);
  *runs_out = runs;
  *n_out = runs ? (n > 0 ? n : 1) : 0;
  return rc;
}

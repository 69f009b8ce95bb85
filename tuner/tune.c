/* tune.c -- one tuning run, from a loaded job to results and a header. */
#define _POSIX_C_SOURCE 200809L
#include "tune.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emit.h"
#include "progress.h"
#include "render.h"
#include "results.h"
#include "worker.h"

double tn_rate(const tn_family *f, const tn_problem *probs, int n,
               double total_ms)
{
  double work = 0;
  int k;
  for (k = 0; k < n; k++)
    work += f->work(&probs[k]);
  if (!(total_ms > 0))
    return 0.0;
  return f->unit == TN_UNIT_GBPS ? work / (total_ms * 1e-3) / 1e9
                                 : work / (total_ms * 1e-3) / 1e12;
}

/* The architecture to compile for: --arch, else the device's. */
static int pick_arch(const tn_tune_opts *opts, tn_run *run, tn_err *err)
{
  char list[256];
  tn_arch_list(list, sizeof(list));
  if (opts->arch) {
    run->arch = tn_arch_find(opts->arch);
    if (run->arch == NULL)
      return tn_errf(err, TN_EINPUT, "--arch %s: unknown (known: %s)",
                     opts->arch, list);
    if (run->have_device && strcmp(run->arch->name, run->device.arch) != 0)
      return tn_errf(err, TN_EINPUT,
                     "--arch %s does not match GPU %d, a %s (%s); leave "
                     "--arch out or use --dry-run",
                     opts->arch, run->device.ordinal, run->device.name,
                     run->device.arch);
    return 0;
  }
  if (run->have_device) {
    run->arch =
        tn_arch_from_cc(run->device.cc_major, run->device.cc_minor);
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

/* Marks compiled candidates whose registers cannot fill a block. */
static void check_registers(tn_run *run)
{
  int i;
  for (i = 0; i < run->space.n; i++) {
    tn_candidate *c = &run->space.c[i];
    long long need = (long long)c->regs * c->launch.threads;
    if (c->status != TN_ST_COMPILED || need <= run->arch->regs_per_sm)
      continue;
    c->status = TN_ST_FAILED;
    snprintf(c->reason, sizeof(c->reason),
             "too many resources: %d registers x %d threads exceed %s's %d "
             "per SM",
             c->regs, c->launch.threads, run->arch->name,
             run->arch->regs_per_sm);
  }
}

static void print_table(const tn_run *run, FILE *out)
{
  const tn_family *f = run->job->family;
  const char *unit = f->unit == TN_UNIT_GBPS ? "GB/s" : "TFLOP/s";
  int i;

  fprintf(out, "%4s  %-52s %-13s %9s %3s %4s %9s %9s %6s\n", "id",
          "parameters", "status", "wf/block", "deg", "regs", "median_ms",
          unit, "%base");
  for (i = 0; i < run->space.n; i++) {
    const tn_candidate *c = &run->space.c[i];
    char ptxt[512], model[16] = "-", deg[8] = "-", regs[8] = "-",
                    ms[16] = "-", rate[16] = "-", pct[16] = "-";
    int modelled = !(c->status == TN_ST_PRUNED && c->pruned_by != TN_BY_MODEL);
    tn_params_format(f->params, f->n_params, &c->params, ptxt, sizeof(ptxt));
    if (modelled) {
      snprintf(model, sizeof(model), "%.1f",
               tn_model_wavefronts_per_block(&c->model[0]));
      snprintf(deg, sizeof(deg), "%d", c->model[0].max_degree);
    }
    if (c->regs > 0)
      snprintf(regs, sizeof(regs), "%d", c->regs);
    if (c->status == TN_ST_OK) {
      snprintf(ms, sizeof(ms), "%.4f", c->total_ms);
      snprintf(rate, sizeof(rate), "%.1f",
               tn_rate(f, run->job->problems, run->job->n_problems,
                       c->total_ms));
      if (run->n_baselines > 0 && run->baselines[0].status == TN_ST_OK)
        snprintf(pct, sizeof(pct), "%.1f",
                 100.0 * run->baselines[0].total_ms / c->total_ms);
    }
    fprintf(out, "%4d  %-52s %-13s %9s %3s %4s %9s %9s %6s%s\n", c->id,
            ptxt, tn_status_name(c->status), model, deg, regs, ms, rate, pct,
            i == run->sel.best ? "  <- best" : "");
    if (c->status == TN_ST_PRUNED || c->status == TN_ST_WRONG ||
        c->status == TN_ST_FAILED || c->status == TN_ST_COMPILE_ERROR) {
      char why[121];
      const char *nl;
      tn_strlcpy(why, c->reason, sizeof(why));
      nl = strchr(why, '\n');
      if (nl)
        why[nl - why] = '\0';
      fprintf(out, "      %s%s%s\n",
              c->status == TN_ST_PRUNED ? tn_pruned_by_name(c->pruned_by) : "",
              c->status == TN_ST_PRUNED ? ": " : "", why);
    }
  }
  for (i = 0; i < run->n_baselines && run->have_device; i++) {
    const tn_baseline_result *b = &run->baselines[i];
    if (b->status == TN_ST_OK)
      fprintf(out, "baseline %-10s %9.4f ms %9.1f %s\n", b->name,
              b->total_ms,
              tn_rate(f, run->job->problems, run->job->n_problems,
                      b->total_ms),
              unit);
    else
      fprintf(out, "baseline %-10s unavailable: %s\n", b->name, b->reason);
  }
}

static void set_paths(const tn_job *job, const tn_tune_opts *opts,
                      tn_run *run)
{
  const char *dir = opts->output_dir ? opts->output_dir : job->output_dir;
  char stamp[32];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
  if (opts->resume_path) {
    size_t n = strlen(opts->resume_path);
    tn_strlcpy(run->results_path, opts->resume_path,
               sizeof(run->results_path));
    /* the journal sits beside it: x.json -> x.jsonl */
    snprintf(run->journal_path, sizeof(run->journal_path), "%.*s.jsonl",
             (int)(n > 5 && strcmp(opts->resume_path + n - 5, ".json") == 0
                       ? n - 5
                       : n),
             opts->resume_path);
  } else {
    snprintf(run->results_path, sizeof(run->results_path), "%s/%s-%s-%s.json",
             dir, job->name, run->arch->name, stamp);
    snprintf(run->journal_path, sizeof(run->journal_path),
             "%s/%s-%s-%s.jsonl", dir, job->name, run->arch->name, stamp);
  }
  snprintf(run->header_path, sizeof(run->header_path), "%s/%s/%s.h", dir,
           run->arch->name, job->name);
}

static unsigned long long job_seed(const tn_run *run, int id, int k)
{
  /* distinct inputs for every check, reproducible from the run's seed */
  return run->seed ^ ((unsigned long long)(id + 2) * 0x9e3779b97f4a7c15ULL) ^
         ((unsigned long long)(k + 1) << 48);
}

static int run_baselines(tn_run *run, tn_worker *w, FILE *journal,
                         tn_err *err)
{
  const tn_job *job = run->job;
  int i, k, rc;
  for (i = 0; i < run->n_baselines; i++) {
    tn_baseline_result *b = &run->baselines[i];
    if (b->status == TN_ST_OK)
      continue; /* resumed */
    b->total_ms = 0;
    b->status = TN_ST_OK;
    for (k = 0; k < job->n_problems && b->status == TN_ST_OK; k++) {
      tn_bench_job bj;
      tn_bench_result res;
      memset(&bj, 0, sizeof(bj));
      bj.kind = TN_JOB_BASELINE;
      tn_strlcpy(bj.family, job->family->name, sizeof(bj.family));
      tn_strlcpy(bj.baseline, b->name, sizeof(bj.baseline));
      bj.problem = job->problems[k];
      bj.bench = job->bench;
      bj.seed = job_seed(run, -1 - i, k);
      rc = tn_worker_run(w, &bj, NULL, job->bench.timeout_s, &res, err);
      if (rc)
        return rc;
      if (res.status != TN_ST_OK) {
        b->status = TN_ST_FAILED;
        tn_strlcpy(b->reason, res.reason, sizeof(b->reason));
        break;
      }
      b->timing[k] = res.timing;
      b->total_ms += res.timing.median_ms;
    }
    if (tn_journal_append(journal, "baseline", tn_results_baseline(run, b),
                          err) != 0)
      return TN_ETOOL;
  }
  return 0;
}

/* Verifies and times one candidate on every problem. */
static int run_candidate(tn_run *run, tn_worker *w, tn_candidate *c,
                         tn_err *err)
{
  const tn_job *job = run->job;
  int k, rc;
  c->total_ms = 0;
  for (k = 0; k < job->n_problems; k++) {
    tn_bench_job bj;
    tn_bench_result res;
    memset(&bj, 0, sizeof(bj));
    bj.kind = TN_JOB_CANDIDATE;
    tn_strlcpy(bj.family, job->family->name, sizeof(bj.family));
    tn_strlcpy(bj.kernel, job->family->kernel, sizeof(bj.kernel));
    bj.candidate_id = c->id;
    bj.problem = job->problems[k];
    bj.params = c->params;
    job->family->launch(&c->params, &job->problems[k], &bj.launch);
    bj.bench = job->bench;
    bj.seed = job_seed(run, c->id, k);
    bj.cubin_len = c->cubin_len;
    rc = tn_worker_run(w, &bj, c->cubin, job->bench.timeout_s, &res, err);
    if (rc)
      return rc;
    if (res.status != TN_ST_OK) {
      c->status = (tn_status)res.status;
      tn_strlcpy(c->reason, res.reason, sizeof(c->reason));
      return 0;
    }
    c->timing[k] = res.timing;
    c->total_ms += res.timing.median_ms;
  }
  c->status = TN_ST_OK;
  return 0;
}

static int bench_all(tn_run *run, tn_worker *w, tn_err *err)
{
  const tn_job *job = run->job;
  tn_progress bar;
  FILE *journal;
  int i, rc = 0, todo = tn_space_count(&run->space, TN_ST_COMPILED);
  double t0 = tn_now();

  journal = fopen(run->journal_path, "a");
  if (journal == NULL)
    return tn_errf(err, TN_ETOOL, "open(%s): %s", run->journal_path,
                   strerror(errno));
  if (!run->resumed &&
      (rc = tn_journal_append(
           journal, "run",
           json_pack("{s:s, s:s, s:s, s:I, s:s, s:s}", "family",
                     job->family->name, "name", job->name, "config",
                     job->path, "seed", (json_int_t)run->seed, "started",
                     run->started, "device",
                     run->have_device ? run->device.name : ""),
           err)) != 0)
    goto done;
  rc = run_baselines(run, w, journal, err);
  if (rc)
    goto done;
  tn_progress_start(&bar, "bench", todo, run->opts->quiet);
  for (i = 0; i < run->space.n; i++) {
    tn_candidate *c = &run->space.c[i];
    if (c->status != TN_ST_COMPILED)
      continue;
    if (tn_interrupted()) {
      rc = tn_errf(err, TN_EINTR, "interrupted");
      break;
    }
    rc = run_candidate(run, w, c, err);
    if (rc)
      break;
    if ((rc = tn_journal_append(journal, "candidate",
                                tn_results_candidate(run, c), err)) != 0)
      break;
    /* the results file is current after every candidate */
    run->bench_s = tn_now() - t0;
    if ((rc = tn_results_write(run, err)) != 0)
      break;
    tn_progress_step(&bar, "");
  }
  tn_progress_end(&bar);
done:
  run->bench_s = tn_now() - t0;
  fclose(journal);
  return rc;
}

int tn_tune(const tn_job *job, const tn_tune_opts *opts, tn_run *run,
            tn_err *err)
{
  tn_template tpl;
  tn_worker worker;
  tn_compile_opts copts;
  double t0 = tn_now();
  int rc, i;

  memset(run, 0, sizeof(*run));
  memset(&worker, 0, sizeof(worker));
  memset(&tpl, 0, sizeof(tpl));
  run->job = job;
  run->opts = opts;
  run->sel.best = run->sel.fastest = -1;
  tn_utc_iso(run->started, sizeof(run->started));
  if (gethostname(run->host, sizeof(run->host)) != 0)
    tn_strlcpy(run->host, "unknown", sizeof(run->host));
  run->seed = job->bench.seed ? job->bench.seed
                              : (unsigned long long)time(NULL) * 2654435761ULL;

  /* Everything that can be wrong with the input is found before any work:
   * the template, the space, the architecture. */
  if ((rc = tn_template_load(job->template_path, &tpl, err)) != 0)
    goto cleanup;
  if ((rc = tn_space_build(job, NULL, &run->space, err)) != 0)
    goto cleanup;
  tn_space_free(&run->space);
  if (!opts->dry_run) {
    rc = tn_worker_start(&worker, opts->device, err);
    if (rc)
      goto cleanup;
    run->have_device = 1;
    run->device = worker.info;
  }
  if (opts->dry_run && opts->arch == NULL) {
    /* a dry run compiles for the GPU that is there, else for the default */
    tn_err ignore = {{0}};
    tn_worker probe;
    memset(&probe, 0, sizeof(probe));
    if (tn_worker_start(&probe, opts->device < 0 ? 0 : opts->device,
                        &ignore) == 0) {
      run->arch = tn_arch_from_cc(probe.info.cc_major, probe.info.cc_minor);
      tn_worker_stop(&probe);
    }
    if (run->arch == NULL) {
      run->arch = tn_arch_find(TN_DEFAULT_ARCH);
      fprintf(stderr,
              "tuner: no GPU found (%s): dry run for %s, the default "
              "architecture\n",
              ignore.msg[0] ? ignore.msg : "unknown architecture",
              TN_DEFAULT_ARCH);
    } else {
      fprintf(stderr, "tuner: dry run for %s, the architecture of GPU %d\n",
              run->arch->name, opts->device < 0 ? 0 : opts->device);
    }
  } else if ((rc = pick_arch(opts, run, err)) != 0) {
    goto cleanup;
  }
  if ((rc = tn_space_build(job, run->arch, &run->space, err)) != 0)
    goto cleanup;
  if (!opts->no_prune)
    run->pruned_by_model = tn_space_prune(job, &run->space);
  run->n_baselines = job->family->n_baselines;
  for (i = 0; i < run->n_baselines && i < TN_MAX_BASELINES; i++)
    tn_strlcpy(run->baselines[i].name, job->family->baselines[i],
               sizeof(run->baselines[i].name));
  set_paths(job, opts, run);
  if (opts->resume_path) {
    /* the journal must exist and match before anything is compiled */
    FILE *probe = fopen(run->journal_path, "r");
    if (probe == NULL) {
      rc = tn_errf(err, TN_EINPUT, "--resume %s: no journal %s beside it",
                   opts->resume_path, run->journal_path);
      goto cleanup;
    }
    fclose(probe);
  }

  memset(&copts, 0, sizeof(copts));
  if (opts->use_cache)
    tn_strlcpy(copts.cache_dir, opts->cache_dir, sizeof(copts.cache_dir));
  copts.jobs = opts->jobs;
  copts.quiet = opts->quiet;
  rc = tn_compile_space(job, &tpl, run->arch, &run->space, &copts,
                        &run->compile, err);
  if (rc)
    goto cleanup;
  check_registers(run);

  if (!opts->dry_run) {
    const char *dir = opts->output_dir ? opts->output_dir : job->output_dir;
    if ((rc = tn_mkdirs(dir, err)) != 0)
      goto cleanup;
    if (opts->resume_path) {
      rc = tn_journal_resume(run->journal_path, run, err);
      if (rc < 0)
        goto cleanup;
      run->resumed = rc;
      rc = 0;
    }
    rc = bench_all(run, &worker, err);
    run->worker_starts = worker.starts;
    if (rc == TN_EINTR)
      run->interrupted = 1;
    else if (rc)
      goto cleanup;
    tn_select(&run->space, job->bench.min_noise, &run->sel);
    for (i = 0; i < run->space.n; i++)
      run->space.c[i].tie = run->sel.n_ties > 1 && i == run->sel.best;
    run->wall_s = tn_now() - t0;
    tn_utc_iso(run->finished, sizeof(run->finished));
    {
      tn_err werr = {{0}};
      int wrc = tn_results_write(run, &werr);
      if (wrc && rc == 0) {
        *err = werr;
        rc = wrc;
      }
    }
    if (rc == 0 && run->sel.best >= 0)
      rc = tn_emit_header(run, err);
  } else {
    run->wall_s = tn_now() - t0;
    tn_utc_iso(run->finished, sizeof(run->finished));
  }
  print_table(run, stdout);
cleanup:
  tn_worker_stop(&worker);
  tn_template_free(&tpl);
  return rc;
}

void tn_run_free(tn_run *run)
{
  tn_space_free(&run->space);
  tn_selection_free(&run->sel);
}

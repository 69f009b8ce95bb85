/* results.c -- the results of a run as JSON (results.h). */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/results.h"
#include "pipeline/results_drift.h"
#include "pipeline/results_model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "family/user_kernel.h"
#include "gpu/nvrtc.h"

/* The run's budget (job.h): its limit, the candidates this invocation
 * timed, whether the budget stopped the benchmark, and the candidates
 * left untimed (neither timed nor excluded: --resume times them). */
static json_t *budget_json(const tn_run *run)
{
  const tn_budget *b = &run->job->budget;
  int untimed = tn_space_count(&run->space, TN_ST_PENDING) +
                tn_space_count(&run->space, TN_ST_COMPILED);
  return json_pack("{s:o, s:o, s:i, s:b, s:i}", "candidates",
                   b->candidates > 0 ? json_integer(b->candidates)
                                     : json_null(),
                   "seconds",
                   b->seconds > 0 ? json_real(b->seconds) : json_null(),
                   "timed", run->budget_timed, "stopped", run->budget_stopped,
                   "untimed", untimed);
}

/* Timed launches of c over the problems. */
static int launches(const tn_run *run, const tn_candidate *c)
{
  int k, n = 0;
  for (k = 0; k < run->job->n_problems; k++)
    n += c->timing[k].repetitions;
  return n;
}

/* The wall time split by what it was spent on (results.h), from the
 * measured steps:
 * start-up = the workers' starts (process, context) + per-problem set-up
 * (buffers, the generator compiled); verification = fresh inputs, the
 * checked launch and its check; timed launches = warm-up + timed;
 * compiling = the compile's wall time, or, where it ran beside the
 * benchmark (a measured run), only the time the run waited for it, so
 * that the parts add up to the wall time, less the time it waited for
 * the compile workers to warm up (warm-up: a part of its own); other =
 * the rest (config, model, module loads, results, pipes). */
tn_results_cost tn_results_cost_split(const tn_run *run)
{
  const tn_bench_steps *t = &run->steps;
  tn_results_cost c;
  c.startup = run->worker_start_s + t->setup_s;
  c.verify = t->inputs_s + t->check_s + t->verify_s;
  c.timed = t->warmup_s + t->timed_s;
  c.compile = run->compile_start_s > 0 ? run->compile_wait_s
                                       : run->compile.wall_s;
  c.warmup = run->compile.trace.wait_warm_s;
  if (c.warmup > c.compile)
    c.warmup = c.compile;
  c.compile -= c.warmup;
  c.other = run->wall_s - c.startup - c.warmup - c.compile - c.verify -
            c.timed;
  return c;
}

/* run.cost.per_size: where each size's share went (timed launches,
 * candidates raced out there, seconds in the worker). */
static json_t *size_cost_json(const tn_run *run)
{
  json_t *a = json_array();
  int k;
  for (k = 0; k < run->job->n_problems; k++) {
    const tn_size_cost *sc = &run->size_cost[k];
    json_array_append_new(a, json_pack("{s:i, s:i, s:i, s:f, s:f}",
                                       "problem", k, "launches",
                                       sc->launches, "raced_out",
                                       sc->raced_out, "verify_s",
                                       sc->verify_s, "timed_s",
                                       sc->timed_s));
  }
  return a;
}

/* run.compile.trace: where the compile's time went (compile_trace.h). */
static json_t *trace_json(const tn_compile_trace *t)
{
  json_t *o = json_pack(
      "{s:i, s:i, s:i, s:i, s:f, s:f, s:f, s:f}", "workers", t->workers,
      "started", t->started, "warmed", t->warmed, "requests", t->requests,
      "warmup_s", tn_compile_trace_warmup_s(t), "warmup_hidden_s",
      tn_compile_trace_warmup_hidden_s(t), "wait_warm_s", t->wait_warm_s,
      "phase_s", tn_compile_trace_phase_s(t));
  json_object_set_new(o, "busy_s", json_real(t->busy_s));
  json_object_set_new(o, "head_s", json_real(t->head_s));
  json_object_set_new(o, "gaps_s", json_real(t->gaps_s));
  json_object_set_new(o, "tail_s", json_real(t->tail_s));
  json_object_set_new(o, "answer_ms", json_real(t->answer_ms));
  return o;
}

/* run.cost: the wall time split by what it was spent on, measured. */
static json_t *cost_json(const tn_run *run)
{
  const tn_bench_steps *t = &run->steps;
  tn_results_cost c = tn_results_cost_split(run);
  double startup = c.startup, verify = c.verify, timed = c.timed;
  double other = c.other;
  json_t *o = json_pack(
      "{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:{s:f, s:f, s:f, "
      "s:f, s:f, s:f, s:f, s:f, s:f, s:f}, s:o}",
      "wall_s", run->wall_s, "startup_s", startup, "compile_s", c.compile,
      "compile_overlapped_s", run->compile.wall_s, "verify_s", verify,
      "timed_s", timed, "other_s", other, "launches", run->launches,
      "raced_out", run->raced_out,
      "steps", "worker_start_s", run->worker_start_s, "setup_s", t->setup_s,
      "module_load_s", t->load_s, "inputs_s", t->inputs_s, "check_launch_s",
      t->check_s, "verify_s", t->verify_s, "warmup_s", t->warmup_s,
      "timed_launches_s", t->timed_s, "worker_jobs_s", t->total_s,
      "round_trips_s", run->jobs_s, "per_size", size_cost_json(run));
  /* in the sum: the wait for the warm-up; beside it, its wall time */
  json_object_set_new(o, "compile_warmup_s", json_real(c.warmup));
  json_object_set_new(
      o, "compile_warmup_overlapped_s",
      json_real(tn_compile_trace_warmup_s(&run->compile.trace)));
  return o;
}

/* The family's layout parameters: siblings differ only in these (pruning's
 * groups, which scripts/model_check.py finds again from the file). */
static json_t *layout_params_json(const tn_family *f)
{
  json_t *a = json_array();
  int k;
  for (k = 0; k < f->n_params; k++)
    if (f->params[k].is_layout)
      json_array_append_new(a, json_string(f->params[k].name));
  return a;
}

/* A candidate's object; t: the run's clocks judged (NULL: a journal
 * line, written before the run's later timings are known). */
static json_t *candidate_json(const tn_run *run, const tn_candidate *c,
                              const tn_throttle *t)
{
  const tn_job *job = run->job;
  const tn_family *f = job->family;
  json_t *o = json_object();
  char text[512];
  int k;

  tn_params_format(f->params, f->n_params, &c->params, text, sizeof(text));
  json_object_set_new(o, "id", json_integer(c->id));
  json_object_set_new(o, "params", tn_params_json(f, &c->params));
  json_object_set_new(o, "params_text", json_string(text));
  json_object_set_new(o, "status", json_string(tn_status_name(c->status)));
  if (c->status == TN_ST_PRUNED)
    json_object_set_new(o, "pruned_by",
                        json_string(tn_pruned_by_name(c->pruned_by)));
  if (c->reason[0])
    json_object_set_new(o, "reason", json_string(c->reason));
  if (tn_results_modelled(c)) {
    json_t *per = json_array();
    tn_model_cost sum;
    memset(&sum, 0, sizeof(sum));
    for (k = 0; k < job->n_problems; k++) {
      json_array_append_new(per, tn_results_model(&c->model[k]));
    }
    json_object_set_new(o, "model", json_pack("{s:I, s:f, s:i, s:o}",
                                              "wavefronts",
                                              (json_int_t)c->model_total,
                                              "wavefronts_per_block",
                                              tn_model_wavefronts_per_block(
                                                  &c->model[0]),
                                              "max_degree",
                                              c->model[0].max_degree,
                                              "per_problem", per));
  }
  if (c->pred_total.ms > 0 && tn_results_modelled(c))
    json_object_set_new(o, "predicted", tn_results_predicted(run, c));
  if (tn_results_modelled(c))
    json_object_set_new(
        o, "launch",
        json_pack("{s:[iii], s:[iii], s:i, s:i}", "grid", c->launch.grid[0],
                  c->launch.grid[1], c->launch.grid[2], "block",
                  c->launch.block[0], c->launch.block[1], c->launch.block[2],
                  "threads", c->launch.threads, "smem_bytes",
                  tn_launch_smem(&c->launch)));
  if (c->status >= TN_ST_COMPILE_ERROR) {
    json_t *comp = json_pack("{s:f, s:b}", "seconds", c->compile_s, "cached",
                             c->cache_hit);
    if (c->status != TN_ST_COMPILE_ERROR)
      json_object_update_new(
          comp, json_pack("{s:i, s:i, s:i, s:i, s:i}", "registers", c->regs,
                          "spill_stores", c->spill_stores, "spill_loads",
                          c->spill_loads, "stack_bytes", c->stack_bytes,
                          "smem_bytes", c->smem_bytes));
    if (c->log && c->status == TN_ST_COMPILE_ERROR)
      json_object_set_new(comp, "log", json_string(c->log));
    json_object_set_new(o, "compile", comp);
  }
  if (c->status == TN_ST_OK) {
    json_t *ts = json_array(), *clocks = tn_results_clocks(&c->clocks, t);
    for (k = 0; k < job->n_problems; k++)
      json_array_append_new(ts, tn_results_timing(&c->timing[k]));
    json_object_set_new(o, "timings", ts);
    json_object_set_new(o, "median_ms", json_real(c->total_ms));
    json_object_set_new(o, "launches", json_integer(launches(run, c)));
    json_object_set_new(o, "raced_out", json_boolean(c->raced_out));
    json_object_set_new(
        o, "min_ms", json_real(c->timing[0].min_ms));
    json_object_set_new(
        o, "max_ms", json_real(c->timing[0].max_ms));
    json_object_set_new(o, "rate",
                        json_real(tn_family_rate(f, job->problems,
                                                 job->n_problems,
                                                 c->total_ms)));
    json_object_set_new(o, "unit", json_string(f->unit));
    if (c->timed_at > 0)
      json_object_set_new(
          o, "timed_at_ms",
          json_integer(tn_results_ms_since_1970(c->timed_at)));
    if (clocks)
      json_object_set_new(o, "clocks", clocks);
    /* not in a journal line: the baseline's timing nearest to it may
     * come after it */
    if (t != NULL)
      tn_results_vs_baseline(run, c, -1, o);
  }
  return o;
}

json_t *tn_results_candidate(const tn_run *run, const tn_candidate *c)
{
  return candidate_json(run, c, NULL);
}

json_t *tn_results_baseline_line(const tn_run *run,
                                 const tn_baseline_result *b, int j)
{
  json_t *o = json_pack("{s:s, s:s}", "name", b->name, "status",
                        tn_status_name((tn_status)b->status));
  if (b->reason[0])
    json_object_set_new(o, "reason", json_string(b->reason));
  if (j >= 0 && j < b->n_meas)
    json_object_update_new(o, tn_results_measure(run, b, j, NULL));
  return o;
}

/* A baseline's object: its median measurement's figures and every
 * measurement (t: the run's clocks judged). */
static json_t *baseline_json(const tn_run *run, const tn_baseline_result *b,
                             const tn_throttle *t)
{
  const tn_job *job = run->job;
  json_t *o = json_pack("{s:s, s:s}", "name", b->name, "status",
                        tn_status_name((tn_status)b->status));
  int k;
  if (b->reason[0])
    json_object_set_new(o, "reason", json_string(b->reason));
  if (b->status == TN_ST_OK && b->n_meas > 0) {
    json_t *ts = json_array();
    for (k = 0; k < job->n_problems; k++)
      json_array_append_new(ts, tn_results_timing(&b->timing[k]));
    json_object_set_new(o, "timings", ts);
    json_object_set_new(o, "median_ms", json_real(b->total_ms));
    json_object_set_new(o, "min_ms", json_real(b->timing[0].min_ms));
    json_object_set_new(o, "max_ms", json_real(b->timing[0].max_ms));
    json_object_set_new(o, "rate",
                        json_real(tn_family_rate(job->family, job->problems,
                                          job->n_problems, b->total_ms)));
    json_object_set_new(o, "unit", json_string(job->family->unit));
    tn_results_measurements(run, b, t, o);
  }
  return o;
}

static json_t *device_json(const tn_run *run)
{
  const tn_device_info *d = &run->device;
  char drv[32];
  if (!run->have_device)
    return json_pack("{s:n, s:s, s:b}", "name", "arch", run->arch->name,
                     "dry_run", 1);
  snprintf(drv, sizeof(drv), "%d.%d", d->driver_version / 1000,
           (d->driver_version % 1000) / 10);
  return json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:s, s:s}", "name",
                   d->name, "arch", d->arch, "ordinal", d->ordinal,
                   "sm_count", d->sm_count, "l2_bytes",
                   (json_int_t)d->l2_bytes, "memory_bytes",
                   (json_int_t)d->total_mem, "driver_cuda_version", drv,
                   "pci_bus_id", d->pci_bus_id);
}

json_t *tn_results_size_best(const tn_run *run, int k, int predicted)
{
  const tn_job *job = run->job;
  const tn_family *f = job->family;
  const tn_problem *p = &job->problems[k];
  const tn_selection *s = &run->sel_size[k];
  const tn_candidate *c, *single;
  json_t *o, *size = json_array(), *ties;
  char text[512];
  double ms;
  int i;

  if (s->best < 0 || s->best >= run->space.n ||
      (!predicted && run->space.c[s->best].status != TN_ST_OK)) {
    json_decref(size);
    return json_null();
  }
  c = &run->space.c[s->best];
  for (i = 0; i < p->size.n_dims; i++)
    json_array_append_new(size, json_integer(p->size.dims[i]));
  tn_params_format(f->params, f->n_params, &c->params, text, sizeof(text));
  o = json_pack("{s:i, s:o, s:i, s:o, s:s}", "problem", k, "size", size,
                "id", c->id, "params", tn_params_json(f, &c->params),
                "params_text", text);
  if (predicted) {
    json_object_set_new(o, "predicted", json_true());
    return o;
  }
  ms = c->timing[k].median_ms;
  ties = json_array();
  for (i = 0; i < s->n_ties; i++)
    json_array_append_new(ties, json_integer(run->space.c[s->ties[i]].id));
  json_object_update_new(
      o, json_pack("{s:f, s:f, s:s, s:b, s:o, s:i, s:f, s:s}", "median_ms",
                   ms, "rate", tn_family_rate(f, p, 1, ms), "unit", f->unit,
                   "tie", s->n_ties > 1, "within_noise", ties, "fastest_id",
                   run->space.c[s->fastest].id, "noise", s->noise, "rule",
                   TN_SELECT_SIZE_RULE));
  /* the baseline as measured nearest in time to this winner */
  tn_results_vs_baseline(run, c, k, o);
  if (run->sel.best >= 0) {
    single = &run->space.c[run->sel.best];
    json_object_set_new(o, "single_best_ms",
                        json_real(single->timing[k].median_ms));
    json_object_set_new(
        o, "gain_pct",
        json_real(100.0 * (single->timing[k].median_ms / ms - 1.0)));
  }
  return o;
}

json_t *tn_results_json(const tn_run *run)
{
  const tn_job *job = run->job;
  const tn_family *f = job->family;
  json_t *doc, *probs = json_array(), *cands = json_array(),
               *bases = json_array(), *best = json_null();
  char nvrtc[32];
  tn_throttle thr;
  int i, k;

  for (i = 0; i < job->n_problems; i++) {
    const tn_problem *p = &job->problems[i];
    json_t *size = json_array(), *po;
    for (k = 0; k < p->size.n_dims; k++)
      json_array_append_new(size, json_integer(p->size.dims[k]));
    po = json_pack("{s:o, s:f}", "size", size, "work", f->work(f, p));
    tn_problem_options_json(f, p, po);
    json_array_append_new(probs, po);
  }
  tn_throttle_judge(run, &thr);
  for (i = 0; i < run->n_baselines; i++)
    json_array_append_new(bases,
                          baseline_json(run, &run->baselines[i], &thr));
  for (i = 0; i < run->space.n; i++)
    json_array_append_new(cands,
                          candidate_json(run, &run->space.c[i], &thr));
  if (run->sel.best >= 0) {
    const tn_candidate *c = &run->space.c[run->sel.best];
    json_t *ties = json_array();
    for (i = 0; i < run->sel.n_ties; i++) {
      const tn_candidate *t = &run->space.c[run->sel.ties[i]];
      json_array_append_new(ties, json_integer(t->id));
    }
    json_decref(best);
    best = json_pack("{s:i, s:o, s:f, s:f, s:s, s:b, s:o, s:i, s:f, s:s}",
                     "id", c->id, "params", tn_params_json(f, &c->params),
                     "median_ms", c->total_ms, "rate",
                     tn_family_rate(f, job->problems, job->n_problems,
                                    c->total_ms),
                     "unit", f->unit, "tie", run->sel.n_ties > 1,
                     "within_noise", ties, "fastest_id",
                     run->space.c[run->sel.fastest].id, "noise",
                     run->sel.noise, "rule", TN_SELECT_RULE);
    tn_results_vs_baseline(run, c, -1, best);
    json_object_set_new(best, "scope", json_string(TN_SELECT_SINGLE));
  }
  tn_nvrtc_version(nvrtc, sizeof(nvrtc));
  doc = json_pack(
      "{s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:b, s:I, "
      "s:f, s:f, s:i, s:i, s:i, s:i, s:{s:i, s:i, s:i, s:i, s:f, s:f}}, "
      "s:s, "
      "s:s, s:o, s:o, s:o, s:o, s:o}",
      "schema", TN_RESULTS_SCHEMA, "tool", "name", "tuner", "nvrtc", nvrtc,
      "run", "config", job->path, "command",
      run->opts->command ? run->opts->command : "", "host", run->host,
      "started", run->started, "finished", run->finished, "dry_run",
      run->opts->dry_run, "no_prune", run->opts->no_prune, "interrupted",
      run->interrupted, "seed", (json_int_t)run->seed, "wall_s", run->wall_s,
      "bench_s", run->bench_s, "pruned_by_model", run->pruned_by_model,
      "pruned_by_measured", run->pruned_by_measured,
      "worker_starts", run->worker_starts, "resumed", run->resumed,
      "compile", "compiled", run->compile.compiled, "cached",
      run->compile.cached, "failed", run->compile.failed, "threads",
      run->compile.threads, "wall_s", run->compile.wall_s, "cpu_s",
      run->compile.cpu_s, "family", f->name, "name", job->name, "device",
      device_json(run), "problems", probs, "baselines", bases, "candidates",
      cands, "best", best);
  json_object_set_new(json_object_get(doc, "run"), "full_protocol",
                      json_boolean(run->opts->full_protocol));
  if (job->budget.candidates > 0 || job->budget.seconds > 0)
    json_object_set_new(json_object_get(doc, "run"), "budget",
                        budget_json(run));
  json_object_set_new(json_object_get(doc, "run"), "cost", cost_json(run));
  if (run->have_device)
    json_object_set_new(json_object_get(doc, "run"), "clocks",
                        tn_results_run_clocks(run, &thr));
  tn_results_profile(run, json_object_get(doc, "run"));
  json_object_set_new(json_object_get(json_object_get(doc, "run"), "compile"),
                      "trace", trace_json(&run->compile.trace));
  json_object_set_new(doc, "layout_params", layout_params_json(f));
  /* a described kernel: its config, from which a merge, a report or a
   * resumed run on another host makes the same family (no file read) */
  if (job->user)
    json_object_set_new(doc, "kernel",
                        json_pack("{s:s, s:s, s:s}", "config", job->text,
                                  "symbol", job->family->kernel, "file",
                                  job->user->file));
  if (run->n_baselines > 0)
    json_object_set_new(doc, "reference_baseline",
                        json_string(run->baselines[0].name));
  if (run->sel.best >= 0) {
    json_t *by = json_array();
    for (i = 0; i < job->n_problems; i++)
      json_array_append_new(by, tn_results_size_best(run, i, 0));
    json_object_set_new(doc, "best_by_size", by);
  }
  return doc;
}

int tn_results_text(json_t *doc, char **text, tn_err *err)
{
  if (doc == NULL)
    return tn_errf(err, TN_ETOOL, "building the results JSON failed");
  *text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
  json_decref(doc);
  if (*text == NULL)
    return tn_errf(err, TN_ETOOL, "serialising the results JSON failed");
  return 0;
}

int tn_results_write_doc(json_t *doc, const char *path, tn_err *err)
{
  char *text;
  int rc = tn_results_text(doc, &text, err);
  if (rc != 0)
    return rc;
  rc = tn_write_file_atomic(path, text, strlen(text), err);
  free(text);
  return rc;
}

int tn_results_write(const tn_run *run, tn_err *err)
{
  return tn_results_write_doc(tn_results_json(run), run->results_path, err);
}

/* predict.c -- a predicted winner for an architecture without a GPU of it:
 * the space for the architecture, NVRTC for the registers, then the model
 * and the architecture table instead of a stopwatch. */
#define _POSIX_C_SOURCE 200809L
#include "fleet/predict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"
#include "emit/emit.h"
#include "model/time.h"
#include "pipeline/precheck.h"
#include "pipeline/render.h"
#include "pipeline/results.h"
#include "pipeline/run_files.h"

void tn_predict_estimate(const tn_job *job, const tn_arch *arch,
                         const tn_candidate *c, tn_predict_est *est)
{
  const tn_family *f = job->family;
  int threads = c->launch.threads > 0 ? c->launch.threads : 1;
  int warps = (threads + 31) / 32, k;
  /* ptxas may know of more static shared memory than the launch says */
  int smem_static = c->smem_bytes > c->launch.smem_static
                        ? c->smem_bytes
                        : c->launch.smem_static;

  memset(est, 0, sizeof(*est));
  /* the CUDA toolkit's occupancy calculator, as the time model's */
  est->blocks_per_sm = tn_time_occupancy_why(
      arch, arch->product_sms > 0 ? arch->product_sms : 1, threads, c->regs,
      smem_static, c->launch.smem_dynamic, &est->limited_by);
  est->occupancy = (double)est->blocks_per_sm * warps * 32 /
                   (double)arch->max_threads_per_sm;
  for (k = 0; k < job->n_problems; k++) {
    tn_launch l;
    f->launch(f, &c->params, &job->problems[k], &l);
    est->launched +=
        (long long)l.grid[0] * l.grid[1] * l.grid[2] * (long long)l.threads;
  }
}

/* The modelled wavefronts of c at size k, or over all sizes (k < 0). */
static long long model_at(const tn_candidate *c, int k)
{
  return k < 0 ? c->model_total
               : c->model[k].ld_wavefronts + c->model[k].st_wavefronts;
}

/* <0 if a is predicted to be better than b, >0 if worse (TN_PREDICT_RULE),
 * at size k (its wavefronts and threads launched there) or over all
 * sizes (k < 0; est->launched is then over all of them). */
static int compare(const tn_candidate *a, const tn_predict_est *ea,
                   const tn_candidate *b, const tn_predict_est *eb, int k)
{
  int sa = (a->spill_stores + a->spill_loads) > 0;
  int sb = (b->spill_stores + b->spill_loads) > 0;
  long long ra = (long long)ea->blocks_per_sm * a->launch.threads;
  long long rb = (long long)eb->blocks_per_sm * b->launch.threads;
  double ta = k < 0 ? a->pred_total.ms : a->pred[k].ms;
  double tb = k < 0 ? b->pred_total.ms : b->pred[k].ms;
  if (sa != sb)
    return sa - sb;
  if (ta != tb)
    return ta < tb ? -1 : 1;
  if (model_at(a, k) != model_at(b, k))
    return model_at(a, k) < model_at(b, k) ? -1 : 1;
  if (ra != rb) /* resident threads: occupancy without rounding */
    return ra > rb ? -1 : 1;
  if (ea->launched != eb->launched)
    return ea->launched < eb->launched ? -1 : 1;
  if (tn_launch_smem(&a->launch) != tn_launch_smem(&b->launch))
    return tn_launch_smem(&a->launch) < tn_launch_smem(&b->launch) ? -1 : 1;
  if (a->regs != b->regs)
    return a->regs < b->regs ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

int tn_predict_pick_size(const tn_run *run, int k)
{
  tn_predict_est best_est, est;
  int i, best = -1;
  memset(&best_est, 0, sizeof(best_est));
  for (i = 0; i < run->space.n; i++) {
    const tn_candidate *c = &run->space.c[i];
    if (c->status != TN_ST_COMPILED)
      continue;
    tn_predict_estimate(run->job, run->arch, c, &est);
    if (est.blocks_per_sm < 1)
      continue; /* cannot be resident at all */
    if (k >= 0) {
      tn_launch l;
      run->job->family->launch(run->job->family, &c->params,
                               &run->job->problems[k], &l);
      est.launched =
          (long long)l.grid[0] * l.grid[1] * l.grid[2] * (long long)l.threads;
    }
    if (best < 0 ||
        compare(c, &est, &run->space.c[best], &best_est, k) < 0) {
      best = i;
      best_est = est;
    }
  }
  return best;
}

int tn_predict_pick(const tn_run *run)
{
  return tn_predict_pick_size(run, -1);
}

static json_t *estimate_json(const tn_candidate *c, const tn_predict_est *e)
{
  return json_pack("{s:I, s:f, s:i, s:f, s:s, s:I, s:i, s:i, s:i}",
                   "model_wavefronts", (json_int_t)c->model_total,
                   "wavefronts_per_block",
                   tn_model_wavefronts_per_block(&c->model[0]),
                   "blocks_per_sm", e->blocks_per_sm, "occupancy",
                   e->occupancy, "limited_by", e->limited_by,
                   "threads_launched", (json_int_t)e->launched, "registers",
                   c->regs, "spills", c->spill_stores + c->spill_loads,
                   "smem_bytes", tn_launch_smem(&c->launch));
}

/* The results document of a prediction: a run's, marked predicted. */
static json_t *predicted_json(const tn_run *run)
{
  const tn_family *f = run->job->family;
  json_t *doc = tn_results_json(run), *cands, *best = json_null();
  tn_predict_est e;
  int i;

  if (doc == NULL)
    return NULL;
  json_object_set_new(doc, "predicted", json_true());
  json_object_set_new(doc, "device",
                      json_pack("{s:n, s:s, s:b}", "name", "arch",
                                run->arch->name, "predicted", 1));
  cands = json_object_get(doc, "candidates");
  for (i = 0; i < run->space.n && i < (int)json_array_size(cands); i++) {
    const tn_candidate *c = &run->space.c[i];
    if (c->status != TN_ST_COMPILED)
      continue;
    tn_predict_estimate(run->job, run->arch, c, &e);
    json_object_set_new(json_array_get(cands, (size_t)i), "prediction",
                        estimate_json(c, &e));
  }
  if (run->sel.best >= 0) {
    const tn_candidate *c = &run->space.c[run->sel.best];
    char text[512];
    json_t *params = json_object_get(
        json_array_get(cands, (size_t)run->sel.best), "params");
    tn_params_format(f->params, f->n_params, &c->params, text, sizeof(text));
    tn_predict_estimate(run->job, run->arch, c, &e);
    best = json_pack("{s:i, s:O, s:s, s:b, s:s, s:o}", "id", c->id, "params",
                     params, "params_text", text, "predicted", 1, "rule",
                     TN_PREDICT_RULE, "estimate", estimate_json(c, &e));
  }
  json_object_set_new(doc, "best", best);
  if (run->sel.best >= 0) {
    json_t *by = json_array();
    for (i = 0; i < run->job->n_problems; i++) {
      json_t *o = tn_results_size_best(run, i, 1);
      if (json_is_object(o))
        json_object_set_new(o, "rule",
                            json_string("best.rule, at this size alone"));
      json_array_append_new(by, o);
    }
    json_object_set_new(doc, "best_by_size", by);
  }
  return doc;
}

static void print_table(const tn_run *run, FILE *out)
{
  const tn_family *f = run->job->family;
  int i;
  fprintf(out, "%4s  %-52s %-13s %10s %5s %4s %6s %6s %9s %-6s\n", "id",
          "parameters", "status", "wavefronts", "occ%", "regs", "smem",
          "blk/SM", "pred_ms", "bound");
  for (i = 0; i < run->space.n; i++) {
    const tn_candidate *c = &run->space.c[i];
    char ptxt[512];
    tn_params_format(f->params, f->n_params, &c->params, ptxt, sizeof(ptxt));
    if (c->status == TN_ST_COMPILED) {
      tn_predict_est e;
      tn_predict_estimate(run->job, run->arch, c, &e);
      fprintf(out, "%4d  %-52s %-13s %10lld %5.1f %4d %6d %6d %9.4f %-6s%s\n",
              c->id, ptxt, "compiled", c->model_total, 100.0 * e.occupancy,
              c->regs, tn_launch_smem(&c->launch), e.blocks_per_sm,
              c->pred_total.ms, tn_bound_name(c->pred_total.bound),
              i == run->sel.best ? "  <- predicted" : "");
    } else {
      fprintf(out, "%4d  %-52s %-13s\n", c->id, ptxt,
              tn_status_name(c->status));
    }
  }
}

/* 1 if path holds a measured header (which a prediction must not replace). */
static int measured_header_there(const char *path)
{
  tn_err ignore = {{0}};
  char *text = NULL;
  int measured;
  if (tn_read_file(path, &text, NULL, &ignore) != 0)
    return 0;
  measured = strstr(text, "_MEASURED 1") != NULL;
  free(text);
  return measured;
}

/* The predicted header, unless a measured one is there. */
static int write_header(tn_run *run, tn_err *err)
{
  const tn_job *job = run->job;
  const tn_candidate *c;
  tn_header_entry h;
  tn_predict_est e;
  char why[640];

  if (measured_header_there(run->header_path)) {
    fprintf(stderr,
            "tuner: %s is measured: kept; the prediction is in the "
            "results only\n",
            run->header_path);
    run->header_path[0] = '\0';
    return 0;
  }
  c = &run->space.c[run->sel.best];
  tn_predict_estimate(job, run->arch, c, &e);
  snprintf(why, sizeof(why),
           "candidate %d: predicted %.4g ms (%.4g-%.4g, %s-bound, profile "
           "%.200s), %lld modelled wavefronts, %.0f%% estimated occupancy (%d "
           "blocks per SM, limited by %s), %d registers",
           c->id, c->pred_total.ms, c->pred_total.lo_ms, c->pred_total.hi_ms,
           tn_bound_name(c->pred_total.bound),
           run->space.profile.derived ? "derived" : run->space.profile.path,
           c->model_total, 100.0 * e.occupancy, e.blocks_per_sm,
           e.limited_by, c->regs);
  memset(&h, 0, sizeof(h));
  h.family = job->family;
  h.name = job->name;
  h.arch = run->arch->name;
  h.predicted = 1;
  h.date = run->finished;
  h.origin = job->path;
  h.why[0] = why;
  h.params = &c->params;
  h.problem = job->n_problems > 0 ? &job->problems[0] : NULL;
  return tn_emit_arch_header(&h, run->header_path, err);
}

static int write_outputs(tn_run *run, tn_err *err)
{
  const char *dir = run->opts->output_dir ? run->opts->output_dir
                                          : run->job->output_dir;
  int rc, fd;

  rc = tn_mkdirs(dir, err);
  if (rc != 0)
    return rc;
  rc = tn_run_files_create(run, predicted_json(run), 0, err);
  if (rc || run->sel.best < 0)
    return rc;
  /* under the folder's lock (base/lock.h): a measured header that a run
   * or a merge writes meanwhile is neither replaced nor mixed into */
  rc = tn_lock_dir("tuner", dir, &fd, err);
  if (rc != 0)
    return rc;
  rc = write_header(run, err);
  tn_unlock_dir(fd);
  return rc;
}

int tn_predict(const tn_job *job, const tn_tune_opts *opts, tn_run *run,
               tn_err *err)
{
  tn_template tpl;
  double t0 = tn_now();
  char list[256];
  int rc, k;

  tn_run_init(run, job, opts);
  run->seed = job->bench.seed; /* nothing is drawn: no seed from the clock */
  memset(&tpl, 0, sizeof(tpl));

  tn_arch_list(list, sizeof(list));
  if (opts->arch == NULL)
    return tn_errf(err, TN_EINPUT,
                   "--predict needs --arch sm_XX: the architecture to "
                   "predict for (known: %s)",
                   list);
  run->arch = tn_arch_find(opts->arch);
  if (run->arch == NULL)
    return tn_errf(err, TN_EINPUT, "--arch %s: unknown (known: %s)",
                   opts->arch, list);
  if (opts->resume_path)
    return tn_errf(err, TN_EINPUT,
                   "--resume continues a measurement; a prediction has "
                   "nothing to resume");

  rc = tn_template_load(job->template_path, &tpl, err);
  if (rc == 0)
    rc = tn_precheck(run, &tpl, err);
  if (rc == 0)
    rc = tn_run_prepare(run, &tpl, err);
  if (rc)
    goto cleanup;

  run->sel.best = run->sel.fastest = tn_predict_pick(run);
  for (k = 0; k < job->n_problems; k++)
    run->sel_size[k].best = run->sel_size[k].fastest =
        tn_predict_pick_size(run, k);
  run->wall_s = tn_now() - t0;
  tn_utc_iso(run->finished, sizeof(run->finished));
  if (!opts->dry_run)
    rc = write_outputs(run, err);
  print_table(run, stdout);
cleanup:
  tn_template_free(&tpl);
  return rc;
}

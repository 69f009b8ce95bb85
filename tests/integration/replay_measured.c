/* replay_measured.c -- a pruned run replayed on the CPU from a --no-prune
 * run's measurements: the space, the time model's pruning and the
 * benchmark's order and measured rules (tuner/pipeline/measured.h) are the
 * tuner's own code; "timing" a candidate copies its timings (and its
 * compiled registers, which the prediction uses) from the --no-prune run.
 * What comes out is that run's results document with the statuses the
 * replay gave (ok, or pruned with pruned_by and the reason), run.no_prune
 * false, run.replayed_from naming the input, best the replay's single
 * best, each candidate's predicted the replay's (the model of this tree
 * with the run's registers, as --predict has it) and predicted_best
 * --predict's winner by TN_PREDICT_RULE, for scripts/model_check.py to
 * judge.
 *
 *   replay_measured CONFIG ARCH PROFILE NOPRUNE.json OUT.json [-v]
 *   -v: a line a group on stderr: its least prediction and measured best
 *       (at the first size), and how many of it were pruned */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "fleet/predict.h"
#include "pipeline/measured.h"
#include "pipeline/results_model.h"
#include "pipeline/select.h"
#include "pipeline/space.h"

/* The --no-prune run's candidates by their params_text. */
static json_t *by_text;

static void index_candidates(json_t *doc)
{
  json_t *cands = json_object_get(doc, "candidates"), *c;
  size_t i;
  by_text = json_object();
  json_array_foreach(cands, i, c)
  {
    const char *t = json_string_value(json_object_get(c, "params_text"));
    if (t)
      json_object_set(by_text, t, c);
  }
}

/* The --no-prune run's candidate of the same parameters, or NULL. */
static json_t *measured(json_t *doc, const char *text)
{
  (void)doc;
  return json_object_get(by_text, text);
}

static int compiled_int(json_t *m, const char *key)
{
  return (int)json_integer_value(
      json_object_get(json_object_get(m, "compile"), key));
}

static int ok_in(json_t *c)
{
  const char *st = json_string_value(json_object_get(c, "status"));
  return c && st && strcmp(st, "ok") == 0;
}

/* Copies c's timings from the run's candidate m: as if timed. */
static void time_from(tn_candidate *c, json_t *m, int n_problems)
{
  json_t *ts = json_object_get(m, "timings");
  int k;
  c->total_ms = 0;
  for (k = 0; k < n_problems; k++) {
    json_t *t = json_array_get(ts, (size_t)k);
    tn_timing *d = &c->timing[k];
    d->median_ms = json_number_value(json_object_get(t, "median_ms"));
    d->q1_ms = json_number_value(json_object_get(t, "q1_ms"));
    d->q3_ms = json_number_value(json_object_get(t, "q3_ms"));
    d->min_ms = json_number_value(json_object_get(t, "min_ms"));
    d->max_ms = json_number_value(json_object_get(t, "max_ms"));
    d->repetitions =
        (int)json_integer_value(json_object_get(t, "repetitions"));
    c->total_ms += d->median_ms;
  }
  c->status = TN_ST_OK;
}

int main(int argc, char **argv)
{
  tn_job job;
  tn_space space, one;
  tn_profile p;
  tn_err err = {{0}};
  json_error_t jerr;
  json_t *doc, *run;
  tn_selection sel;
  tn_measured_verdict *v = NULL;
  tn_run run_view;
  int *order, i, j, n, start, end, n_measured = 0, predicted_best;
  char text[1024];

  if (argc != 6 && !(argc == 7 && strcmp(argv[6], "-v") == 0)) {
    fprintf(stderr, "usage: replay_measured CONFIG ARCH PROFILE "
                    "NOPRUNE.json OUT.json\n");
    return 2;
  }
  if (tn_config_load(argv[1], &job, &err) != 0 ||
      tn_profile_read(argv[3], &p, &err) != 0) {
    fprintf(stderr, "replay_measured: %s\n", err.msg);
    return 2;
  }
  doc = json_load_file(argv[4], 0, &jerr);
  if (doc == NULL || !json_is_array(json_object_get(doc, "candidates"))) {
    fprintf(stderr, "replay_measured: %s: not a results file (%s)\n",
            argv[4], jerr.text);
    return 2;
  }
  index_candidates(doc);
  memset(&space, 0, sizeof(space));
  if (tn_arch_find(argv[2]) == NULL ||
      tn_space_build(&job, tn_arch_find(argv[2]), &space, &err) != 0) {
    fprintf(stderr, "replay_measured: %s: %s\n", argv[2],
            err.msg[0] ? err.msg : "no such architecture");
    return 2;
  }
  tn_space_predict(&job, &p, &space);
  tn_space_prune(&job, &space);
  /* "compiled": the run's registers, and the prediction with them */
  for (i = 0; i < space.n; i++) {
    tn_candidate *c = &space.c[i];
    json_t *m;
    if (c->status != TN_ST_PENDING)
      continue;
    tn_params_format(job.family->params, job.family->n_params, &c->params,
                     text, sizeof(text));
    m = measured(doc, text);
    if (!ok_in(m)) {
      c->status = TN_ST_FAILED; /* not timed there: nothing to replay */
      continue;
    }
    c->status = TN_ST_COMPILED;
    c->regs = compiled_int(m, "registers");
    c->spill_stores = compiled_int(m, "spill_stores");
    c->spill_loads = compiled_int(m, "spill_loads");
    c->smem_bytes = compiled_int(m, "smem_bytes");
    one = space;
    one.n = 1;
    one.c = c;
    tn_space_predict(&job, &space.profile, &one);
  }
  /* --predict's winner among the compiled, by its own rule */
  memset(&run_view, 0, sizeof(run_view));
  run_view.job = &job;
  run_view.arch = tn_arch_find(argv[2]);
  run_view.space = space;
  predicted_best = tn_predict_pick(&run_view);
  if (predicted_best >= 0) {
    tn_params_format(job.family->params, job.family->n_params,
                     &space.c[predicted_best].params, text, sizeof(text));
    json_object_set_new(doc, "predicted_best",
                        json_pack("{s:s}", "params_text", text));
  }
  order = malloc(sizeof(int) * (size_t)(space.n + 1));
  if (order == NULL || tn_select_order(job.family, &space, order) != 0)
    return 1;
  for (start = 0; start < space.n; start = end) {
    end = tn_measured_group_end(job.family, &space, order, space.n, start);
    free(v);
    v = calloc((size_t)(end - start), sizeof(*v));
    if (v == NULL)
      return 1;
    n = tn_measured_decide(job.family, &space, order, space.n, start, end,
                           job.n_problems, job.bench.min_noise, v);
    for (j = start; j < end; j++) {
      tn_candidate *c = &space.c[order[j]];
      if (c->status != TN_ST_COMPILED)
        continue;
      if (v[j - start].prune) {
        c->status = TN_ST_PRUNED;
        c->pruned_by = TN_BY_MEASURED;
        tn_candidate_set_reason(c, "%s", v[j - start].reason);
        n_measured++;
        continue;
      }
      tn_params_format(job.family->params, job.family->n_params,
                       &c->params, text, sizeof(text));
      time_from(c, measured(doc, text), job.n_problems);
    }
    if (argc == 7) {
      double pred = -1, ms = -1;
      for (j = start; j < end; j++) {
        const tn_candidate *c = &space.c[order[j]];
        json_t *m;
        tn_params_format(job.family->params, job.family->n_params,
                         &c->params, text, sizeof(text));
        m = measured(doc, text);
        if (c->pred[0].ms > 0 && (pred < 0 || c->pred[0].ms < pred))
          pred = c->pred[0].ms;
        if (ok_in(m)) {
          double t = json_number_value(json_object_get(
              json_array_get(json_object_get(m, "timings"), 0), "median_ms"));
          if (ms < 0 || t < ms)
            ms = t;
        }
      }
      fprintf(stderr, "group at %3d: %d members, %d pruned; predicted %.4g "
                      "ms, measured %.4g ms (ratio %.3f): %s\n",
              start, end - start, n, pred, ms, ms / pred, text);
    }
  }
  /* the document, with the replay's statuses */
  for (i = 0; i < space.n; i++) {
    const tn_candidate *c = &space.c[i];
    json_t *m;
    tn_params_format(job.family->params, job.family->n_params, &c->params,
                     text, sizeof(text));
    m = measured(doc, text);
    if (m != NULL && c->pred_total.ms > 0)
      json_object_set_new(m, "predicted", tn_results_predicted(&run_view, c));
    if (m == NULL || c->status == TN_ST_OK || c->status == TN_ST_FAILED)
      continue; /* timed (as there), or not timed there either */
    json_object_set_new(m, "status", json_string("pruned"));
    json_object_set_new(m, "pruned_by",
                        json_string(tn_pruned_by_name(c->pruned_by)));
    json_object_set_new(m, "reason", json_string(c->reason));
  }
  run = json_object_get(doc, "run");
  json_object_set_new(run, "no_prune", json_false());
  json_object_set_new(run, "replayed_from", json_string(argv[4]));
  json_object_set_new(run, "pruned_by_measured", json_integer(n_measured));
  if (tn_select(&space, job.bench.min_noise, &sel) == 0 && sel.best >= 0) {
    tn_params_format(job.family->params, job.family->n_params,
                     &space.c[sel.best].params, text, sizeof(text));
    json_object_set_new(doc, "best",
                        json_pack("{s:s}", "params_text", text));
  }
  if (json_dump_file(doc, argv[5], JSON_COMPACT) != 0) {
    fprintf(stderr, "replay_measured: cannot write %s\n", argv[5]);
    return 1;
  }
  printf("%d measured-pruned, %d timed of %d\n", n_measured,
         tn_space_count(&space, TN_ST_OK), space.n);
  tn_selection_free(&sel);
  tn_space_free(&space);
  json_decref(doc);
  json_decref(by_text);
  free(order);
  free(v);
  return 0;
}

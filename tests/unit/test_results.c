/* test_results.c -- selection under noise, the results JSON (its layout
 * parameters, read back by merge's reader) and the header of a run, on a
 * synthetic run built from the shipped transpose config.
 * Usage: test_results CONFIG TMPDIR */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/baselines.h"
#include "pipeline/compile.h"
#include "pipeline/run_header.h"
#include "fleet/fleet.h"
#include "pipeline/render.h"
#include "pipeline/results.h"
#include "pipeline/select.h"
#include "run_util.h"
#include "test_util.h"

static void set_time(tn_candidate *c, double ms, double spread)
{
  c->status = TN_ST_OK;
  c->timing[0].median_ms = ms;
  c->timing[0].min_ms = ms * (1 - spread);
  c->timing[0].max_ms = ms * (1 + 2 * spread);
  c->timing[0].q1_ms = ms * (1 - spread / 2);
  c->timing[0].q3_ms = ms * (1 + spread / 2);
  c->timing[0].repetitions = 100;
  c->total_ms = ms;
}

int main(int argc, char **argv)
{
  static tn_job job;
  tn_tune_opts opts;
  tn_run run;
  tn_err err = {{0}};
  json_t *doc, *cands, *best;
  char *text = NULL, path[4400], cmd[9000];
  int i, fast = -1, lean = -1, wrong = -1, slow = -1;
  FILE *f;

  if (argc != 3)
    return 2;
  if (tn_config_load(argv[1], &job, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  memset(&opts, 0, sizeof(opts));
  opts.command = "tuner --config configs/transpose.cfg --device 0";
  memset(&run, 0, sizeof(run));
  run.job = &job;
  run.opts = &opts;
  tn_test_synthetic_gpu(&run, "2026-11-30");
  if (tn_space_build(&job, run.arch, &run.space, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  run.pruned_by_model = tn_space_prune(&job, &run.space);
  /* pick four surviving candidates with different shared memory */
  for (i = 0; i < run.space.n; i++) {
    tn_candidate *c = &run.space.c[i];
    if (c->status != TN_ST_PENDING)
      continue;
    c->status = TN_ST_COMPILED;
    if (fast < 0 && tn_launch_smem(&c->launch) > 4096)
      fast = i;
    else if (lean < 0 && fast >= 0 &&
             tn_launch_smem(&c->launch) < tn_launch_smem(&run.space.c[fast].launch))
      lean = i;
    else if (wrong < 0 && fast >= 0)
      wrong = i;
    else if (slow < 0 && fast >= 0)
      slow = i;
  }
  CHECK(fast >= 0 && lean >= 0 && wrong >= 0 && slow >= 0);
  if (tn_test_failures)
    TEST_DONE();
  run.n_baselines = 1;
  strcpy(run.baselines[0].name, "memcpy");
  run.baselines[0].status = TN_ST_OK;
  {
    /* one timing of the baseline (baselines.h) */
    tn_baseline_measure m;
    memset(&m, 0, sizeof(m));
    m.timing[0].median_ms = 0.13;
    m.timing[0].repetitions = 100;
    m.total_ms = 0.13;
    CHECK(tn_baselines_add(&run.baselines[0], &m) == 0);
  }
  set_time(&run.space.c[fast], 0.140, 0.002);
  set_time(&run.space.c[lean], 0.1405, 0.002); /* within noise, less smem */
  set_time(&run.space.c[slow], 0.300, 0.002);
  run.space.c[wrong].status = TN_ST_WRONG;     /* fastest of all, wrong */
  run.space.c[wrong].total_ms = 0.01;

  /* wrong answers never win; a tie goes to less shared memory */
  tn_select(&run.space, 0.01, &run.sel);
  CHECK_EQ_INT(run.sel.fastest, fast);
  CHECK_EQ_INT(run.sel.best, lean);
  CHECK_EQ_INT(run.sel.n_ties, 2);
  /* without a tie margin the fastest wins */
  tn_selection_free(&run.sel);
  set_time(&run.space.c[lean], 0.150, 0.002);
  tn_select(&run.space, 0.01, &run.sel);
  CHECK_EQ_INT(run.sel.best, fast);
  CHECK_EQ_INT(run.sel.n_ties, 1);

  /* one size: its winner is the single best */
  tn_select_size(&run.space, 0, 0.01, &run.sel_size[0]);
  CHECK_EQ_INT(run.sel_size[0].best, run.sel.best);

  /* the JSON has the documented fields */
  doc = tn_results_json(&run);
  CHECK(doc != NULL);
  if (doc == NULL)
    TEST_DONE();
  CHECK(json_is_string(json_object_get(json_object_get(doc, "device"),
                                       "name")));
  CHECK(strcmp(json_string_value(json_object_get(
                   json_object_get(doc, "device"), "arch")),
               "sm_90") == 0);
  CHECK(strcmp(json_string_value(json_object_get(
                   json_array_get(json_object_get(doc, "baselines"), 0),
                   "name")),
               "memcpy") == 0);
  CHECK(json_is_real(json_object_get(
      json_array_get(json_object_get(doc, "baselines"), 0), "median_ms")));
  cands = json_object_get(doc, "candidates");
  CHECK((int)json_array_size(cands) == run.space.n);
  for (i = 0; i < (int)json_array_size(cands); i++) {
    json_t *c = json_array_get(cands, (size_t)i);
    const char *st = json_string_value(json_object_get(c, "status"));
    CHECK(json_is_object(json_object_get(c, "params")));
    CHECK(st != NULL && tn_status_parse(st) >= 0);
    if (st && strcmp(st, "ok") == 0)
      CHECK(json_is_real(json_object_get(c, "median_ms")));
    if (st && strcmp(st, "pruned") == 0)
      CHECK(json_is_string(json_object_get(c, "reason")));
  }
  best = json_object_get(doc, "best");
  CHECK(json_integer_value(json_object_get(best, "id")) == run.space.c[fast].id);
  CHECK(json_is_object(json_object_get(best, "params")));
  CHECK(json_real_value(json_object_get(best, "median_ms")) == 0.140);
  CHECK(json_is_string(json_object_get(best, "scope")));
  {
    json_t *by = json_object_get(doc, "best_by_size");
    CHECK(json_array_size(by) == 1);
    CHECK(json_integer_value(json_object_get(json_array_get(by, 0), "id")) ==
          run.space.c[fast].id);
  }
  /* the family's layout parameters in its order: the sibling groups that
   * pruning and scripts/model_check.py share */
  {
    json_t *lp = json_object_get(doc, "layout_params");
    size_t n = 0;
    CHECK(json_is_array(lp));
    for (i = 0; i < job.family->n_params; i++) {
      const char *name = json_string_value(json_array_get(lp, n));
      if (!job.family->params[i].is_layout)
        continue;
      CHECK(name != NULL && strcmp(name, job.family->params[i].name) == 0);
      n++;
    }
    CHECK(n > 0 && json_array_size(lp) == n);
  }
  /* merge's reader takes the file with them */
  text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
  CHECK(text != NULL);
  if (text != NULL) {
    mg_run *r = calloc(1, sizeof(*r));
    CHECK(r != NULL &&
          tn_fleet_read_doc("r.json", text, strlen(text), NULL, 0, r,
                            &err) == 0);
    if (err.msg[0])
      fprintf(stderr, "%s\n", err.msg);
    tn_fleet_run_free(r);
    free(text);
    text = NULL;
  }
  json_decref(doc);

  /* the results file is written atomically and reads back */
  snprintf(run.results_path, sizeof(run.results_path), "%s/r.json", argv[2]);
  CHECK(tn_results_write(&run, &err) == 0);
  {
    json_error_t jerr;
    json_t *back = json_load_file(run.results_path, 0, &jerr);
    CHECK(back != NULL);
    json_decref(back);
  }

  /* the header compiles as C with the winner's values, and as CUDA */
  snprintf(run.header_path, sizeof(run.header_path), "%s/sm_90/%s.h", argv[2],
           job.name);
  CHECK(tn_run_header_write(&run, &err) == 0);
  snprintf(path, sizeof(path), "%s/use.c", argv[2]);
  f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    const tn_candidate *b = &run.space.c[run.sel.best];
    fprintf(f, "#include \"sm_90/%s.h\"\n", job.name);
    fprintf(f, "_Static_assert(TRANSPOSE_TILE == %lld, \"tile\");\n",
            b->params.v[0].i);
    /* by name: the family's order is tile, rows_per_thread, vec, pad,
     * swizzle (index 2 is vec, which only matched pad by chance) */
    fprintf(f, "_Static_assert(TRANSPOSE_SM_90_PAD == %lld, \"pad\");\n",
            b->params.v[tn_param_index(job.family->params,
                                       job.family->n_params, "pad")].i);
    fprintf(f, "_Static_assert(TRANSPOSE_SWIZZLE_B == %d, \"swizzle\");\n",
            b->params.v[tn_param_index(job.family->params,
                                       job.family->n_params, "swizzle")]
                .sw.b);
    fprintf(f, "int tuner_header_ok = TRANSPOSE_SM_90_MEASURED;\n");
    fclose(f);
  }
  snprintf(cmd, sizeof(cmd), "cc -std=c11 -Wall -Werror -c -I%s -o %s/use.o %s",
           argv[2], argv[2], path);
  CHECK(system(cmd) == 0);
  if (tn_run_header_text(&run, &text, &err) == 0) {
    tn_template t;
    void *cubin;
    size_t len;
    char *log;
    memset(&t, 0, sizeof(t));
    t.n_headers = 1;
    t.header_names[0] = (char *)"tuned.h";
    t.header_texts[0] = text;
    CHECK(tn_compile_source(
              "#include \"tuned.h\"\n"
              "extern \"C\" __global__ void k(float *x) {\n"
              "  __shared__ float s[TRANSPOSE_TILE * (TRANSPOSE_TILE + "
              "TRANSPOSE_PAD)];\n"
              "  s[threadIdx.x] = x[threadIdx.x]; __syncthreads();\n"
              "  x[threadIdx.x] = s[TRANSPOSE_SM_90_TILE - 1 - threadIdx.x];\n"
              "}\n",
              "use.cu", &t, run.arch, &cubin, &len, &log, &err) == 0);
    free(cubin);
    free(log);
    free(text);
  }
  tn_run_free(&run);
  TEST_DONE();
}

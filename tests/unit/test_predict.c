/* test_predict.c -- the predicted winner's rule on synthetic candidates,
 * the occupancy estimate against hand-computed numbers, and (with
 * "check") a prediction's results file.
 *
 *   test_predict CONFIG                 the rule and the estimate
 *   test_predict check RESULTS ARCH     a --predict results file */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/predict.h"
#include "pipeline/results.h"
#include "test_util.h"

/* The candidate with these values (transpose: tile, rows_per_thread, pad,
 * swizzle kind none/xor, group 1), or -1. */
static int find(const tn_run *run, int tile, int rows, int pad, int xor_)
{
  const tn_family *f = run->job->family;
  int kt = tn_param_index(f->params, f->n_params, "tile");
  int kr = tn_param_index(f->params, f->n_params, "rows_per_thread");
  int kp = tn_param_index(f->params, f->n_params, "pad");
  int ks = tn_param_index(f->params, f->n_params, "swizzle");
  int i;
  for (i = 0; i < run->space.n; i++) {
    const tn_params *p = &run->space.c[i].params;
    if (p->v[kt].i == tile && p->v[kr].i == rows && p->v[kp].i == pad &&
        (p->v[ks].sw.kind == TN_SWZ_XOR) == xor_)
      return i;
  }
  return -1;
}

/* Only these candidates compiled, with these costs. */
static void only(tn_run *run, const int *idx, const long long *wf,
                 const int *regs, const int *spills, int n)
{
  int i;
  for (i = 0; i < run->space.n; i++)
    run->space.c[i].status = TN_ST_PRUNED;
  for (i = 0; i < n; i++) {
    tn_candidate *c = &run->space.c[idx[i]];
    c->status = TN_ST_COMPILED;
    c->model_total = wf[i];
    c->regs = regs[i];
    c->spill_stores = spills[i];
    c->spill_loads = 0;
    c->smem_bytes = tn_launch_smem(&c->launch);
  }
}

static int check_results(const char *path, const char *arch)
{
  json_error_t jerr;
  json_t *doc = json_load_file(path, 0, &jerr), *best, *dev, *cands, *c;
  size_t i;
  int compiled = 0;
  if (doc == NULL) {
    fprintf(stderr, "%s: %s\n", path, jerr.text);
    return 1;
  }
  CHECK(strcmp(json_string_value(json_object_get(doc, "schema")),
               TN_RESULTS_SCHEMA) == 0);
  CHECK(json_is_true(json_object_get(doc, "predicted")));
  dev = json_object_get(doc, "device");
  CHECK(json_is_null(json_object_get(dev, "name")));
  CHECK(json_is_string(json_object_get(dev, "arch")) &&
        strcmp(json_string_value(json_object_get(dev, "arch")), arch) == 0);
  best = json_object_get(doc, "best");
  CHECK(json_is_object(best));
  CHECK(json_is_true(json_object_get(best, "predicted")));
  CHECK(json_is_object(json_object_get(best, "params")));
  CHECK(json_is_integer(json_object_get(best, "id")));
  CHECK(json_object_get(best, "median_ms") == NULL);
  CHECK(json_is_string(json_object_get(best, "rule")));
  CHECK(json_is_real(json_object_get(json_object_get(best, "estimate"),
                                     "occupancy")));
  cands = json_object_get(doc, "candidates");
  CHECK(json_array_size(cands) > 0);
  json_array_foreach(cands, i, c) {
    const char *st = json_string_value(json_object_get(c, "status"));
    CHECK(json_object_get(c, "timings") == NULL);
    CHECK(json_object_get(c, "median_ms") == NULL);
    CHECK(st != NULL && strcmp(st, "ok") != 0);
    if (st && strcmp(st, "compiled") == 0) {
      compiled++;
      CHECK(json_is_integer(json_object_get(
          json_object_get(c, "prediction"), "blocks_per_sm")));
      CHECK(json_integer_value(json_object_get(json_object_get(c, "compile"),
                                               "registers")) > 0);
    }
  }
  CHECK(compiled > 0);
  json_decref(doc);
  TEST_DONE();
}

int main(int argc, char **argv)
{
  static tn_job job;
  tn_tune_opts opts;
  tn_run run;
  tn_err err = {{0}};
  tn_predict_est e;
  int a, b, c, d, pad0, rows4;

  if (argc == 4 && strcmp(argv[1], "check") == 0)
    return check_results(argv[2], argv[3]);
  if (argc != 2)
    return 2;
  if (tn_config_load(argv[1], &job, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  memset(&opts, 0, sizeof(opts));
  memset(&run, 0, sizeof(run));
  run.job = &job;
  run.opts = &opts;
  run.arch = tn_arch_find("sm_80");
  if (tn_space_build(&job, run.arch, &run.space, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  a = find(&run, 32, 4, 1, 0);     /* 32 x 8 = 256 threads, 4224 B */
  b = find(&run, 32, 4, 0, 1);     /* 256 threads, 4096 B */
  c = find(&run, 64, 8, 1, 0);     /* 64 x 8 = 512 threads, 16640 B */
  d = find(&run, 32, 8, 1, 0);     /* 32 x 4 = 128 threads, 4224 B */
  CHECK(a >= 0 && b >= 0 && c >= 0 && d >= 0);
  if (tn_test_failures)
    TEST_DONE();

  /* the estimate on sm_80: 256 threads, 32 registers, 4224 B: threads
   * limit 2048 / 256 = 8 blocks; shared memory 167936 / (4224 + 1024) =
   * 32; registers 65536 / (32 * 32) = 64 warps = 8 blocks */
  {
    int idx[] = {a};
    long long wf[] = {100};
    int regs[] = {32}, sp[] = {0};
    only(&run, idx, wf, regs, sp, 1);
  }
  tn_predict_estimate(&job, run.arch, &run.space.c[a], &e);
  CHECK_EQ_INT(e.blocks_per_sm, 8);
  CHECK(e.occupancy == 1.0);
  CHECK(strcmp(e.limited_by, "threads") == 0);
  CHECK_EQ_INT(e.launched, 4096LL * 4096 / 4);
  /* 255 registers: 8160 per warp, allocated 8192: 8 warps = 1 block */
  run.space.c[a].regs = 255;
  tn_predict_estimate(&job, run.arch, &run.space.c[a], &e);
  CHECK_EQ_INT(e.blocks_per_sm, 1);
  CHECK(e.occupancy == 0.125);
  CHECK(strcmp(e.limited_by, "registers") == 0);
  /* on sm_75 (64 KiB per SM, no reserved KiB, 1024 threads) */
  run.space.c[a].regs = 32;
  tn_predict_estimate(&job, tn_arch_find("sm_75"), &run.space.c[a], &e);
  CHECK_EQ_INT(e.blocks_per_sm, 4);
  CHECK(strcmp(e.limited_by, "threads") == 0);
  /* 64 x 64 + pad: 16640 B + 1 KiB on sm_89 (100 KiB): 5 blocks of 512
   * threads would be 2560 > 1536, threads allow 3 */
  tn_predict_estimate(&job, tn_arch_find("sm_89"), &run.space.c[c], &e);
  CHECK_EQ_INT(e.blocks_per_sm, 3);

  /* nothing compiled: no winner */
  {
    int i;
    for (i = 0; i < run.space.n; i++)
      run.space.c[i].status = TN_ST_PRUNED;
    CHECK_EQ_INT(tn_predict_pick(&run), -1);
  }
  /* fewer wavefronts win over occupancy */
  {
    int idx[] = {a, b, c};
    long long wf[] = {200, 100, 200};
    int regs[] = {32, 255, 32}, sp[] = {0, 0, 0};
    only(&run, idx, wf, regs, sp, 3);
    CHECK_EQ_INT(tn_predict_pick(&run), b);
  }
  /* equal wavefronts: occupancy (255 registers: 1 block of 256) */
  {
    int idx[] = {a, b};
    long long wf[] = {100, 100};
    int regs[] = {32, 255}, sp[] = {0, 0};
    only(&run, idx, wf, regs, sp, 2);
    CHECK_EQ_INT(tn_predict_pick(&run), a);
  }
  /* a spill loses first, whatever its wavefronts */
  {
    int idx[] = {a, b};
    long long wf[] = {100, 500};
    int regs[] = {32, 32}, sp[] = {4, 0};
    only(&run, idx, wf, regs, sp, 2);
    CHECK_EQ_INT(tn_predict_pick(&run), b);
  }
  /* equal wavefronts and occupancy: more work per thread (rows 8 launches
   * half the threads of rows 4) */
  {
    int idx[] = {a, d};
    long long wf[] = {100, 100};
    int regs[] = {32, 32}, sp[] = {0, 0};
    only(&run, idx, wf, regs, sp, 2);
    CHECK_EQ_INT(tn_predict_pick(&run), d);
  }
  /* all else equal: less shared memory (pad 0 + xor against pad 1) */
  pad0 = b;
  rows4 = a;
  {
    int idx[] = {rows4, pad0};
    long long wf[] = {100, 100};
    int regs[] = {32, 32}, sp[] = {0, 0};
    only(&run, idx, wf, regs, sp, 2);
    CHECK_EQ_INT(tn_predict_pick(&run), pad0);
  }
  /* then fewer registers, then the lower id */
  {
    int idx[] = {rows4, pad0};
    long long wf[] = {100, 100};
    int regs[] = {32, 40}, sp[] = {0, 0};
    only(&run, idx, wf, regs, sp, 2);
    run.space.c[rows4].launch.smem_static =
        run.space.c[pad0].launch.smem_static;
    CHECK_EQ_INT(tn_predict_pick(&run), rows4);
    run.space.c[pad0].regs = 32;
    CHECK_EQ_INT(tn_predict_pick(&run),
                 rows4 < pad0 ? rows4 : pad0);
  }
  tn_run_free(&run);
  TEST_DONE();
}

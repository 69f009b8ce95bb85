/* test_sizes.c -- a job's sizes: the nearest-size rule, the winner of each
 * size under the noise rule, the results JSON with its table by size read
 * back by merge's reader, and the run's header with its table compiled as
 * C and its lookup executed.
 *
 *   test_sizes classes         size classes of configs expanded: lists,
 *                              ranges by times and step, a dimension
 *                              named after another, their order
 *   test_sizes predict CONFIG  a prediction's winner at each size (the
 *                              model at that size) and over all of them
 *   test_sizes prune CONFIG    the model prunes no size's cheapest sibling
 *   test_sizes rule            the rule (family/size.h) on hand-worked
 *                              cases (ties, sizes outside the measured
 *                              range), and the header's C lookup against
 *                              tn_size_nearest on 3000 sizes
 *   test_sizes select CONFIG   each size's winner and the single best on a
 *                              synthetic run of CONFIG's space
 *                              (tests/fixtures/configs/cpu-sizes.cfg),
 *                              racing's stop
 *   test_sizes json CONFIG     the results JSON of that run read back by
 *                              tn_fleet_read_doc (and without best_by_size,
 *                              as files written before it), and its header
 *                              compiled with cc -std=c11 -Werror, the
 *                              lookup run on the host */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>

#include "run_util.h"
#include "sizes_util.h"

#include "emit/emit.h"
#include "pipeline/run_header.h"
#include "family/size.h"
#include "fleet/fleet.h"
#include "fleet/predict.h"
#include "pipeline/baselines.h"
#include "pipeline/results.h"
#include "pipeline/select.h"

/* ---- rule ---- */

static tn_size sz(long long a, long long b, long long c, int n)
{
  tn_size s;
  memset(&s, 0, sizeof(s));
  s.n_dims = n;
  s.dims[0] = a;
  s.dims[1] = b;
  s.dims[2] = c;
  return s;
}

/* The GPU run's 13 shapes (configs/gemm-shapes.cfg). */
static int gemm_shapes(tn_size *list)
{
  static const long long m[] = {1, 16, 64, 128, 256, 512, 1024, 2048, 4096,
                                8192};
  int i, n = 0;
  for (i = 0; i < 10; i++)
    list[n++] = sz(m[i], 4096, 4096, 3);
  list[n++] = sz(1024, 1024, 1024, 3);
  list[n++] = sz(2048, 2048, 2048, 3);
  list[n++] = sz(8192, 8192, 8192, 3);
  return n;
}

static int index_of(const tn_size *list, int n, long long a, long long b,
                    long long c)
{
  int i;
  for (i = 0; i < n; i++)
    if (list[i].dims[0] == a && list[i].dims[1] == b &&
        (list[i].n_dims < 3 || list[i].dims[2] == c))
      return i;
  return -1;
}

static void expect_near(const tn_size_keys *k, const tn_size *list, int n,
                        tn_size want, long long a, long long b, long long c)
{
  int got = tn_size_nearest(k, list, n, &want), exp = index_of(list, n, a, b, c);
  if (got != exp || exp < 0) {
    fprintf(stderr, "nearest(%lldx%lldx%lld) = %d, expected %lldx%lldx%lld "
                    "(%d)\n",
            want.dims[0], want.dims[1], want.dims[2], got, a, b, c, exp);
    tn_test_failures++;
  }
}

/* A per-architecture header of family f whose table holds list: the
 * family's defaults at every size (only the sizes matter here). */
static int write_table_header(const tn_family *f, const char *name,
                              const tn_size *list, int n, const char *path)
{
  static tn_problem probs[TN_MAX_SIZES];
  static tn_header_size rows[TN_MAX_SIZES];
  tn_params p;
  tn_header_entry e;
  tn_err err = {{0}};
  char why[256];
  int i, k;
  memset(&p, 0, sizeof(p));
  for (k = 0; k < f->n_params; k++)
    p.v[k].i = f->params[k].def;
  for (i = 0; i < n; i++) {
    tn_problem_defaults(f, &probs[i]);
    probs[i].size = list[i];
    rows[i].problem = &probs[i];
    rows[i].params = &p;
    rows[i].params_text = NULL;
    rows[i].why = "the family's defaults";
  }
  if (f->prepare(f, &p, &probs[0], why, sizeof(why)) != 0)
    return -1;
  memset(&e, 0, sizeof(e));
  e.family = f;
  e.name = name;
  e.arch = "sm_90";
  e.devices = "nowhere";
  e.date = "2026-12-01T00:00:00Z";
  e.params = &p;
  e.problem = &probs[0];
  e.n_sizes = n;
  e.sizes = rows;
  return tn_emit_arch_header(&e, path, &err);
}

static unsigned long long lcg = 12345;
static long long log_uniform(int bits)
{
  double u;
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  u = (double)(lcg >> 11) / 9007199254740992.0;
  return (long long)llround(pow(2.0, u * bits));
}

/* The header's lookup (compiled C) against tn_size_nearest, size by size:
 * the same index for every one of wants. */
static void cross_check(const tn_family *f, const char *name,
                        const tn_size *list, int n, const tn_size *wants,
                        int n_wants)
{
  tn_size_keys k;
  char path[600], prog[2000], *out, *p;
  FILE *w;
  int i, nd = f->n_dims;
  tn_family_size_keys(f, &k);
  snprintf(path, sizeof(path), "%s/out/sm_90/%s.h", tmp, name);
  CHECK(write_table_header(f, name, list, n, path) == 0);
  snprintf(path, sizeof(path), "%s/wants.txt", tmp);
  w = fopen(path, "w");
  CHECK(w != NULL);
  if (w == NULL)
    return;
  for (i = 0; i < n_wants; i++)
    fprintf(w, "%lld %lld %lld\n", wants[i].dims[0], wants[i].dims[1],
            nd > 2 ? wants[i].dims[2] : 0LL);
  fclose(w);
  snprintf(prog, sizeof(prog),
           "#include <stdio.h>\n#include \"sm_90/%s.h\"\n"
           "int main(int argc, char **argv) {\n"
           "  long long a, b, c;\n"
           "  FILE *f = argc > 1 ? fopen(argv[1], \"r\") : NULL;\n"
           "  if (f == NULL) return 1;\n"
           "  while (fscanf(f, \"%%lld %%lld %%lld\", &a, &b, &c) == 3)\n"
           "    printf(\"%%d\\n\", %s_sm_90_nearest_size(a, b%s));\n"
           "  return 0;\n}\n",
           name, name, nd > 2 ? ", c" : "");
  CHECK(build("prog.c", prog,
              "cc -std=c11 -Wall -Wextra -Werror -pedantic -I%s/out -o "
              "%s/prog %s/prog.c && %s/prog %s/wants.txt > %s/prog.out") ==
        0);
  out = tmp_file("prog.out");
  CHECK(out != NULL);
  for (i = 0, p = out; p && i < n_wants; i++) {
    int got = (int)strtol(p, &p, 10);
    int exp = tn_size_nearest(&k, list, n, &wants[i]);
    if (got != exp) {
      fprintf(stderr, "%s: the header's lookup of %lldx%lldx%lld gives %d, "
                      "tn_size_nearest %d\n",
              name, wants[i].dims[0], wants[i].dims[1], wants[i].dims[2],
              got, exp);
      tn_test_failures++;
    }
  }
  CHECK(i == n_wants);
  free(out);
}

static void part_rule(void)
{
  const tn_family *gemm = tn_family_find("gemm");
  const tn_family *tr = tn_family_find("transpose");
  static tn_size wants[3200];
  tn_size list[16], tl[4];
  tn_size_keys gk, tk;
  int n = gemm_shapes(list), nw = 0, i, j;

  CHECK(gemm != NULL && tr != NULL);
  if (gemm == NULL || tr == NULL)
    return;
  tn_family_size_keys(gemm, &gk);
  tn_family_size_keys(tr, &tk);
  CHECK_EQ_INT(gk.n, 3);
  CHECK(strcmp(gk.name[0], "M") == 0 && strcmp(gk.name[2], "K") == 0);
  CHECK_EQ_INT(tk.n, 2);
  CHECK(strcmp(tk.name[0], "aspect") == 0);

  /* a measured size is its own nearest */
  for (i = 0; i < n; i++)
    expect_near(&gk, list, n, list[i], list[i].dims[0], list[i].dims[1],
                list[i].dims[2]);
  /* between 64 and 128 the log midpoint is 90.5: 90 is 64's, 91 128's */
  expect_near(&gk, list, n, sz(90, 4096, 4096, 3), 64, 4096, 4096);
  expect_near(&gk, list, n, sz(91, 4096, 4096, 3), 128, 4096, 4096);
  expect_near(&gk, list, n, sz(100, 4096, 4096, 3), 128, 4096, 4096);
  /* ties go to the larger: 32 is 2x from 16 and from 64, 4 is 4x from 1
   * and from 16 */
  expect_near(&gk, list, n, sz(32, 4096, 4096, 3), 64, 4096, 4096);
  expect_near(&gk, list, n, sz(4, 4096, 4096, 3), 16, 4096, 4096);
  /* 2048x2048x4096 is 2x from 2048^3 (K) and from 2048x4096x4096 (N):
   * the tie goes to the one with more work */
  expect_near(&gk, list, n, sz(2048, 2048, 4096, 3), 2048, 4096, 4096);
  /* outside the measured range: the nearest edge; 0 and below count as 1 */
  expect_near(&gk, list, n, sz(1000000, 4096, 4096, 3), 8192, 4096, 4096);
  expect_near(&gk, list, n, sz(0, 4096, 4096, 3), 1, 4096, 4096);
  expect_near(&gk, list, n, sz(-5, 4096, 4096, 3), 1, 4096, 4096);
  expect_near(&gk, list, n, sz(2147483647LL, 2147483647LL, 2147483647LL, 3),
              8192, 8192, 8192);
  /* 1x1x1 is 4096^2 from 1x4096x4096 and 1024^3 from 1024^3 */
  expect_near(&gk, list, n, sz(1, 1, 1, 3), 1, 4096, 4096);
  /* 1536 squared against 1024^3 and 2048^3: 1.5^3 = 3.375 against
   * (4/3)^3 = 2.37, so 2048^3; against 1024x4096x4096 it is 1.5 * 8/3 *
   * 8/3 = 10.7 */
  expect_near(&gk, list, n, sz(1536, 1536, 1536, 3), 2048, 2048, 2048);
  /* N and K far from 4096 pull a small M to the squares */
  expect_near(&gk, list, n, sz(64, 1024, 1024, 3), 1024, 1024, 1024);
  CHECK_EQ_INT(tn_size_nearest(&gk, list, 0, &list[0]), -1);
  CHECK(tn_size_same(&gk, &list[3], &list[3]));
  CHECK(!tn_size_same(&gk, &list[3], &list[4]));

  /* transpose: by aspect and elements.  2048x512 (4:1, 1 Mi elements)
   * is 4x from 1024^2 in aspect and 4x from 4096x256 (16:1) as well: a
   * tie of equal elements, to the larger first dimension */
  tl[0] = sz(1024, 1024, 0, 2);
  tl[1] = sz(4096, 256, 0, 2);
  tl[2] = sz(8192, 8192, 0, 2);
  tl[3] = sz(256, 4096, 0, 2);
  expect_near(&tk, tl, 4, sz(2048, 512, 0, 2), 4096, 256, 0);
  /* squares: by their elements, 2000^2 is 3.8x from 1024^2 and 16x from
   * 8192^2, 4000^2 15x and 4.2x */
  expect_near(&tk, tl, 4, sz(2000, 2000, 0, 2), 1024, 1024, 0);
  expect_near(&tk, tl, 4, sz(4000, 4000, 0, 2), 8192, 8192, 0);
  expect_near(&tk, tl, 4, sz(6000, 6000, 0, 2), 8192, 8192, 0);
  expect_near(&tk, tl, 4, sz(300, 3000, 0, 2), 256, 4096, 0);
  /* a 1 x N vector: the widest aspect there is */
  expect_near(&tk, tl, 4, sz(1, 100000, 0, 2), 256, 4096, 0);

  /* the header's C against tn_size_nearest: the cases above, every
   * measured size and the midpoints of every pair (ties), and random
   * sizes from 1 to 2^21 per dimension */
  for (i = 0; i < n; i++) {
    wants[nw++] = list[i];
    for (j = 0; j < n; j++) {
      tn_size m = list[i];
      int d;
      for (d = 0; d < 3; d++)
        m.dims[d] = (long long)llround(
            sqrt((double)list[i].dims[d] * (double)list[j].dims[d]));
      wants[nw++] = m;
    }
  }
  wants[nw++] = sz(0, 4096, 4096, 3);
  wants[nw++] = sz(-7, -1, 0, 3);
  wants[nw++] = sz(2147483647LL, 1, 2147483647LL, 3);
  while (nw < 3000)
    wants[nw++] = sz(log_uniform(21), log_uniform(21), log_uniform(21), 3);
  cross_check(gemm, "gemm", list, n, wants, nw);
  for (i = 0; i < 600; i++)
    wants[i] = sz(log_uniform(16), log_uniform(16), 0, 2);
  wants[0] = sz(2048, 512, 0, 2);
  wants[1] = sz(0, 0, 0, 2);
  cross_check(tr, "transpose", tl, 4, wants, 600);
}

/* ---- a synthetic run of three sizes ---- */

static tn_job job;
static tn_tune_opts opts;
static tn_run run;

static void set_time(tn_candidate *c, int k, double ms, double spread)
{
  tn_timing *t = &c->timing[k];
  int j;
  c->status = TN_ST_OK;
  t->median_ms = ms;
  t->min_ms = ms * (1 - spread);
  t->max_ms = ms * (1 + 2 * spread);
  t->q1_ms = ms * (1 - spread / 2);
  t->q3_ms = ms * (1 + spread / 2);
  t->repetitions = 40;
  c->total_ms = 0;
  for (j = 0; j < job.n_problems; j++)
    c->total_ms += c->timing[j].median_ms;
}

/* Candidates a..e of the run, with smem(b) < smem(a), smem(d) < smem(c). */
static int A, B, C, D, E, W;

static int setup_run(const char *config)
{
  tn_err err = {{0}};
  int i, k;
  if (tn_config_load(config, &job, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  CHECK_EQ_INT(job.n_problems, 3);
  memset(&opts, 0, sizeof(opts));
  opts.command = "tuner --config tests/fixtures/configs/cpu-sizes.cfg";
  tn_run_init(&run, &job, &opts);
  tn_test_synthetic_gpu(&run, "2026-12-01");
  if (tn_space_build(&job, run.arch, &run.space, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  /* by id (the enumeration's order): tile 64 pad 1 (10, 11: 16640 bytes
   * of shared memory), tile 64 pad 0 (8: 16384), tile 32 pad 0 (0, 1) and
   * pad 1 (2); model pruning is not applied, all are compiled */
  A = 10, C = 11, D = 8, B = 0, E = 1, W = 2;
  for (i = 0; i < run.space.n; i++)
    if (run.space.c[i].status == TN_ST_PENDING)
      run.space.c[i].status = TN_ST_COMPILED;
  CHECK(run.space.n == 16);
  if (run.space.n != 16)
    return -1;
  CHECK(tn_launch_smem(&run.space.c[B].launch) <
        tn_launch_smem(&run.space.c[A].launch));
  CHECK(tn_launch_smem(&run.space.c[D].launch) <
        tn_launch_smem(&run.space.c[C].launch));
  /* size 0: A fastest, B within 0.5% with less shared memory; W wrong but
   * fastest.  Size 1: C fastest with a 3% spread, D within it with less
   * shared memory, E just outside.  Size 2: E with a 0.4% spread there (D
   * 3.3% slower: no tie, though E's spread at size 0 is 5%).  In total E
   * (6.47 ms), D (6.55) within E's largest spread (5%). */
  set_time(&run.space.c[A], 0, 1.000, 0.004);
  set_time(&run.space.c[B], 0, 1.004, 0.004);
  set_time(&run.space.c[C], 0, 1.200, 0.004);
  set_time(&run.space.c[D], 0, 1.400, 0.004);
  set_time(&run.space.c[E], 0, 1.400, 0.050);
  set_time(&run.space.c[A], 1, 2.500, 0.004);
  set_time(&run.space.c[B], 1, 2.600, 0.004);
  set_time(&run.space.c[C], 1, 2.000, 0.030);
  set_time(&run.space.c[D], 1, 2.050, 0.004);
  set_time(&run.space.c[E], 1, 2.070, 0.004);
  set_time(&run.space.c[A], 2, 3.600, 0.004);
  set_time(&run.space.c[B], 2, 3.700, 0.004);
  set_time(&run.space.c[C], 2, 3.600, 0.004);
  set_time(&run.space.c[D], 2, 3.100, 0.004);
  set_time(&run.space.c[E], 2, 3.000, 0.004);
  for (k = 0; k < 3; k++)
    set_time(&run.space.c[W], k, 0.5, 0.004);
  run.space.c[W].status = TN_ST_WRONG;
  run.n_baselines = 1;
  strcpy(run.baselines[0].name, "memcpy");
  run.baselines[0].status = TN_ST_OK;
  {
    /* one timing of the baseline (baselines.h) */
    tn_baseline_measure m;
    memset(&m, 0, sizeof(m));
    for (k = 0; k < 3; k++) {
      m.timing[k].median_ms = 0.9 + k;
      m.timing[k].q1_ms = 0.9 + k;
      m.timing[k].q3_ms = 0.9 + k;
      m.timing[k].repetitions = 40;
      m.total_ms += 0.9 + k;
    }
    CHECK(tn_baselines_add(&run.baselines[0], &m) == 0);
  }
  tn_select(&run.space, job.bench.min_noise, &run.sel);
  for (k = 0; k < 3; k++)
    tn_select_size(&run.space, k, job.bench.min_noise, &run.sel_size[k]);
  return 0;
}

static void part_select(void)
{
  const tn_selection *s = run.sel_size;
  int l;
  CHECK(job.bench.min_noise == 0.005);
  /* size 0: A is the fastest; the noise is max(min_noise 0.5%, A's
   * spread 0.4%), B (0.4% slower) ties and has less shared memory */
  CHECK_EQ_INT(s[0].fastest, A);
  CHECK_EQ_INT(s[0].best, B);
  CHECK_EQ_INT(s[0].n_ties, 2);
  CHECK(fabs(s[0].noise - 0.005) < 1e-12);
  /* size 1: C's 3% spread is the noise; D ties, E (3.5% slower) not */
  CHECK_EQ_INT(s[1].fastest, C);
  CHECK_EQ_INT(s[1].best, D);
  CHECK_EQ_INT(s[1].n_ties, 2);
  CHECK(fabs(s[1].noise - 0.03) < 1e-9);
  /* size 2: E's noise is its spread there, not its largest */
  CHECK_EQ_INT(s[2].best, E);
  CHECK_EQ_INT(s[2].n_ties, 1);
  CHECK(fabs(s[2].noise - 0.005) < 1e-12);
  CHECK_EQ_INT(s[0].size, 0);
  CHECK_EQ_INT(s[2].size, 2);
  /* the wrong one, fastest everywhere, wins nothing */
  CHECK(s[0].best != W && s[1].best != W && s[2].best != W);
  /* the single best: the sum of the medians, E, with the largest spread
   * of its sizes as noise (5%): D ties, E has less shared memory */
  CHECK_EQ_INT(run.sel.best, E);
  CHECK_EQ_INT(run.sel.fastest, E);
  CHECK_EQ_INT(run.sel.n_ties, 2);
  CHECK_EQ_INT(run.sel.size, -1);
  CHECK(fabs(run.sel.noise - 0.05) < 1e-9);
  /* racing, size by size: the leader at 1 is C, stop 2.0 * 1.03 */
  l = tn_select_leader(&run.space, 1);
  CHECK_EQ_INT(l, C);
  CHECK(fabs(tn_select_stop_ms(&run.space, l, 1, 0.005) - 2.06) < 1e-9);
  l = tn_select_leader(&run.space, 0);
  CHECK_EQ_INT(l, A);
  CHECK(fabs(tn_select_stop_ms(&run.space, l, 0, 0.005) - 1.005) < 1e-9);
  /* on the totals (k < 0), as before per-size winners */
  l = tn_select_leader(&run.space, -1);
  CHECK_EQ_INT(l, E);
  /* a size nobody timed has no winner */
  {
    tn_selection none;
    tn_space empty;
    memset(&empty, 0, sizeof(empty));
    tn_select_size(&empty, 0, 0.01, &none);
    CHECK_EQ_INT(none.best, -1);
    tn_selection_free(&none);
  }
}

static void part_json(void)
{
  json_t *doc = tn_results_json(&run), *by;
  char *text, *htext = NULL;
  mg_run *r = calloc(1, sizeof(*r)), *old = calloc(1, sizeof(*old));
  tn_err err = {{0}};
  int k;

  CHECK(doc != NULL && r != NULL && old != NULL);
  if (doc == NULL || r == NULL || old == NULL)
    return;
  by = json_object_get(doc, "best_by_size");
  CHECK_EQ_INT(json_array_size(by), 3);
  CHECK(json_integer_value(json_object_get(json_array_get(by, 0), "id")) ==
        run.space.c[B].id);
  CHECK(fabs(json_real_value(json_object_get(json_array_get(by, 0),
                                             "single_best_ms")) -
             1.4) < 1e-9);
  CHECK(fabs(json_real_value(json_object_get(json_array_get(by, 1),
                                             "baseline_ms")) -
             1.9) < 1e-9);
  text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
  CHECK(text != NULL);
  /* merge's reader takes it, with each size's winner and noise */
  CHECK(tn_fleet_read_doc("sizes.json", text, strlen(text), NULL, 0, r,
                          &err) == 0);
  if (err.msg[0])
    fprintf(stderr, "%s\n", err.msg);
  CHECK_EQ_INT(r->n_problems, 3);
  CHECK(r->has_sizes);
  CHECK_EQ_INT(r->cands[r->best].id, run.space.c[E].id);
  for (k = 0; k < 3 && r->best >= 0; k++) {
    CHECK(r->best_at[k] >= 0);
    if (r->best_at[k] < 0)
      continue;
    CHECK_EQ_INT(r->cands[r->best_at[k]].id,
                 run.space.c[run.sel_size[k].best].id);
    CHECK(fabs(r->noise_at[k] - run.sel_size[k].noise) < 1e-6);
    CHECK(fabs(r->fastest_at[k] -
               run.space.c[run.sel_size[k].fastest].timing[k].median_ms) <
          1e-6);
    CHECK(fabs(r->baseline_at[k] - (0.9 + k)) < 1e-6);
  }
  free(text);
  /* a file of before per-size winners: best stands for every size */
  json_object_del(doc, "best_by_size");
  text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
  CHECK(tn_fleet_read_doc("old.json", text, strlen(text), NULL, 0, old,
                          &err) == 0);
  CHECK(!old->has_sizes);
  for (k = 0; k < 3; k++) {
    CHECK_EQ_INT(old->best_at[k], old->best);
    CHECK(old->noise_at[k] == old->noise);
  }
  free(text);
  json_decref(doc);
  tn_fleet_run_free(r);
  tn_fleet_run_free(old);

  /* the run's header: the single best's macros and the table by size,
   * compiled as C; the lookup picks each measured size's row */
  snprintf(run.header_path, sizeof(run.header_path), "%s/out/sm_90/sizes.h",
           tmp);
  CHECK(tn_run_header_write(&run, &err) == 0);
  CHECK(tn_run_header_text(&run, &htext, &err) == 0);
  CHECK(htext != NULL && strstr(htext, "over all sizes (the single best)"));
  free(htext);
  {
    char prog[3000];
    const tn_candidate *b = &run.space.c[B], *d = &run.space.c[D],
                       *e = &run.space.c[E];
    snprintf(prog, sizeof(prog),
             "#include <stdio.h>\n#include \"sm_90/sizes.h\"\n"
             "#include \"sm_90/sizes.h\"\n"
             "_Static_assert(SIZES_SM_90_TILE == %lld, \"single best\");\n"
             "_Static_assert(SIZES_SM_90_N_SIZES == 3, \"3 sizes\");\n"
             "_Static_assert(SIZES_N_SIZES == 3, \"short name\");\n"
             "_Static_assert(SIZES_SM_90_SIZE0_ROWS == 256 && "
             "SIZES_SM_90_SIZE2_ROWS == 1024 && SIZES_SIZE1_COLS == 256, "
             "\"sizes\");\n"
             "_Static_assert(SIZES_SM_90_SIZE0_TILE == %lld && "
             "SIZES_SM_90_SIZE0_PAD == %lld, \"size 0: B\");\n"
             "_Static_assert(SIZES_SM_90_SIZE1_TILE == %lld && "
             "SIZES_SIZE1_PAD == %lld, \"size 1: D\");\n"
             "_Static_assert(SIZES_SM_90_SIZE2_TILE == %lld && "
             "SIZES_SM_90_SIZE2_SWIZZLE_B == %d, \"size 2: E\");\n"
             "int main(void) {\n"
             "  printf(\"%%d %%d %%d %%d %%d %%d\\n\",\n"
             "         sizes_sm_90_nearest_size(256, 256),\n"
             "         sizes_sm_90_nearest_size(512, 256),\n"
             "         sizes_sm_90_nearest_size(1024, 256),\n"
             "         sizes_sm_90_nearest_size(1, 1),\n"
             "         sizes_sm_90_nearest_size(100000, 256),\n"
             "         sizes_sm_90_nearest_size(362, 256));\n"
             "  return 0;\n}\n",
             e->params.v[0].i, b->params.v[0].i, b->params.v[3].i,
             d->params.v[0].i, d->params.v[3].i, e->params.v[0].i,
             e->params.v[4].sw.b);
    CHECK(build("prog.c", prog, cc_run) == 0);
    /* 362 is just above the log midpoint of 256 and 512 (362.04): 256 */
    CHECK(contains("prog.out", "0 1 2 0 2 0\n"));
  }
}

/* ---- size classes ---- */

static void expect_sizes(const char *problem, const char *family,
                         const char *want)
{
  static tn_job j;
  tn_err err = {{0}};
  char text[2000], got[2000] = "";
  size_t used = 0;
  int k, d;
  snprintf(text, sizeof(text),
           "family = \"%s\";\ntemplate = \"../../../templates/%s.cu\";\n"
           "problem = { %s };\nspace = { };\n",
           family, family, problem);
  if (tn_config_load_string(text, "tests/fixtures/configs/x.cfg", &j,
                            &err) != 0) {
    fprintf(stderr, "%s: %s\n", problem, err.msg);
    tn_test_failures++;
    return;
  }
  for (k = 0; k < j.n_problems; k++)
    for (d = 0; d < j.problems[k].size.n_dims; d++)
      used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%lld",
                               d ? "x" : k ? " " : "",
                               j.problems[k].size.dims[d]);
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "%s:\n  got  %s\n  want %s\n", problem, got, want);
    tn_test_failures++;
  }
  /* the options are each size's */
  for (k = 0; k < j.n_problems && strcmp(family, "gemm") == 0; k++)
    CHECK(j.problems[k].opt[tn_problem_option_index(j.family, "alpha")] ==
          (strstr(problem, "alpha = 2.0") ? 2.0 : 1.0));
}

static void part_classes(void)
{
  expect_sizes("sizes = [64, 32];", "transpose", "64x32");
  expect_sizes("sizes = { rows = [1, 16]; cols = [8, 4]; };", "transpose",
               "1x8 1x4 16x8 16x4");
  expect_sizes("sizes = ( [9, 9, 9], { M = { from = 1; to = 8; times = 2; "
               "}; N = 5; K = 6; } ); alpha = 2.0;",
               "gemm", "9x9x9 1x5x6 2x5x6 4x5x6 8x5x6");
  /* a geometric range stops at the last value not past to */
  expect_sizes("sizes = { M = { from = 3; to = 100; times = 3; }; N = 1; K "
               "= 1; };",
               "gemm", "3x1x1 9x1x1 27x1x1 81x1x1");
  expect_sizes("sizes = { M = { from = 256; to = 1000; step = 256; }; N = "
               "\"M\"; K = [7, 8]; };",
               "gemm",
               "256x256x7 256x256x8 512x512x7 512x512x8 768x768x7 768x768x8");
  expect_sizes("sizes = { M = [1024, 2048]; N = \"M\"; K = \"M\"; };",
               "gemm", "1024x1024x1024 2048x2048x2048");
  expect_sizes("sizes = { M = 5; N = { from = 2147483646; to = 2147483647; "
               "step = 1000; }; K = { from = 1073741824; to = 2147483647; "
               "times = 2; }; };",
               "gemm", "5x2147483646x1073741824");
  expect_sizes("sizes = { M = { from = 1; to = 64; times = 2; }; N = { from "
               "= 1; to = 8; step = 7; }; K = 1; };",
               "gemm",
               "1x1x1 1x8x1 2x1x1 2x8x1 4x1x1 4x8x1 8x1x1 8x8x1 16x1x1 "
               "16x8x1 32x1x1 32x8x1 64x1x1 64x8x1");
}

/* ---- predictions by size ---- */

static void cost(tn_candidate *c, long long k0, long long k1, long long k2)
{
  c->status = TN_ST_COMPILED;
  c->model[0].ld_wavefronts = k0;
  c->model[1].ld_wavefronts = k1;
  c->model[2].ld_wavefronts = k2;
  c->model[0].st_wavefronts = c->model[1].st_wavefronts =
      c->model[2].st_wavefronts = 0;
  c->model_total = k0 + k1 + k2;
  c->regs = 32;
}

static void part_predict(void)
{
  int i;
  for (i = 0; i < run.space.n; i++)
    run.space.c[i].status = TN_ST_PRUNED;
  /* the fewest wavefronts: A at size 0, C at 1, E at 2, D over all */
  cost(&run.space.c[A], 10, 50, 50);
  cost(&run.space.c[C], 30, 20, 50);
  cost(&run.space.c[E], 30, 50, 30);
  cost(&run.space.c[D], 25, 25, 35);
  CHECK_EQ_INT(tn_predict_pick_size(&run, 0), A);
  CHECK_EQ_INT(tn_predict_pick_size(&run, 1), C);
  CHECK_EQ_INT(tn_predict_pick_size(&run, 2), E);
  CHECK_EQ_INT(tn_predict_pick(&run), D);
  CHECK_EQ_INT(tn_predict_pick_size(&run, -1), D);
}

/* ---- the time model's pruning keeps each size's fastest, and a layout
 * whose wavefront excess is small against its time ---- */

static void part_prune(void)
{
  /* ids 0..3 are siblings (tile 32, 4 rows per thread; pad and swizzle
   * differ), shared-memory bound (10^8 wavefronts a unit).  1 is the
   * cheapest at size 0, 2 costs twice 0's at every size, 3 a tenth more
   * than 0 at every size: small against the time, kept */
  static const double wf[4][3] = {
      {10, 90, 90}, {5, 105, 100}, {20, 180, 180}, {11, 99, 99}};
  int i, k;
  for (i = 0; i < run.space.n; i++)
    run.space.c[i].status = i < 4 ? TN_ST_PENDING : TN_ST_PRUNED;
  for (i = 0; i < 4; i++) {
    tn_candidate *c = &run.space.c[i];
    c->model_total = 0;
    for (k = 0; k < 3; k++) {
      c->model[k].ld_wavefronts = (long long)(wf[i][k] * 1e8);
      c->model[k].st_wavefronts = 0;
      c->model_total += c->model[k].ld_wavefronts;
    }
  }
  CHECK_EQ_INT(tn_space_prune(&job, &run.space), 1);
  CHECK_EQ_INT(run.space.c[0].status, TN_ST_PENDING);
  CHECK_EQ_INT(run.space.c[1].status, TN_ST_PENDING);
  CHECK_EQ_INT(run.space.c[2].status, TN_ST_PRUNED);
  CHECK_EQ_INT(run.space.c[2].pruned_by, TN_BY_TIME_MODEL);
  CHECK(strstr(run.space.c[2].reason, "predicted") != NULL);
  CHECK_EQ_INT(run.space.c[3].status, TN_ST_PENDING);
  CHECK(run.space.c[3].pred_total.ms > run.space.c[0].pred_total.ms);
}

int main(int argc, char **argv)
{
  const char *part = argc > 1 ? argv[1] : "";
  tmp_make("sizes");
  if (strcmp(part, "rule") == 0) {
    part_rule();
  } else if (strcmp(part, "classes") == 0) {
    part_classes();
  } else if ((strcmp(part, "select") == 0 || strcmp(part, "json") == 0 ||
              strcmp(part, "predict") == 0 || strcmp(part, "prune") == 0) &&
             argc == 3) {
    if (setup_run(argv[2]) == 0) {
      if (strcmp(part, "select") == 0)
        part_select();
      else if (strcmp(part, "predict") == 0)
        part_predict();
      else if (strcmp(part, "prune") == 0)
        part_prune();
      else
        part_json();
    }
    tn_run_free(&run);
  } else {
    fprintf(stderr, "usage: test_sizes rule | classes | select CONFIG | "
                    "json CONFIG | predict CONFIG | prune CONFIG\n");
    tn_test_failures++;
  }
  tmp_remove();
  TEST_DONE();
}

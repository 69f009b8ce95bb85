/* test_sizes_merge.c -- `tuner merge` of per-size tables: results files of
 * three sizes from two devices of one architecture and another
 * architecture, over two nights and a prediction, merged into headers
 * whose tables by size are compiled and looked up.
 *
 *   test_sizes_merge PART
 *
 * PART: rules (each architecture's and device's winner of each size),
 * fallback (NAME_lookup_size walks exact device -> architecture -> nearest
 * older -> default, then the nearest size: run on the host, compiled with
 * cc -std=c11 -Werror), history (the nights kept and merged again, a
 * regression reported at the size it happened), bad_input (tables by size
 * that disagree with their file: exit 2, FILE: JSON path: what, nothing
 * written), cuda (the per-architecture header under NVRTC, its macros by
 * size in a kernel; the headers in a .cu built by nvcc for sm_80 and
 * sm_90, the macros of each size in device code and the host lookup run;
 * 77 without nvcc).
 *
 * Sizes S0 512x512, S1 4096x4096, S2 8192x1024; configurations C0..C4 of
 * the transpose family.  Times in ms at S0, S1, S2 (each size's winner is
 * the fastest there, the single best the least total):
 *
 *   night 1 (2026-11-28)
 *     H100 (sm_90, host h)  C0 .5 3 2    C1 .6 2 2.2  C2 .7 2.5 1.5
 *                           C3 .9 2.2 2  -> S0 C0, S1 C1, S2 C2; best C2
 *     A100 (sm_80, host a)  C2 .4 1.0 1.5  C3 .6 1.2 1.0
 *                           C4 .5 .9 2    -> C2, C4, C3; best C3
 *   night 2 (2026-11-29)
 *     H100 (host h)         C0 1.0 3 2   C1 .6 2 2.2  C2 .7 2.5 1.5
 *                           C3 .45 2.2 2 -> C3, C1, C2; best C3
 *                           (C0 at S0 went from 0.5 to 1.0: a regression
 *                           at that size only)
 *     H200 (sm_90, host g)  C0 .3 3 2    C1 .6 1.8 2.2  C2 .7 2.5 1.35
 *                           C3 .4 2.1 2  -> C0, C1, C2; best C3
 *     prediction sm_75      C0, C1, C1 by size; best C1
 *
 * sm_90's night-2 runs disagree at S0: each run's fastest over the
 * configuration's time there, C0: .45/1.0 and .3/.3 (geomean 0.671), C3:
 * 1 and .75 (0.866): C3.  At S1 and S2 both agree (C1, C2).  Its single
 * best: totals C0 6 / 5.3, C1 4.8 / 4.6, C2 4.7 / 4.55, C3 4.65 / 4.5:
 * C3 is both runs' fastest. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>

#include "fleet_configs.h"
#include "sizes_util.h"

#include "base/arch.h"
#include "base/util.h"
#include "pipeline/compile.h"

#define N_SIZES 3
static const long long SIZES[N_SIZES][2] = {{512, 512}, {4096, 4096},
                                            {8192, 1024}};

typedef struct {
  int cfg;
  double ms[N_SIZES]; /* 0: failed */
} cand_spec;

typedef struct {
  const char *arch;
  const char *device; /* NULL: a prediction */
  const char *host;
  const char *started;
  int n;
  cand_spec c[N_CFG];
  int predicted_at[N_SIZES]; /* a prediction's winners by size */
  int predicted_best;
} run_spec;

static double total(const cand_spec *c)
{
  double t = 0;
  int k;
  for (k = 0; k < N_SIZES; k++)
    t += c->ms[k];
  return t;
}

static json_t *size_json(int k)
{
  return json_pack("[II]", (json_int_t)SIZES[k][0], (json_int_t)SIZES[k][1]);
}

/* The results document of s: candidates timed at every size, best (the
 * least total) and best_by_size (the fastest at each size). */
static json_t *results_doc(const run_spec *s)
{
  json_t *cands = json_array(), *probs = json_array(), *by = json_array();
  json_t *best, *dev, *doc;
  int i, k, b = -1, at[N_SIZES];

  for (k = 0; k < N_SIZES; k++) {
    json_array_append_new(probs,
                          json_pack("{s:o, s:f}", "size", size_json(k),
                                    "work", 1e6));
    at[k] = -1;
  }
  for (i = 0; i < s->n; i++) {
    const cand_spec *c = &s->c[i];
    char text[256];
    json_t *o, *t = json_array();
    cfg_text(c->cfg, text, sizeof(text));
    o = json_pack("{s:i, s:o, s:s}", "id", c->cfg, "params", cfg_json(c->cfg),
                  "params_text", text);
    if (s->device == NULL) {
      json_object_set_new(o, "status", json_string("compiled"));
    } else if (c->ms[0] > 0) {
      for (k = 0; k < N_SIZES; k++) {
        json_array_append_new(
            t, json_pack("{s:f, s:f, s:f, s:f, s:f, s:i}", "median_ms",
                         c->ms[k], "min_ms", c->ms[k] * 0.99, "max_ms",
                         c->ms[k] * 1.05, "q1_ms", c->ms[k] * 0.998,
                         "q3_ms", c->ms[k] * 1.002, "repetitions", 30));
        if (at[k] < 0 || c->ms[k] < s->c[at[k]].ms[k])
          at[k] = i;
      }
      json_object_set_new(o, "status", json_string("ok"));
      json_object_set_new(o, "median_ms", json_real(total(c)));
      json_object_set_new(o, "timings", t);
      t = NULL;
      if (b < 0 || total(c) < total(&s->c[b]))
        b = i;
    } else {
      json_object_set_new(o, "status", json_string("failed"));
      json_object_set_new(o, "reason", json_string("launch failed"));
    }
    json_decref(t);
    json_array_append_new(cands, o);
  }
  if (s->device != NULL && b < 0) {
    best = json_null(); /* nothing verified: no winner, no table */
    dev = json_pack("{s:s, s:s, s:i}", "name", s->device, "arch", s->arch,
                    "ordinal", 0);
  } else if (s->device == NULL) {
    best = json_pack("{s:i, s:o, s:b, s:s}", "id", s->predicted_best,
                     "params", cfg_json(s->predicted_best), "predicted", 1,
                     "rule", "model");
    for (k = 0; k < N_SIZES; k++)
      json_array_append_new(
          by, json_pack("{s:i, s:o, s:i, s:o, s:b}", "problem", k, "size",
                        size_json(k), "id", s->predicted_at[k], "params",
                        cfg_json(s->predicted_at[k]), "predicted", 1));
    dev = json_pack("{s:n, s:s, s:b}", "name", "arch", s->arch, "predicted",
                    1);
  } else {
    best = json_pack("{s:i, s:o, s:f, s:f, s:s}", "id", s->c[b].cfg,
                     "params", cfg_json(s->c[b].cfg), "median_ms",
                     total(&s->c[b]), "noise", 0.01, "rule", "fastest");
    for (k = 0; k < N_SIZES; k++) {
      const cand_spec *w = &s->c[at[k]];
      json_array_append_new(
          by, json_pack("{s:i, s:o, s:i, s:o, s:f, s:f, s:i}", "problem", k,
                        "size", size_json(k), "id", w->cfg, "params",
                        cfg_json(w->cfg), "median_ms", w->ms[k], "noise",
                        0.01, "fastest_id", w->cfg));
    }
    dev = json_pack("{s:s, s:s, s:i, s:s}", "name", s->device, "arch",
                    s->arch, "ordinal", 0, "driver_cuda_version", "13.0");
  }
  doc = json_pack(
      "{s:s, s:{s:s}, s:{s:s, s:s, s:s, s:b}, s:s, s:s, s:o, s:o, s:o, "
      "s:o, s:o}",
      "schema", "tuner-results/1", "tool", "nvrtc", "13.0", "run", "host",
      s->host, "started", s->started, "finished", s->started, "interrupted",
      0, "family", "transpose", "name", "tr", "device", dev, "problems",
      probs, "candidates", cands, "best", best, "best_by_size", by);
  if (s->device == NULL)
    json_object_set_new(doc, "predicted", json_true());
  json_object_set_new(
      doc, "baselines",
      s->device ? json_pack("[{s:s, s:s, s:f, s:[{s:f}, {s:f}, {s:f}]}]",
                            "name", "memcpy", "status", "ok", "median_ms",
                            3.0, "timings", "median_ms", 0.25, "median_ms",
                            1.5, "median_ms", 1.25)
                : json_array());
  return doc;
}

static void write_doc(json_t *doc, const char *rel)
{
  char path[600], dir[600];
  tn_err err = {{0}};
  snprintf(path, sizeof(path), "%s/%s", tmp, rel);
  tn_dirname(dir, sizeof(dir), path);
  CHECK(tn_mkdirs(dir, &err) == 0);
  CHECK(json_dump_file(doc, path, JSON_INDENT(1)) == 0);
  json_decref(doc);
}

static const run_spec H100_N1 = {
    "sm_90", "NVIDIA H100 80GB HBM3", "h", "2026-11-28T02:10:00Z", 4,
    {{0, {.5, 3, 2}}, {1, {.6, 2, 2.2}}, {2, {.7, 2.5, 1.5}},
     {3, {.9, 2.2, 2}}},
    {0}, 0};
static const run_spec A100_N1 = {
    "sm_80", "NVIDIA A100-SXM4-40GB", "a", "2026-11-28T02:05:00Z", 3,
    {{2, {.4, 1.0, 1.5}}, {3, {.6, 1.2, 1.0}}, {4, {.5, .9, 2}}}, {0}, 0};
static const run_spec H100_N2 = {
    "sm_90", "NVIDIA H100 80GB HBM3", "h", "2026-11-29T02:10:00Z", 4,
    {{0, {1.0, 3, 2}}, {1, {.6, 2, 2.2}}, {2, {.7, 2.5, 1.5}},
     {3, {.45, 2.2, 2}}},
    {0}, 0};
static const run_spec H200_N2 = {
    "sm_90", "NVIDIA H200", "g", "2026-11-29T03:00:00Z", 4,
    {{0, {.3, 3, 2}}, {1, {.6, 1.8, 2.2}}, {2, {.7, 2.5, 1.35}},
     {3, {.4, 2.1, 2}}},
    {0}, 0};
static const run_spec P75_N2 = {
    "sm_75", NULL, "ci", "2026-11-29T01:00:00Z", 3,
    {{0, {0}}, {1, {0}}, {4, {0}}}, {0, 1, 1}, 1};

static void write_fleet(void)
{
  write_doc(results_doc(&H100_N1), "night1/h100.json");
  write_doc(results_doc(&A100_N1), "night1/a100.json");
  write_doc(results_doc(&H100_N2), "night2/h100.json");
  write_doc(results_doc(&H200_N2), "night2/h200.json");
  write_doc(results_doc(&P75_N2), "night2/p75.json");
}

static int merge_nights(void)
{
  char out[400], n1[400], n2[400];
  const char *args[] = {"-o", out, n1, n2, NULL};
  snprintf(out, sizeof(out), "%s/out", tmp);
  snprintf(n1, sizeof(n1), "%s/night1", tmp);
  snprintf(n2, sizeof(n2), "%s/night2", tmp);
  return merge(args);
}

/* tile and rows_per_thread of Cn, for the compiler's checks */
#define T(n) C[n].tile, C[n].rows

static void part_rules(void)
{
  char prog[4000];
  CHECK_EQ_INT(merge_nights(), 0);
  CHECK(exists("out/sm_90/tr.h") && exists("out/sm_80/tr.h") &&
        exists("out/sm_75/tr.h") && exists("out/tr_dispatch.h"));
  CHECK(contains("out/sm_90/tr.h", "#define TR_SM_90_N_SIZES 3"));
  CHECK(contains("out/sm_90/tr.h", "/* size 0: 512x512: best geometric "
                                   "mean over 2 runs on 2 device models"));
  CHECK(contains("out/sm_80/tr.h", "size 2: 8192x1024: the winner of the "
                                   "one run of the latest night (host a"));
  CHECK(contains("out/sm_75/tr.h", "size 1: 4096x4096: predicted by the "
                                   "model for sm_75"));
  CHECK(contains("merge.out", "by size: 3 sizes, 1 with a winner of their "
                              "own"));
  snprintf(prog, sizeof(prog),
           "#define TUNER_ONLY_ARCH_NAMES\n"
           "#include \"sm_75/tr.h\"\n#include \"sm_80/tr.h\"\n"
           "#include \"sm_90/tr.h\"\n"
           "/* sm_90, night 2: S0 by the geometric mean C3, S1 C1, S2 C2; "
           "single best C3 */\n"
           "_Static_assert(TR_SM_90_SIZE0_TILE == %d && "
           "TR_SM_90_SIZE0_ROWS_PER_THREAD == %d, \"sm_90 S0\");\n"
           "_Static_assert(TR_SM_90_SIZE1_TILE == %d && "
           "TR_SM_90_SIZE1_ROWS_PER_THREAD == %d, \"sm_90 S1\");\n"
           "_Static_assert(TR_SM_90_SIZE2_TILE == %d && "
           "TR_SM_90_SIZE2_ROWS_PER_THREAD == %d, \"sm_90 S2\");\n"
           "_Static_assert(TR_SM_90_TILE == %d && TR_SM_90_GROUP == 8, "
           "\"sm_90 single\");\n"
           "/* sm_80: night 1 only (nothing newer measured it) */\n"
           "_Static_assert(TR_SM_80_SIZE0_TILE == %d && "
           "TR_SM_80_SIZE0_ROWS_PER_THREAD == %d, \"sm_80 S0\");\n"
           "_Static_assert(TR_SM_80_SIZE1_TILE == %d, \"sm_80 S1\");\n"
           "_Static_assert(TR_SM_80_SIZE2_TILE == %d && "
           "TR_SM_80_SIZE2_GROUP == 8, \"sm_80 S2\");\n"
           "/* sm_75: the prediction's winners by size */\n"
           "_Static_assert(TR_SM_75_SIZE0_TILE == %d && "
           "TR_SM_75_SIZE2_TILE == %d && TR_SM_75_PREDICTED, \"sm_75\");\n"
           "_Static_assert(TR_SM_90_SIZE2_ROWS == 8192 && "
           "TR_SM_90_SIZE2_COLS == 1024, \"S2\");\n"
           "int main(void) { return 0; }\n",
           T(3), T(1), T(2), C[3].tile, T(2), C[4].tile, C[3].tile,
           C[0].tile, C[1].tile);
  CHECK(build("prog.c", prog, cc_run) == 0);
}

static void part_fallback(void)
{
  char prog[6000];
  CHECK_EQ_INT(merge_nights(), 0);
  snprintf(
      prog, sizeof(prog),
      "#include <stdio.h>\n#include <string.h>\n"
      "#include \"tr_dispatch.h\"\n"
      "static int bad;\n"
      "static void expect(const char *dev, int ma, int mi, long long r,\n"
      "                   long long c, int tile, int rows, int size,\n"
      "                   const char *source, int exact) {\n"
      "  const tr_config *e = tr_lookup_size(dev, ma, mi, r, c);\n"
      "  if (e == NULL || e->tile != tile || e->rows_per_thread != rows ||\n"
      "      e->size_index != size || strcmp(e->source, source) != 0 ||\n"
      "      (e->device_name != NULL) != exact ||\n"
      "      (size >= 0 && (e->size[0] == 0 || e->size[1] == 0))) {\n"
      "    printf(\"lookup_size(%%s, %%d.%%d, %%lldx%%lld): %%s size %%d "
      "(%%s), want tile=%%d rows=%%d size %%d %%s\\n\",\n"
      "           dev ? dev : \"NULL\", ma, mi, r, c, e ? e->params : "
      "\"NULL\",\n"
      "           e ? e->size_index : -9, e ? e->source : \"\", tile, "
      "rows, size, source);\n"
      "    bad++;\n  }\n}\n"
      "int main(void) {\n"
      "  /* 1. the exact device: night 2's H100 has C3 at S0 */\n"
      "  expect(\"NVIDIA H100 80GB HBM3\", 9, 0, 512, 512, %d, %d, 0, "
      "\"measured\", 1);\n"
      "  /* ...and the H200 its own C0 */\n"
      "  expect(\"NVIDIA H200\", 9, 0, 512, 512, %d, %d, 0, \"measured\", "
      "1);\n"
      "  expect(\"NVIDIA H200\", 9, 0, 300, 700, %d, %d, 0, \"measured\", "
      "1);\n"
      "  /* 2. the architecture: the geometric mean's C3 at S0, C1 at S1 "
      "*/\n"
      "  expect(NULL, 9, 0, 512, 512, %d, %d, 0, \"measured\", 0);\n"
      "  expect(\"NVIDIA H800\", 9, 0, 5000, 5000, %d, %d, 1, \"measured\", "
      "0);\n"
      "  /* the nearest size, outside the measured range too */\n"
      "  expect(NULL, 9, 0, 100000, 12000, %d, %d, 2, \"measured\", 0);\n"
      "  expect(NULL, 9, 0, 1, 1, %d, %d, 0, \"measured\", 0);\n"
      "  expect(NULL, 9, 0, 0, -3, %d, %d, 0, \"measured\", 0);\n"
      "  /* 3. nearest older: sm_86 and sm_89 -> sm_80 (night 1), sm_100 "
      "-> sm_90 */\n"
      "  expect(\"NVIDIA RTX A6000\", 8, 6, 8192, 1024, %d, %d, 2, "
      "\"measured\", 0);\n"
      "  expect(NULL, 8, 9, 4096, 4096, %d, %d, 1, \"measured\", 0);\n"
      "  expect(NULL, 10, 0, 8192, 1024, %d, %d, 2, \"measured\", 0);\n"
      "  /* a device of sm_80: its own runs, here the architecture's */\n"
      "  expect(\"NVIDIA A100-SXM4-40GB\", 8, 0, 512, 512, %d, %d, 0, "
      "\"measured\", 1);\n"
      "  /* a predicted architecture */\n"
      "  expect(\"Tesla T4\", 7, 5, 4096, 4096, %d, %d, 1, \"predicted\", "
      "0);\n"
      "  /* 4. older than every entry: the default, which has no sizes */\n"
      "  expect(NULL, 7, 0, 512, 512, 32, 4, -1, \"default\", 0);\n"
      "  /* the plain lookup is unchanged: the single best */\n"
      "  if (tr_lookup(NULL, 9, 0)->tile != %d || tr_lookup(NULL, 9, "
      "0)->size_index != -1) bad++;\n"
      "  return bad;\n}\n",
      T(3), T(0), T(0), T(3), T(1), T(2), T(3), T(3), T(3), T(4), T(2),
      T(2), T(1), C[3].tile);
  CHECK(build("prog.c", prog, cc_run) == 0);
  {
    char *o = tmp_file("prog.out");
    if (o && o[0])
      fprintf(stderr, "%s", o);
    free(o);
  }
  /* a second translation unit with the headers links (static tables) */
  CHECK(build("second.c",
              "#define TUNER_ONLY_ARCH_NAMES\n"
              "#include \"sm_90/tr.h\"\n#include \"tr_dispatch.h\"\n"
              "const void *second(void) { return tr_lookup_size(\"x\", 8, "
              "0, 1, 2); }\n",
              "cc -std=c11 -Wall -Wextra -Werror -pedantic -I%s/out -c -o "
              "%s/second.o %s/second.c") == 0);
}

static void part_history(void)
{
  char out[400], hist[400], n1[400], n2[400];
  const char *a1[] = {"-o", out, "--history", hist, n1, NULL};
  const char *a2[] = {"-o", out, "--history", hist, "--fail-on-regression",
                      n2, NULL};
  const char *a3[] = {"-o", out, hist, NULL};
  snprintf(out, sizeof(out), "%s/out", tmp);
  snprintf(hist, sizeof(hist), "%s/history", tmp);
  snprintf(n1, sizeof(n1), "%s/night1", tmp);
  snprintf(n2, sizeof(n2), "%s/night2", tmp);
  CHECK_EQ_INT(merge(a1), 0);
  CHECK(contains("out/sm_90/tr.h", "#define TR_SM_90_SIZE0_TILE 32"));
  /* night 2 against the kept night 1: on the H100, C0 went from 0.5 to
   * 1.0 ms at 512x512 and nowhere else; C3 got faster there */
  CHECK_EQ_INT(merge(a2), TN_EXIT_REGRESSION);
  CHECK(contains("merge.err", "REGRESSION: 1 configuration and size slower "
                              "beyond noise on NVIDIA H100 80GB HBM3"));
  CHECK(contains("merge.err",
                 "  at 512x512:  tile=32 rows_per_thread=2 vec=1 pad=1 "
                 "swizzle=none group=1: 0.5000 -> 1.0000 ms (+100.0%"));
  {
    char *e = tmp_file("merge.err");
    CHECK(e && strstr(e, "at 4096x4096") == NULL &&
          strstr(e, "at 8192x1024") == NULL);
    free(e);
  }
  /* the history alone gives the same tables (sm_80 from night 1) */
  CHECK_EQ_INT(merge(a3), 0);
  CHECK(contains("out/sm_90/tr.h", "#define TR_SM_90_SIZE0_TILE 64"));
  CHECK(contains("out/sm_80/tr.h", "#define TR_SM_80_SIZE1_TILE 16"));
  CHECK(contains("merge.out", "5 results (0 given, 5 from the history)") ||
        contains("merge.out", "5 results (5 given, 0 from the history)"));
}

/* A bad file next to a good one: exit 2, "FILE: what", nothing written. */
static void expect_bad(const char *what, json_t *doc, const char *message)
{
  char bad[600], good[600], out[400], hist[400], msg[1400];
  const char *args[] = {"-o", out, "--history", hist, good, bad, NULL};
  int status;
  snprintf(bad, sizeof(bad), "%s/bad/%s.json", tmp, what);
  snprintf(good, sizeof(good), "%s/night1/h100.json", tmp);
  snprintf(out, sizeof(out), "%s/bad-out", tmp);
  snprintf(hist, sizeof(hist), "%s/bad-history", tmp);
  snprintf(msg, sizeof(msg), "bad/%s.json", what);
  write_doc(doc, msg);
  status = merge(args);
  if (status != 2)
    fprintf(stderr, "%s: exit %d, expected 2\n", what, status);
  CHECK_EQ_INT(status, 2);
  snprintf(msg, sizeof(msg), "tuner merge: %s: %s", bad, message);
  CHECK(contains("merge.err", msg));
  CHECK(!exists("bad-out"));
  CHECK(!exists("bad-history"));
}

static json_t *by_entry(json_t *d, int k)
{
  return json_array_get(json_object_get(d, "best_by_size"), (size_t)k);
}

static void part_bad_input(void)
{
  json_t *d;
  d = results_doc(&H100_N2);
  json_array_remove(json_object_get(d, "best_by_size"), 2);
  expect_bad("by-short", d, "best_by_size: 2 entries for 3 problems");
  d = results_doc(&H100_N2);
  json_object_set_new(d, "best_by_size", json_string("C3"));
  expect_bad("by-type", d, "best_by_size: expected an array");
  d = results_doc(&H100_N2);
  json_array_set_new(json_object_get(d, "best_by_size"), 1, json_integer(3));
  expect_bad("by-entry", d, "best_by_size[1]: expected an object");
  d = results_doc(&H100_N2);
  json_object_set_new(by_entry(d, 1), "problem", json_integer(2));
  expect_bad("by-problem", d, "best_by_size[1].problem: 2, expected 1");
  d = results_doc(&H100_N2);
  json_object_set_new(by_entry(d, 2), "size", json_pack("[ii]", 8192, 8192));
  expect_bad("by-size", d, "best_by_size[2].size: not problems[2].size");
  d = results_doc(&H100_N2);
  json_object_del(by_entry(d, 0), "id");
  expect_bad("by-no-id", d, "best_by_size[0].id: missing");
  d = results_doc(&H100_N2);
  json_object_set_new(by_entry(d, 0), "id", json_integer(7));
  expect_bad("by-id", d, "best_by_size[0].id: 7 is not the id of a "
                         "candidate");
  d = results_doc(&H100_N2);
  json_object_set_new(by_entry(d, 0), "params", cfg_json(1));
  expect_bad("by-params", d, "best_by_size[0].params: not the params of "
                             "candidates[3] (id 3)");
  d = results_doc(&H100_N2);
  json_object_set_new(json_object_get(by_entry(d, 0), "params"), "tile",
                      json_integer(48));
  expect_bad("by-bad-params", d, "best_by_size[0].params: not a valid "
                                 "transpose configuration: tile 48");
  d = results_doc(&H100_N2);
  json_object_set_new(by_entry(d, 0), "params_text", json_string("tile=1"));
  expect_bad("by-text", d, "best_by_size[0].params_text: not "
                           "candidates[3].params_text");
  /* C1 is not the winner at S0 (0.6 ms against C3's 0.45) */
  d = results_doc(&H100_N2);
  json_object_set_new(by_entry(d, 0), "id", json_integer(1));
  json_object_set_new(by_entry(d, 0), "params", cfg_json(1));
  json_object_set_new(by_entry(d, 0), "median_ms", json_real(0.6));
  expect_bad("by-slow", d, "best_by_size[0].id: candidate 1 takes 0.6 ms at "
                           "this size, more than the fastest there (0.45 "
                           "ms) and the noise (0.01) allow");
  d = results_doc(&H100_N2);
  json_object_set_new(by_entry(d, 1), "noise", json_real(-0.5));
  expect_bad("by-noise", d, "best_by_size[1].noise: -0.5 is outside");
  d = results_doc(&H100_N2);
  json_object_del(by_entry(d, 1), "noise");
  expect_bad("by-no-noise", d, "best_by_size[1].noise: missing");
  d = results_doc(&H100_N2);
  json_object_set_new(by_entry(d, 2), "median_ms", json_real(1.2));
  expect_bad("by-median", d, "best_by_size[2].median_ms: 1.2, but "
                             "candidate 2 has 1.5 at this size");
  d = results_doc(&H100_N2);
  json_object_set_new(by_entry(d, 1), "fastest_id", json_integer(0));
  expect_bad("by-fastest", d, "best_by_size[1].fastest_id: 0 is not the "
                              "fastest \"ok\" candidate at this size");
  d = results_doc(&H100_N2);
  json_object_set_new(by_entry(d, 1), "predicted", json_true());
  expect_bad("by-predicted", d, "best_by_size[1].predicted: true, but the "
                                "results are measured");
  /* a failed candidate as a winner */
  {
    run_spec s = H100_N2;
    s.c[1].ms[0] = s.c[1].ms[1] = s.c[1].ms[2] = 0; /* C1 failed */
    d = results_doc(&s);
    json_object_set_new(by_entry(d, 1), "id", json_integer(1));
    json_object_set_new(by_entry(d, 1), "params", cfg_json(1));
    expect_bad("by-failed", d, "best_by_size[1].id: candidate 1 is not "
                               "\"ok\"");
  }
  d = results_doc(&P75_N2);
  json_object_del(by_entry(d, 2), "predicted");
  expect_bad("by-unpredicted", d, "best_by_size[2].predicted: missing");
  /* a table by size without a winner */
  {
    run_spec s = H100_N2;
    int i;
    for (i = 0; i < s.n; i++)
      s.c[i].ms[0] = s.c[i].ms[1] = s.c[i].ms[2] = 0;
    d = results_doc(&s);
    json_object_set_new(d, "best", json_null());
    json_object_set_new(d, "best_by_size", json_array());
    expect_bad("by-no-best", d, "best_by_size: a table by size, but best is "
                                "null");
  }
}

static void part_cuda(void)
{
  char cmd[1200];
  char prog[3000];
  int i;
  static const char *const archs[] = {"sm_80", "sm_90"};
  if (system("command -v nvcc >/dev/null 2>&1 || "
             "test -x /usr/local/cuda/bin/nvcc") != 0) {
    printf("no nvcc: skipped\n");
    exit(77);
  }
  CHECK_EQ_INT(merge_nights(), 0);
  /* NVRTC (a kernel compiled at run time): the per-architecture header's
   * macros by size, without its host lookup */
  {
    tn_template t;
    tn_err err = {{0}};
    void *cubin = NULL;
    size_t len = 0;
    char *log = NULL, *text = tmp_file("out/sm_90/tr.h");
    CHECK(text != NULL);
    memset(&t, 0, sizeof(t));
    t.n_headers = 1;
    t.header_names[0] = (char *)"tr.h";
    t.header_texts[0] = text;
    if (text && tn_compile_source(
                    "#include \"tr.h\"\n"
                    "extern \"C\" __global__ void k(float *x) {\n"
                    "  __shared__ float s[TR_SM_90_SIZE1_TILE * "
                    "TR_SM_90_SIZE1_TILE];\n"
                    "  static_assert(TR_SM_90_N_SIZES == 3, \"sizes\");\n"
                    "  s[threadIdx.x] = x[threadIdx.x]; __syncthreads();\n"
                    "  x[threadIdx.x] = s[TR_SIZE2_TILE - 1];\n}\n",
                    "k.cu", &t, tn_arch_find("sm_90"), &cubin, &len, &log,
                    &err) != 0) {
      fprintf(stderr, "NVRTC: %s%s\n", err.msg, log ? log : "");
      tn_test_failures++;
    }
    free(cubin);
    free(log);
    free(text);
  }
  snprintf(prog, sizeof(prog),
           "#include <cstdio>\n"
           "#define TUNER_ONLY_ARCH_NAMES\n"
           "#include \"sm_80/tr.h\"\n#include \"sm_90/tr.h\"\n"
           "#include \"tr_dispatch.h\"\n"
           "/* a kernel for each size, its tile from that size's macros */\n"
           "template <int TILE> __global__ void k(float *x) {\n"
           "  __shared__ float s[TILE * TILE];\n"
           "  s[threadIdx.x %% (TILE * TILE)] = x[threadIdx.x];\n"
           "  __syncthreads();\n  x[threadIdx.x] = s[0];\n}\n"
           "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n"
           "static_assert(TR_SM_90_SIZE0_TILE == %d, \"sm_90 S0\");\n"
           "#endif\n"
           "template __global__ void k<TR_SM_90_SIZE0_TILE>(float *);\n"
           "template __global__ void k<TR_SM_90_SIZE2_TILE>(float *);\n"
           "template __global__ void k<TR_SM_80_SIZE1_TILE>(float *);\n"
           "int main() {\n"
           "  const tr_config *c = tr_lookup_size(NULL, 9, 0, 5000, 5000);\n"
           "  const tr_config *d = tr_lookup_size(NULL, 8, 6, 8192, 1000);\n"
           "  std::printf(\"%%d %%d %%d %%d\\n\", c->tile, c->size_index, "
           "d->tile, d->size_index);\n"
           "  return c->tile == %d && c->size_index == 1 && d->tile == %d && "
           "d->size_index == 2 ? 0 : 1;\n}\n",
           C[3].tile, C[1].tile, C[3].tile);
  CHECK(write_text("use.cu", prog) == 0);
  for (i = 0; i < 2; i++) {
    snprintf(cmd, sizeof(cmd),
             "PATH=$PATH:/usr/local/cuda/bin nvcc -arch=%s -std=c++17 "
             "-Werror all-warnings -I%s/out -o %s/use-%s %s/use.cu && "
             "%s/use-%s",
             archs[i], tmp, tmp, archs[i], tmp, tmp, archs[i]);
    if (system(cmd) != 0) {
      fprintf(stderr, "nvcc for %s, or the program, failed\n", archs[i]);
      tn_test_failures++;
    }
  }
}

int main(int argc, char **argv)
{
  const char *part = argc > 1 ? argv[1] : "";
  tmp_make("sizes-merge");
  write_fleet();
  if (strcmp(part, "rules") == 0)
    part_rules();
  else if (strcmp(part, "fallback") == 0)
    part_fallback();
  else if (strcmp(part, "history") == 0)
    part_history();
  else if (strcmp(part, "bad_input") == 0)
    part_bad_input();
  else if (strcmp(part, "cuda") == 0)
    part_cuda();
  else {
    fprintf(stderr, "usage: test_sizes_merge rules | fallback | history | "
                    "bad_input | cuda\n");
    tn_test_failures++;
  }
  tmp_remove();
  TEST_DONE();
}

/* merge_fleet.h -- the synthetic fleet of tests/unit/test_merge.c and
 * tests/unit/test_merge_macros.c: results files of several GPUs, nights and
 * predictions written with jansson under a temporary folder (tmp of
 * sizes_util.h, whose helpers run `tuner merge` in a child and read and
 * compile what it wrote).
 *
 * The fleet (configurations C0..C5 of the transpose family):
 *   night 1 (2026-11-28): T4 (sm_75) best C4; A100-40GB (sm_80) best C4;
 *                         H100 (sm_90) best C3
 *   night 2 (2026-11-29): A100-40GB on hosts a and b (best C1) and
 *                         A100-80GB (best C3, which the 40GB could not
 *                         run); H100 best C1; prediction sm_75 C5
 *   night 3 (2026-11-30): predictions sm_80 C5, sm_89 C2
 * sm_80's night-2 runs disagree.  Relative to each run's fastest, C0 is
 * 0.9 on both 40GB runs and 1.0 (of the configurations all three ran) on
 * the 80GB; C1 is 1.0 and 0.85.  With each device model weighing the
 * same, C0 wins (0.949 against 0.922); counting runs, C1 would
 * (0.947 against 0.932).  So sm_80 gets C0, the best of neither device. */
#ifndef TN_TEST_MERGE_FLEET_H
#define TN_TEST_MERGE_FLEET_H

#include <jansson.h>

#include "base/util.h"
#include "fleet_configs.h"
#include "sizes_util.h"

typedef struct {
  int cfg;
  double ms;      /* 0: not ok (failed) */
  double spread;  /* relative interquartile range */
} cand_spec;

typedef struct {
  const char *arch;
  const char *device; /* NULL: a prediction */
  const char *host;
  int ordinal;
  const char *started;
  const char *driver;
  int best;           /* configuration index */
  double noise;
  double baseline_ms;
  int n;
  cand_spec c[N_CFG];
} run_spec;

static inline json_t *results_doc(const run_spec *s, const char *family,
                                  const char *name, int rows)
{
  json_t *cands = json_array(), *best, *dev, *doc;
  int i;
  for (i = 0; i < s->n; i++) {
    const cand_spec *c = &s->c[i];
    char text[256];
    json_t *o;
    cfg_text(c->cfg, text, sizeof(text));
    o = json_pack("{s:i, s:o, s:s}", "id", c->cfg, "params",
                  cfg_json(c->cfg), "params_text", text);
    if (s->device == NULL) {
      json_object_set_new(o, "status", json_string("compiled"));
    } else if (c->ms > 0) {
      json_object_set_new(o, "status", json_string("ok"));
      json_object_set_new(o, "median_ms", json_real(c->ms));
      json_object_set_new(
          o, "timings",
          json_pack("[{s:f, s:f, s:f, s:f, s:f, s:i}]", "median_ms", c->ms,
                    "min_ms", c->ms * 0.99, "max_ms", c->ms * 1.05, "q1_ms",
                    c->ms * (1 - c->spread / 2), "q3_ms",
                    c->ms * (1 + c->spread / 2), "repetitions", 100));
    } else {
      json_object_set_new(o, "status", json_string("failed"));
      json_object_set_new(o, "reason", json_string("launch failed"));
    }
    json_array_append_new(cands, o);
  }
  if (s->device == NULL) {
    best = json_pack("{s:i, s:o, s:b, s:s}", "id", s->best, "params",
                     cfg_json(s->best), "predicted", 1, "rule", "model");
    dev = json_pack("{s:n, s:s, s:b}", "name", "arch", s->arch, "predicted",
                    1);
  } else {
    double ms = 0;
    for (i = 0; i < s->n; i++)
      if (s->c[i].cfg == s->best)
        ms = s->c[i].ms;
    best = json_pack("{s:i, s:o, s:f, s:f, s:s}", "id", s->best, "params",
                     cfg_json(s->best), "median_ms", ms, "noise", s->noise,
                     "rule", "fastest");
    if (s->baseline_ms > 0)
      json_object_set_new(best, "pct_of_baseline",
                          json_real(100 * s->baseline_ms / ms));
    dev = json_pack("{s:s, s:s, s:i, s:i, s:s, s:s}", "name", s->device,
                    "arch", s->arch, "ordinal", s->ordinal, "sm_count", 108,
                    "driver_cuda_version", s->driver ? s->driver : "13.0",
                    "pci_bus_id", "0000:01:00.0");
  }
  doc = json_pack(
      "{s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:b, s:b}, s:s, s:s, "
      "s:o, s:[{s:[ii], s:f}], s:o, s:o}",
      "schema", "tuner-results/1", "tool", "name", "tuner", "nvrtc", "13.0",
      "run", "config", "configs/transpose.cfg", "host", s->host, "started",
      s->started, "finished", s->started, "dry_run", 0, "interrupted", 0,
      "family", family, "name", name, "device", dev, "problems", "size", rows,
      8192, "work", 5.4e8, "candidates", cands, "best", best);
  if (s->device == NULL) {
    json_object_set_new(doc, "predicted", json_true());
    json_object_set_new(doc, "baselines", json_array());
  } else {
    json_object_set_new(
        doc, "baselines",
        json_pack("[{s:s, s:s, s:f}]", "name", "memcpy", "status", "ok",
                  "median_ms", s->baseline_ms));
  }
  return doc;
}

static inline void write_doc(json_t *doc, const char *path)
{
  char dir[4096];
  tn_err err = {{0}};
  tn_dirname(dir, sizeof(dir), path);
  CHECK(tn_mkdirs(dir, &err) == 0);
  CHECK(json_dump_file(doc, path, JSON_INDENT(1)) == 0);
  json_decref(doc);
}

static inline void write_run(const run_spec *s, const char *sub,
                             const char *file)
{
  char path[4400];
  snprintf(path, sizeof(path), "%s/%s/%s", tmp, sub, file);
  write_doc(results_doc(s, "transpose", "transpose", 8192), path);
}

/* The fleet described at the top, under tmp/night1, night2, night3. */
static inline void write_fleet(void)
{
  run_spec t4 = {"sm_75", "Tesla T4", "t4host", 0,
                 "2026-11-28T02:00:00Z", "13.0", 4, 0.01, 0.5, 3,
                 {{4, 0.60, 0.004}, {0, 0.70, 0.004}, {2, 0.80, 0.004}}};
  run_spec a40_n1 = {"sm_80", "NVIDIA A100-SXM4-40GB", "a", 0,
                     "2026-11-28T02:05:00Z", "13.0", 4, 0.01, 0.3, 3,
                     {{4, 0.30, 0.004}, {0, 1.00, 0.004}, {1, 0.95, 0.004}}};
  run_spec h100_n1 = {"sm_90", "NVIDIA H100 80GB HBM3", "h", 0,
                      "2026-11-28T02:10:00Z", "12.8", 3, 0.01, 0.2, 4,
                      {{3, 0.45, 0.004},
                       {1, 0.50, 0.004},
                       {0, 0.70, 0.004},
                       {2, 0.80, 0.004}}};
  run_spec a40a = {"sm_80", "NVIDIA A100-SXM4-40GB", "a", 0,
                   "2026-11-29T02:05:00Z", "13.0", 1, 0.01, 0.8, 4,
                   {{0, 1.00, 0.004},
                    {1, 0.90, 0.004},
                    {2, 1.30, 0.004},
                    {3, 0, 0}}};
  run_spec a40b = a40a;
  run_spec a80 = {"sm_80", "NVIDIA A100-SXM4-80GB", "c", 0,
                  "2026-11-29T02:20:00Z", "13.0", 3, 0.01, 0.6, 4,
                  {{0, 0.70, 0.004},
                   {1, 0.8235294, 0.004},
                   {2, 0.90, 0.004},
                   {3, 0.50, 0.004}}};
  run_spec h100_n2 = {"sm_90", "NVIDIA H100 80GB HBM3", "h", 0,
                      "2026-11-29T02:10:00Z", "13.0", 1, 0.01, 0.2, 4,
                      {{3, 0.60, 0.004},
                       {1, 0.48, 0.004},
                       {0, 0.703, 0.004},
                       {2, 0.83, 0.05}}};
  run_spec p75 = {"sm_75", NULL, "ci", 0, "2026-11-29T01:00:00Z", NULL,
                  5, 0, 0, 2, {{5, 0, 0}, {0, 0, 0}}};
  run_spec p80 = {"sm_80", NULL, "ci", 0, "2026-11-30T01:00:00Z", NULL,
                  5, 0, 0, 2, {{5, 0, 0}, {0, 0, 0}}};
  run_spec p89 = {"sm_89", NULL, "ci", 0, "2026-11-30T01:00:00Z", NULL,
                  2, 0, 0, 2, {{2, 0, 0}, {0, 0, 0}}};

  a40b.host = "b";
  a40b.started = "2026-11-29T03:40:00Z";
  write_run(&t4, "night1", "transpose-sm_75-20261128T020000Z.json");
  write_run(&a40_n1, "night1", "transpose-sm_80-20261128T020500Z.json");
  write_run(&h100_n1, "night1", "transpose-sm_90-20261128T021000Z.json");
  write_run(&a40a, "night2", "a/transpose-sm_80-20261129T020500Z.json");
  write_run(&a40b, "night2", "b/transpose-sm_80-20261129T034000Z.json");
  write_run(&a80, "night2", "c/transpose-sm_80-20261129T022000Z.json");
  write_run(&h100_n2, "night2", "h/transpose-sm_90-20261129T021000Z.json");
  write_run(&p75, "night2", "p/transpose-sm_75-20261129T010000Z.json");
  write_run(&p80, "night3", "transpose-sm_80-20261130T010000Z.json");
  write_run(&p89, "night3", "transpose-sm_89-20261130T010000Z.json");
}

/* Merges night1..3 into tmp/out.  Returns the status. */
static inline int merge_fleet(void)
{
  char out[4200], n1[4200], n2[4200], n3[4200];
  const char *args[8];
  snprintf(out, sizeof(out), "%s/out", tmp);
  snprintf(n1, sizeof(n1), "%s/night1", tmp);
  snprintf(n2, sizeof(n2), "%s/night2", tmp);
  snprintf(n3, sizeof(n3), "%s/night3", tmp);
  args[0] = "-o";
  args[1] = out;
  args[2] = n1;
  args[3] = n2;
  args[4] = n3;
  args[5] = NULL;
  return merge(args);
}

/* Makes tmp and writes the fleet there. */
static inline void merge_fleet_setup(void)
{
  tmp_make("merge");
  write_fleet();
}

#endif

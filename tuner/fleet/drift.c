/* drift.c -- a results file's baselines timed through the run, its
 * candidates' comparisons with them, and its clocks, read as untrusted
 * input (docs/results.md).  Files written before these fields have none
 * of them and read as before: each candidate against the run's one
 * baseline figure. */
#define _POSIX_C_SOURCE 200809L
#include "fleet/fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/results_drift.h"

/* Milliseconds since 1970 past this (the year 5138) are not a time. */
#define MAX_WALL_MS 100000000000000LL
/* Bounds on a run's counts and percentages. */
#define MAX_COUNT 2147483647LL
#define MAX_PCT 1e9

static int check_clocks(const mg_run *r, json_t *o, const char *where,
                        tn_err *err)
{
  tn_clocks c;
  char why[200];
  if (tn_results_clocks_parse(o, &c, why, sizeof(why)) != 0)
    return tn_errf(err, TN_EINPUT, "%s: %s.clocks%s", r->path, where, why);
  return 0;
}

static int check_int(const mg_run *r, json_t *o, const char *where,
                     const char *key, long long lo, long long hi,
                     int optional, long long *out, tn_err *err)
{
  json_t *v;
  if (tn_fleet_get(r->path, o, where, key, K_INT, optional, &v, err))
    return TN_EINPUT;
  *out = v ? json_integer_value(v) : -1;
  if (v && (json_integer_value(v) < lo || json_integer_value(v) > hi))
    return tn_errf(err, TN_EINPUT, "%s: %s.%s: %lld is outside [%lld, %lld]",
                   r->path, where, key, (long long)json_integer_value(v), lo,
                   hi);
  return 0;
}

/* A number in [lo, hi] when present. */
static int check_num(const mg_run *r, json_t *o, const char *where,
                     const char *key, double lo, double hi, tn_err *err)
{
  json_t *v;
  if (tn_fleet_get(r->path, o, where, key, K_NUMBER, 1, &v, err))
    return TN_EINPUT;
  if (v && (!isfinite(json_number_value(v)) || json_number_value(v) < lo ||
            json_number_value(v) > hi))
    return tn_errf(err, TN_EINPUT, "%s: %s.%s: %g is outside [%g, %g]",
                   r->path, where, key, json_number_value(v), lo, hi);
  return 0;
}

/* One measurement of the reference baseline (index j); its medians go to
 * r->base_meas_at. */
static int read_measure(mg_run *r, json_t *m, int j, tn_err *err)
{
  char where[64];
  json_t *ts, *t, *med, *total;
  long long v;
  size_t k;
  snprintf(where, sizeof(where), "baselines[0].measurements[%d]", j);
  if (!json_is_object(m))
    return tn_errf(err, TN_EINPUT, "%s: %s: expected an object", r->path,
                   where);
  if (check_int(r, m, where, "measurement", j, j, 0, &v, err) ||
      check_int(r, m, where, "timed_at_ms", 1, MAX_WALL_MS, 1, &v, err) ||
      check_int(r, m, where, "after", 0, MAX_COUNT, 1, &v, err) ||
      tn_fleet_get(r->path, m, where, "median_ms", K_NUMBER, 0, &total,
                   err) ||
      tn_fleet_check_ms(r->path, where, "median_ms",
                        json_number_value(total), 1, err) ||
      tn_fleet_get(r->path, m, where, "timings", K_ARRAY, 0, &ts, err))
    return TN_EINPUT;
  if (json_object_get(m, "clocks") &&
      check_clocks(r, json_object_get(m, "clocks"), where, err))
    return TN_EINPUT;
  if (json_array_size(ts) != (size_t)r->n_problems)
    return tn_errf(err, TN_EINPUT, "%s: %s.timings: %zu entries for %d "
                                   "problems",
                   r->path, where, json_array_size(ts), r->n_problems);
  json_array_foreach(ts, k, t) {
    char tw[96];
    snprintf(tw, sizeof(tw), "%s.timings[%zu]", where, k);
    if (!json_is_object(t))
      return tn_errf(err, TN_EINPUT, "%s: %s: expected an object", r->path,
                     tw);
    if (tn_fleet_get(r->path, t, tw, "median_ms", K_NUMBER, 0, &med, err) ||
        tn_fleet_check_ms(r->path, tw, "median_ms", json_number_value(med),
                          1, err))
      return TN_EINPUT;
    r->base_meas_at[(size_t)j * (size_t)r->n_problems + k] =
        json_number_value(med);
  }
  r->base_meas_total[j] = json_number_value(total);
  return 0;
}

/* baselines[0]'s measurements, median_measurement and spread. */
static int read_measurements(mg_run *r, tn_err *err)
{
  json_t *b0 = json_array_get(json_object_get(r->doc, "baselines"), 0);
  json_t *ms, *m;
  long long v;
  size_t j;
  if (!json_is_object(b0) ||
      tn_fleet_get(r->path, b0, "baselines[0]", "measurements", K_ARRAY, 1,
                   &ms, err))
    return json_is_object(b0) ? TN_EINPUT : 0;
  if (ms == NULL || json_array_size(ms) == 0)
    return 0;
  if (json_array_size(ms) > (size_t)MAX_COUNT / TN_MAX_SIZES)
    return tn_errf(err, TN_EINPUT, "%s: baselines[0].measurements: too "
                                   "many",
                   r->path);
  r->n_base_meas = (int)json_array_size(ms);
  r->base_meas_total = calloc((size_t)r->n_base_meas, sizeof(double));
  r->base_meas_at = calloc((size_t)r->n_base_meas * (size_t)r->n_problems,
                           sizeof(double));
  if (r->base_meas_total == NULL || r->base_meas_at == NULL)
    return tn_errf(err, TN_ETOOL, "%s: out of memory", r->path);
  json_array_foreach(ms, j, m) {
    if (read_measure(r, m, (int)j, err))
      return TN_EINPUT;
  }
  if (check_int(r, b0, "baselines[0]", "median_measurement", 0,
                r->n_base_meas - 1, 1, &v, err) ||
      check_num(r, b0, "baselines[0]", "spread", 0, MAX_NOISE * 100, err))
    return TN_EINPUT;
  return 0;
}

static int check_verdict(const mg_run *r, json_t *o, const char *where,
                         tn_err *err)
{
  static const char *const ok[] = {"faster", "slower", "within noise",
                                   "not measured"};
  json_t *v;
  size_t i;
  if (tn_fleet_get(r->path, o, where, "vs_baseline", K_STRING, 1, &v, err))
    return TN_EINPUT;
  for (i = 0; v && i < sizeof(ok) / sizeof(ok[0]); i++)
    if (strcmp(json_string_value(v), ok[i]) == 0)
      return 0;
  if (v == NULL)
    return 0;
  return tn_errf(err, TN_EINPUT, "%s: %s.vs_baseline: \"%.40s\" is not "
                                 "faster, slower or within noise",
                 r->path, where, json_string_value(v));
}

/* What an object (a candidate, best, a size's best) says against the
 * baseline: its measurement's index into *meas (-1: none). */
static int read_vs_baseline(const mg_run *r, json_t *o, const char *where,
                            long long *meas, tn_err *err)
{
  if (check_int(r, o, where, "baseline_measurement", 0,
                r->n_base_meas > 0 ? r->n_base_meas - 1 : -1, 1, meas,
                err) ||
      check_num(r, o, where, "baseline_ms", 0, MAX_MS, err) ||
      check_num(r, o, where, "pct_of_baseline", 0, MAX_PCT, err) ||
      check_num(r, o, where, "baseline_noise", 0, MAX_NOISE, err) ||
      check_verdict(r, o, where, err))
    return TN_EINPUT;
  return 0;
}

static int read_candidates(mg_run *r, tn_err *err)
{
  json_t *cands = json_object_get(r->doc, "candidates"), *o;
  long long v, meas;
  size_t i;
  json_array_foreach(cands, i, o) {
    char where[48];
    mg_cand *c = &r->cands[i];
    snprintf(where, sizeof(where), "candidates[%zu]", i);
    c->base_meas = -1;
    if (!c->ok)
      continue;
    if (check_int(r, o, where, "timed_at_ms", 1, MAX_WALL_MS, 1, &v, err) ||
        read_vs_baseline(r, o, where, &meas, err))
      return TN_EINPUT;
    if (json_object_get(o, "clocks") &&
        check_clocks(r, json_object_get(o, "clocks"), where, err))
      return TN_EINPUT;
    c->base_meas = (int)meas;
  }
  return 0;
}

/* run.clocks: the run's verdict on its clocks. */
static int read_run_clocks(mg_run *r, tn_err *err)
{
  json_t *runo = json_object_get(r->doc, "run"), *o, *v, *x;
  long long n;
  size_t i;
  if (tn_fleet_get(r->path, runo, "run", "clocks", K_OBJECT, 1, &o, err))
    return TN_EINPUT;
  r->clocks_known = -1; /* a file before the clocks were recorded */
  if (o == NULL)
    return 0;
  if (tn_fleet_get(r->path, o, "run.clocks", "known", K_BOOL, 0, &v, err) ||
      tn_fleet_get(r->path, o, "run.clocks", "throttled", K_BOOL, 0, &x,
                   err))
    return TN_EINPUT;
  r->clocks_known = json_is_true(v);
  r->throttled = json_is_true(x);
  if (!r->clocks_known) {
    if (tn_fleet_get(r->path, o, "run.clocks", "why", K_STRING, 1, &v, err))
      return TN_EINPUT;
    r->clocks_why = v ? json_string_value(v) : "";
    return 0;
  }
  if (check_int(r, o, "run.clocks", "start_sm_mhz", 0, 100000, 0, &n, err) ||
      check_int(r, o, "run.clocks", "min_sm_mhz", 0, 100000, 0, &n, err) ||
      check_int(r, o, "run.clocks", "max_sm_mhz", 0, 100000, 0, &n, err) ||
      check_int(r, o, "run.clocks", "candidates", 0, MAX_COUNT, 1, &n,
                err) ||
      check_int(r, o, "run.clocks", "candidates_throttled", 0, MAX_COUNT, 1,
                &n, err) ||
      check_int(r, o, "run.clocks", "baseline_measurements", 0, MAX_COUNT, 1,
                &n, err) ||
      check_int(r, o, "run.clocks", "baseline_measurements_throttled", 0,
                MAX_COUNT, 1, &n, err) ||
      check_num(r, o, "run.clocks", "max_power_w", 0, 100000, err) ||
      check_num(r, o, "run.clocks", "power_limit_w", 0, 100000, err) ||
      check_num(r, o, "run.clocks", "drop", 0, 1, err) ||
      tn_fleet_get(r->path, o, "run.clocks", "reasons", K_ARRAY, 1, &v, err))
    return TN_EINPUT;
  json_array_foreach(v, i, x) {
    if (!json_is_string(x) || tn_clocks_reason_bit(json_string_value(x)) < 0)
      return tn_errf(err, TN_EINPUT, "%s: run.clocks.reasons[%zu]: not a "
                                     "reason's name",
                     r->path, i);
  }
  return 0;
}

int tn_fleet_read_drift(mg_run *r, tn_err *err)
{
  json_t *best = json_object_get(r->doc, "best"), *by, *o;
  long long meas;
  size_t k;
  int rc = read_measurements(r, err);
  if (rc == 0)
    rc = read_candidates(r, err);
  if (rc == 0)
    rc = read_run_clocks(r, err);
  if (rc == 0 && json_is_object(best))
    rc = read_vs_baseline(r, best, "best", &meas, err);
  by = json_object_get(r->doc, "best_by_size");
  json_array_foreach(by, k, o) {
    char where[40];
    if (rc != 0)
      break;
    if (!json_is_object(o))
      continue; /* null: a size without a winner (check.c) */
    snprintf(where, sizeof(where), "best_by_size[%zu]", k);
    rc = read_vs_baseline(r, o, where, &meas, err);
  }
  return rc;
}

double tn_fleet_baseline_of(const mg_run *r, const mg_cand *c, int k)
{
  if (c != NULL && c->base_meas >= 0 && c->base_meas < r->n_base_meas)
    return k < 0 ? r->base_meas_total[c->base_meas]
                 : r->base_meas_at[(size_t)c->base_meas *
                                       (size_t)r->n_problems +
                                   (size_t)k];
  return k < 0 ? r->baseline_ms : r->baseline_at[k];
}

/* results_drift.c -- clocks, baseline measurements and the comparison
 * with the baseline nearest in time, as JSON (results_drift.h). */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/results_drift.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/baselines.h"

/* Bounds on what a reading can be: past them a file is not a record. */
#define MAX_MHZ 100000
#define MAX_WATTS 100000.0
#define MAX_CELSIUS 1000
#define MAX_SAMPLES 1000000000LL

long long tn_results_ms_since_1970(double t)
{
  return (long long)llround(t * 1000.0);
}

json_t *tn_results_timing(const tn_timing *t)
{
  json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:i}", "median_ms",
                        t->median_ms, "min_ms", t->min_ms, "max_ms",
                        t->max_ms, "q1_ms", t->q1_ms, "q3_ms", t->q3_ms,
                        "repetitions", t->repetitions);
  /* a grid fitted to the GPU at launch: the blocks it took */
  if (t->blocks > 0)
    json_object_set_new(o, "blocks", json_integer(t->blocks));
  return o;
}

static json_t *reasons_json(unsigned long long mask)
{
  json_t *a = json_array();
  int b;
  for (b = 0; b < 64; b++) {
    char other[16];
    const char *name = tn_clocks_reason_name(b);
    if (!(mask >> b & 1ULL))
      continue;
    if (name == NULL) {
      snprintf(other, sizeof(other), "bit_%d", b);
      name = other;
    }
    json_array_append_new(a, json_string(name));
  }
  return a;
}

json_t *tn_results_clocks(const tn_clocks *c, const tn_throttle *t)
{
  json_t *o;
  if (c->samples == 0)
    return NULL;
  o = json_pack("{s:i}", "samples", c->samples);
  if (c->sm_mhz_max > 0)
    json_object_update_new(
        o, json_pack("{s:i, s:i, s:i}", "sm_mhz_first", (int)c->sm_mhz_first,
                     "sm_mhz_min", (int)c->sm_mhz_min, "sm_mhz_max",
                     (int)c->sm_mhz_max));
  if (c->power_mw_max > 0)
    json_object_update_new(
        o, json_pack("{s:f, s:f}", "power_w_max", c->power_mw_max / 1000.0,
                     "power_w_mean", tn_clocks_power_mean_mw(c) / 1000.0));
  if (c->temp_c_max > 0)
    json_object_set_new(o, "temp_c_max", json_integer(c->temp_c_max));
  if (c->reasons_known)
    json_object_set_new(o, "reasons", reasons_json(c->reasons));
  if (t != NULL)
    json_object_set_new(o, "throttled",
                        json_boolean(tn_throttle_one(t, c)));
  return o;
}

/* o.key, an integer in [lo, hi] when present, into *v (else 0). */
static int get_int(json_t *o, const char *key, long long lo, long long hi,
                   long long *v, char *why, size_t n)
{
  json_t *x = json_object_get(o, key);
  *v = 0;
  if (x == NULL)
    return 0;
  if (!json_is_integer(x) || json_integer_value(x) < lo ||
      json_integer_value(x) > hi) {
    snprintf(why, n, ".%s: expected an integer in [%lld, %lld]", key, lo,
             hi);
    return -1;
  }
  *v = json_integer_value(x);
  return 0;
}

static int get_watts(json_t *o, const char *key, double *v, char *why,
                     size_t n)
{
  json_t *x = json_object_get(o, key);
  *v = 0;
  if (x == NULL)
    return 0;
  if (!json_is_number(x) || !isfinite(json_number_value(x)) ||
      json_number_value(x) < 0 || json_number_value(x) > MAX_WATTS) {
    snprintf(why, n, ".%s: expected watts in [0, %g]", key, MAX_WATTS);
    return -1;
  }
  *v = json_number_value(x);
  return 0;
}

int tn_results_clocks_parse(json_t *o, tn_clocks *c, char *why, size_t n)
{
  long long samples, first, lo, hi, temp;
  double pmax, pmean;
  json_t *r, *v;
  size_t i;
  memset(c, 0, sizeof(*c));
  if (!json_is_object(o)) {
    snprintf(why, n, ": expected an object");
    return -1;
  }
  if (json_object_get(o, "samples") == NULL) {
    snprintf(why, n, ".samples: missing");
    return -1;
  }
  if (get_int(o, "samples", 1, MAX_SAMPLES, &samples, why, n) ||
      get_int(o, "sm_mhz_first", 0, MAX_MHZ, &first, why, n) ||
      get_int(o, "sm_mhz_min", 0, MAX_MHZ, &lo, why, n) ||
      get_int(o, "sm_mhz_max", 0, MAX_MHZ, &hi, why, n) ||
      get_int(o, "temp_c_max", 0, MAX_CELSIUS, &temp, why, n) ||
      get_watts(o, "power_w_max", &pmax, why, n) ||
      get_watts(o, "power_w_mean", &pmean, why, n))
    return -1;
  if (lo > hi || (first > 0 && (first < lo || first > hi))) {
    snprintf(why, n, ": sm_mhz_first %lld outside sm_mhz_min %lld .. "
                     "sm_mhz_max %lld",
             first, lo, hi);
    return -1;
  }
  if (pmean > pmax) {
    snprintf(why, n, ": power_w_mean %g above power_w_max %g", pmean,
             pmax);
    return -1;
  }
  r = json_object_get(o, "reasons");
  if (r != NULL && !json_is_array(r)) {
    snprintf(why, n, ".reasons: expected an array of names");
    return -1;
  }
  json_array_foreach(r, i, v) {
    int b = json_is_string(v) ? tn_clocks_reason_bit(json_string_value(v))
                              : -1;
    if (b < 0) {
      snprintf(why, n, ".reasons[%zu]: not a reason's name (sw_power_cap, "
                       "hw_thermal, ..., bit_N)",
               i);
      return -1;
    }
    c->reasons |= 1ULL << b;
  }
  c->reasons_known = r != NULL;
  c->samples = (int)samples;
  c->sm_mhz_first = (unsigned)first;
  c->sm_mhz_min = (unsigned)lo;
  c->sm_mhz_max = (unsigned)hi;
  c->temp_c_max = (unsigned)temp;
  c->power_mw_max = (unsigned)lround(pmax * 1000.0);
  if (pmean > 0) {
    c->power_mw_sum = pmean * 1000.0;
    c->power_samples = 1;
  }
  return 0;
}

json_t *tn_results_measure(const tn_run *run, const tn_baseline_result *b,
                           int j, const tn_throttle *t)
{
  const tn_baseline_measure *m = &b->meas[j];
  json_t *ts = json_array(), *o, *clocks;
  int k;
  for (k = 0; k < run->job->n_problems; k++)
    json_array_append_new(ts, tn_results_timing(&m->timing[k]));
  o = json_pack("{s:i, s:i, s:f, s:o}", "measurement", j, "after",
                m->after, "median_ms", m->total_ms, "timings", ts);
  /* a timing restored from a journal before the times has none */
  if (m->timed_at > 0)
    json_object_set_new(
        o, "timed_at_ms",
        json_integer(tn_results_ms_since_1970(m->timed_at)));
  clocks = tn_results_clocks(&m->clocks, t);
  if (clocks)
    json_object_set_new(o, "clocks", clocks);
  return o;
}

void tn_results_measurements(const tn_run *run, const tn_baseline_result *b,
                             const tn_throttle *t, json_t *o)
{
  json_t *a = json_array();
  int j;
  for (j = 0; j < b->n_meas; j++)
    json_array_append_new(a, tn_results_measure(run, b, j, t));
  json_object_set_new(o, "measurements", a);
  json_object_set_new(o, "median_measurement",
                      json_integer(tn_baselines_nearest(b, 0)));
  json_object_set_new(o, "spread", json_real(tn_baselines_spread(b)));
}

void tn_results_vs_baseline(const tn_run *run, const tn_candidate *c, int k,
                            json_t *o)
{
  int j;
  const tn_baseline_measure *m = tn_baselines_for(run, c, &j);
  double base, ms = k < 0 ? c->total_ms : c->timing[k].median_ms;
  double min_noise = run->job->bench.min_noise;
  if (m == NULL || !(ms > 0))
    return;
  base = tn_baselines_ms(run, c, k);
  json_object_set_new(o, "baseline_measurement", json_integer(j));
  json_object_set_new(o, "baseline_ms", json_real(base));
  json_object_set_new(o, "pct_of_baseline", json_real(100.0 * base / ms));
  json_object_set_new(o, "baseline_noise",
                      json_real(tn_baselines_noise(run, c, k, min_noise)));
  json_object_set_new(
      o, "vs_baseline",
      json_string(tn_baselines_verdict(run, c, k, min_noise)));
}

json_t *tn_results_run_clocks(const tn_run *run, const tn_throttle *t)
{
  json_t *o;
  if (!t->known) {
    o = json_pack("{s:b, s:b}", "known", 0, "throttled", 0);
    json_object_set_new(
        o, "why",
        json_string(run->have_device && run->device.clocks_why[0]
                        ? run->device.clocks_why
                        : "NVML read nothing"));
    return o;
  }
  o = json_pack("{s:b, s:b, s:i, s:i, s:i, s:o, s:i, s:i, s:i, s:i, s:f}",
                "known", 1, "throttled", t->throttled, "start_sm_mhz",
                (int)t->start_mhz, "min_sm_mhz", (int)t->min_mhz,
                "max_sm_mhz", (int)t->max_mhz, "reasons",
                reasons_json(t->reasons), "candidates", t->candidates,
                "candidates_throttled", t->candidates_throttled,
                "baseline_measurements", t->baselines,
                "baseline_measurements_throttled", t->baselines_throttled,
                "drop", TN_THROTTLE_DROP);
  if (t->power_max_mw > 0)
    json_object_set_new(o, "max_power_w",
                        json_real(t->power_max_mw / 1000.0));
  if (run->device.power_limit_mw > 0)
    json_object_set_new(o, "power_limit_w",
                        json_real(run->device.power_limit_mw / 1000.0));
  if (run->device.sm_max_mhz > 0)
    json_object_set_new(o, "device_max_sm_mhz",
                        json_integer(run->device.sm_max_mhz));
  if (t->temp_max_c > 0)
    json_object_set_new(o, "max_temp_c", json_integer(t->temp_max_c));
  return o;
}

/* baselines.c -- the baselines timed through a run, and each candidate
 * against the measurement nearest in time (baselines.h). */
#include "pipeline/baselines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tn_baselines_add(tn_baseline_result *b, const tn_baseline_measure *m)
{
  int i, j, mid, below;
  if (b->n_meas == b->cap_meas) {
    int cap = b->cap_meas ? 2 * b->cap_meas : 8;
    tn_baseline_measure *p = realloc(b->meas, sizeof(*p) * (size_t)cap);
    if (p == NULL)
      return TN_ETOOL;
    b->meas = p;
    b->cap_meas = cap;
  }
  b->meas[b->n_meas++] = *m;
  /* the median by total: the measurement with (n - 1) / 2 below it (ties
   * broken by the order taken), found without sorting the record */
  mid = (b->n_meas - 1) / 2;
  for (i = 0; i < b->n_meas; i++) {
    below = 0;
    for (j = 0; j < b->n_meas; j++)
      if (b->meas[j].total_ms < b->meas[i].total_ms ||
          (b->meas[j].total_ms == b->meas[i].total_ms && j < i))
        below++;
    if (below == mid)
      break;
  }
  memcpy(b->timing, b->meas[i].timing, sizeof(b->timing));
  b->total_ms = b->meas[i].total_ms;
  return 0;
}

const tn_baseline_result *tn_baselines_ref(const tn_run *run)
{
  if (run->n_baselines > 0 && run->baselines[0].status == TN_ST_OK &&
      run->baselines[0].n_meas > 0)
    return &run->baselines[0];
  return NULL;
}

int tn_baselines_nearest(const tn_baseline_result *b, double t)
{
  int i, best = -1;
  double d = INFINITY;
  if (b->n_meas == 0)
    return -1;
  if (t <= 0) {
    for (i = 0; i < b->n_meas; i++)
      if (b->meas[i].total_ms == b->total_ms)
        return i;
    return 0;
  }
  for (i = 0; i < b->n_meas; i++)
    if (fabs(b->meas[i].timed_at - t) < d) {
      d = fabs(b->meas[i].timed_at - t);
      best = i;
    }
  return best;
}

const tn_baseline_measure *tn_baselines_for(const tn_run *run,
                                            const tn_candidate *c,
                                            int *index)
{
  const tn_baseline_result *b = tn_baselines_ref(run);
  int i = b ? tn_baselines_nearest(b, c->timed_at) : -1;
  if (index)
    *index = i;
  return i >= 0 ? &b->meas[i] : NULL;
}

static double ms_at(const tn_timing *t, double total, int k)
{
  return k < 0 ? total : t[k].median_ms;
}

double tn_baselines_ms(const tn_run *run, const tn_candidate *c, int k)
{
  const tn_baseline_measure *m = tn_baselines_for(run, c, NULL);
  return m ? ms_at(m->timing, m->total_ms, k) : 0.0;
}

/* The relative interquartile range at size k, or the largest over the
 * n sizes (k < 0). */
static double iqr(const tn_timing *t, int n, int k)
{
  double worst = 0;
  int j;
  for (j = k < 0 ? 0 : k; j < (k < 0 ? n : k + 1); j++)
    if (t[j].median_ms > 0 &&
        (t[j].q3_ms - t[j].q1_ms) / t[j].median_ms > worst)
      worst = (t[j].q3_ms - t[j].q1_ms) / t[j].median_ms;
  return worst;
}

/* How far the baseline moved between its measurements just before and
 * just after time t, at size k (k < 0: the totals): |a - b| / min. */
static double drift_around(const tn_baseline_result *b, double t, int k)
{
  const tn_baseline_measure *before = NULL, *after = NULL;
  double a, z;
  int i;
  for (i = 0; i < b->n_meas; i++) {
    const tn_baseline_measure *m = &b->meas[i];
    if (m->timed_at <= 0)
      continue;
    if (m->timed_at <= t && (before == NULL || m->timed_at > before->timed_at))
      before = m;
    if (m->timed_at > t && (after == NULL || m->timed_at < after->timed_at))
      after = m;
  }
  if (before == NULL || after == NULL)
    return 0.0;
  a = ms_at(before->timing, before->total_ms, k);
  z = ms_at(after->timing, after->total_ms, k);
  if (!(a > 0) || !(z > 0))
    return 0.0;
  return fabs(a - z) / (a < z ? a : z);
}

double tn_baselines_noise(const tn_run *run, const tn_candidate *c, int k,
                          double min_noise)
{
  const tn_baseline_result *b = tn_baselines_ref(run);
  const tn_baseline_measure *m = tn_baselines_for(run, c, NULL);
  int n = run->job->n_problems;
  double noise = min_noise, x;
  if (m == NULL)
    return noise;
  x = iqr(c->timing, n, k);
  noise = x > noise ? x : noise;
  x = iqr(m->timing, n, k);
  noise = x > noise ? x : noise;
  /* without its time, the candidate may be anywhere in the run */
  x = c->timed_at > 0 ? drift_around(b, c->timed_at, k)
                      : tn_baselines_spread(b);
  return x > noise ? x : noise;
}

double tn_baselines_spread(const tn_baseline_result *b)
{
  double lo = INFINITY, hi = 0;
  int i;
  for (i = 0; i < b->n_meas; i++) {
    if (b->meas[i].total_ms < lo)
      lo = b->meas[i].total_ms;
    if (b->meas[i].total_ms > hi)
      hi = b->meas[i].total_ms;
  }
  return b->n_meas > 1 && lo > 0 ? hi / lo - 1.0 : 0.0;
}

const char *tn_baselines_verdict(const tn_run *run, const tn_candidate *c,
                                 int k, double min_noise)
{
  double base = tn_baselines_ms(run, c, k);
  double ms = k < 0 ? c->total_ms : c->timing[k].median_ms;
  double noise = tn_baselines_noise(run, c, k, min_noise);
  if (!(base > 0) || !(ms > 0))
    return "not measured";
  if (base / ms > 1.0 + noise)
    return "faster";
  if (ms / base > 1.0 + noise)
    return "slower";
  return "within noise";
}

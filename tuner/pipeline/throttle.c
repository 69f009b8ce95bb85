/* throttle.c -- the run's clocks judged (throttle.h). */
#include "pipeline/throttle.h"

#include <stdio.h>
#include <string.h>

/* Folds c into t's figures; the earliest measurement's first clock is the
 * start (*first: the time it was taken). */
static void fold(tn_throttle *t, const tn_clocks *c, double at,
                 double *first)
{
  if (c->samples == 0)
    return;
  t->known = 1;
  if (c->sm_mhz_first > 0 && (*first < 0 || (at > 0 && at < *first))) {
    t->start_mhz = c->sm_mhz_first;
    *first = at;
  }
  if (c->sm_mhz_min > 0 && (t->min_mhz == 0 || c->sm_mhz_min < t->min_mhz))
    t->min_mhz = c->sm_mhz_min;
  if (c->sm_mhz_max > t->max_mhz)
    t->max_mhz = c->sm_mhz_max;
  if (c->power_mw_max > t->power_max_mw)
    t->power_max_mw = c->power_mw_max;
  if (c->temp_c_max > t->temp_max_c)
    t->temp_max_c = c->temp_c_max;
  t->reasons |= c->reasons;
}

int tn_throttle_one(const tn_throttle *t, const tn_clocks *c)
{
  return tn_clocks_throttled(c, t->start_mhz, TN_THROTTLE_DROP);
}

void tn_throttle_judge(const tn_run *run, tn_throttle *t)
{
  double first = -1;
  int i, j;
  memset(t, 0, sizeof(*t));
  for (i = 0; i < run->n_baselines; i++)
    for (j = 0; j < run->baselines[i].n_meas; j++)
      fold(t, &run->baselines[i].meas[j].clocks,
           run->baselines[i].meas[j].timed_at, &first);
  for (i = 0; i < run->space.n; i++)
    if (run->space.c[i].status == TN_ST_OK)
      fold(t, &run->space.c[i].clocks, run->space.c[i].timed_at, &first);
  /* the start known, each measurement judged against it */
  for (i = 0; i < run->n_baselines; i++)
    for (j = 0; j < run->baselines[i].n_meas; j++) {
      const tn_clocks *c = &run->baselines[i].meas[j].clocks;
      if (c->samples == 0)
        continue;
      t->baselines++;
      t->baselines_throttled += tn_throttle_one(t, c);
    }
  for (i = 0; i < run->space.n; i++) {
    const tn_clocks *c = &run->space.c[i].clocks;
    if (run->space.c[i].status != TN_ST_OK || c->samples == 0)
      continue;
    t->candidates++;
    t->candidates_throttled += tn_throttle_one(t, c);
  }
  t->throttled = t->candidates_throttled + t->baselines_throttled > 0;
}

void tn_throttle_line(const tn_run *run, const tn_throttle *t, char *buf,
                      size_t n)
{
  char why[256], power[64] = "", fell[64];
  unsigned long long held = t->reasons & TN_CLOCKS_THROTTLING;
  if (!t->known) {
    snprintf(buf, n, "clocks unknown: %s",
             run->have_device && run->device.clocks_why[0]
                 ? run->device.clocks_why
                 : "NVML read nothing");
    return;
  }
  if (t->power_max_mw > 0)
    snprintf(power, sizeof(power), ", power up to %.0f W%s",
             t->power_max_mw / 1000.0,
             run->device.power_limit_mw > 0 ? " of a limit of" : "");
  if (t->power_max_mw > 0 && run->device.power_limit_mw > 0)
    snprintf(power + strlen(power), sizeof(power) - strlen(power),
             " %.0f W", run->device.power_limit_mw / 1000.0);
  if (!t->throttled) {
    snprintf(buf, n, "clocks steady: SM clock %u MHz at the start, %u to "
                     "%u MHz%s",
             t->start_mhz, t->min_mhz, t->max_mhz, power);
    return;
  }
  tn_clocks_reason_names(held, why, sizeof(why));
  snprintf(fell, sizeof(fell), "more than %.0f%% below the start's",
           100.0 * TN_THROTTLE_DROP);
  snprintf(buf, n,
           "THROTTLED: %d of %d candidates and %d of %d baseline "
           "measurements were timed %s%s; SM clock %u MHz at the start, "
           "down to %u MHz (%+.1f%%)%s",
           t->candidates_throttled, t->candidates, t->baselines_throttled,
           t->baselines, held ? "while NVML said " : "with the SM clock ",
           held ? why : fell,
           t->start_mhz, t->min_mhz,
           t->start_mhz ? 100.0 * ((double)t->min_mhz / t->start_mhz - 1.0)
                        : 0.0,
           power);
}

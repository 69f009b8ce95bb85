/* clocks.c -- NVML's samples of one job folded, and the reasons by name
 * (clocks.h). */
#include "gpu/clocks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_NAMED 11

static const char *const reason_names[N_NAMED] = {
    "gpu_idle",       "applications_clocks", "sw_power_cap",
    "hw_slowdown",    "sync_boost",          "sw_thermal",
    "hw_thermal",     "hw_power_brake",      "display_clock",
    "board_limit",    "reliability"};

void tn_clocks_add(tn_clocks *c, const tn_clock_sample *s)
{
  c->samples++;
  if (s->sm_mhz > 0) {
    if (c->sm_mhz_first == 0)
      c->sm_mhz_first = s->sm_mhz;
    if (c->sm_mhz_min == 0 || s->sm_mhz < c->sm_mhz_min)
      c->sm_mhz_min = s->sm_mhz;
    if (s->sm_mhz > c->sm_mhz_max)
      c->sm_mhz_max = s->sm_mhz;
  }
  if (s->power_mw > 0) {
    if (s->power_mw > c->power_mw_max)
      c->power_mw_max = s->power_mw;
    c->power_mw_sum += s->power_mw;
    c->power_samples++;
  }
  if (s->temp_c > c->temp_c_max)
    c->temp_c_max = s->temp_c;
  if (s->reasons_known) {
    c->reasons_known = 1;
    c->reasons |= s->reasons;
  }
}

void tn_clocks_merge(tn_clocks *a, const tn_clocks *b)
{
  if (b->samples == 0)
    return;
  if (a->sm_mhz_first == 0)
    a->sm_mhz_first = b->sm_mhz_first;
  if (b->sm_mhz_min > 0 &&
      (a->sm_mhz_min == 0 || b->sm_mhz_min < a->sm_mhz_min))
    a->sm_mhz_min = b->sm_mhz_min;
  if (b->sm_mhz_max > a->sm_mhz_max)
    a->sm_mhz_max = b->sm_mhz_max;
  if (b->power_mw_max > a->power_mw_max)
    a->power_mw_max = b->power_mw_max;
  a->power_mw_sum += b->power_mw_sum;
  a->power_samples += b->power_samples;
  if (b->temp_c_max > a->temp_c_max)
    a->temp_c_max = b->temp_c_max;
  a->reasons_known |= b->reasons_known;
  a->reasons |= b->reasons;
  a->samples += b->samples;
}

double tn_clocks_power_mean_mw(const tn_clocks *c)
{
  return c->power_samples > 0 ? c->power_mw_sum / c->power_samples : 0.0;
}

int tn_clocks_throttled(const tn_clocks *c, unsigned ref_mhz, double drop)
{
  if (c->samples == 0)
    return 0;
  if (c->reasons & TN_CLOCKS_THROTTLING)
    return 1;
  return ref_mhz > 0 && c->sm_mhz_min > 0 &&
         c->sm_mhz_min < (1.0 - drop) * ref_mhz;
}

const char *tn_clocks_reason_name(int b)
{
  return b >= 0 && b < N_NAMED
             ? reason_names[b]
             : NULL;
}

const char *tn_clocks_reason_names(unsigned long long mask, char *buf,
                                   size_t n)
{
  size_t used = 0;
  int b;
  if (n == 0)
    return buf;
  buf[0] = '\0';
  for (b = 0; b < 64; b++) {
    const char *name = tn_clocks_reason_name(b);
    char other[16];
    int w;
    if (!(mask >> b & 1ULL))
      continue;
    if (name == NULL) {
      snprintf(other, sizeof(other), "bit_%d", b);
      name = other;
    }
    w = snprintf(buf + used, n - used, "%s%s", used ? "," : "", name);
    if (w < 0 || (size_t)w >= n - used) {
      buf[used] = '\0'; /* cut at a whole name */
      break;
    }
    used += (size_t)w;
  }
  return buf;
}

int tn_clocks_reason_bit(const char *name)
{
  int b;
  char *end;
  long v;
  for (b = 0; b < N_NAMED; b++)
    if (strcmp(name, reason_names[b]) == 0)
      return b;
  if (strncmp(name, "bit_", 4) != 0 || name[4] < '0' || name[4] > '9')
    return -1;
  v = strtol(name + 4, &end, 10);
  if (*end != '\0' || v < N_NAMED || v > 63)
    return -1;
  return (int)v;
}

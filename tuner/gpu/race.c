/* race.c -- when a candidate's timed launches may stop early (race.h). */
#include "gpu/race.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int first_chunk(const tn_bench_settings *bs)
{
  int k = bs->min_repetitions > 0 ? bs->min_repetitions : 1;
  return k < bs->repetitions ? k : bs->repetitions;
}

int tn_race_next_chunk(const tn_bench_settings *bs, int full, int n)
{
  int want;
  if (n >= bs->repetitions)
    return 0;
  if (full)
    return bs->repetitions - n;
  want = n == 0 ? first_chunk(bs) : n; /* doubling */
  if (want > bs->repetitions - n)
    want = bs->repetitions - n;
  return want;
}

double tn_race_ci_width(const double *x, int n)
{
  double h = 0.98 * sqrt((double)n), med;
  int lo, hi;
  if (n <= 0)
    return INFINITY;
  /* 1-based ranks; P(x_(lo) <= median <= x_(hi)) >= 0.95 (binomial) */
  lo = (int)floor(n / 2.0 - h);
  hi = (int)ceil(n / 2.0 + 1.0 + h);
  if (lo < 1)
    lo = 1;
  if (hi > n)
    hi = n;
  med = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
  if (!(med > 0))
    return INFINITY;
  return (x[hi - 1] - x[lo - 1]) / med;
}

tn_race_verdict tn_race_check(const tn_bench_settings *bs, int race,
                              double stop_ms, int ci, double *ms, int n)
{
  if (n <= 0)
    return TN_RACE_GO_ON;
  qsort(ms, (size_t)n, sizeof(*ms), cmp_double);
  if (n >= bs->repetitions)
    return TN_RACE_DONE;
  if (n < first_chunk(bs))
    return TN_RACE_GO_ON;
  if (race && ms[0] > stop_ms)
    return TN_RACE_OUT;
  if (ci && bs->ci_target > 0 && tn_race_ci_width(ms, n) <= bs->ci_target)
    return TN_RACE_TIGHT;
  return TN_RACE_GO_ON;
}

/* timing.c -- what is kept of a kernel's timed launches (timing.h). */
#include "gpu/timing.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void tn_timing_from_samples(double *ms, int n, tn_timing *t)
{
  memset(t, 0, sizeof(*t));
  if (n <= 0)
    return;
  qsort(ms, (size_t)n, sizeof(*ms), cmp_double); /* n may be 100,000 */
  t->repetitions = n;
  t->min_ms = ms[0];
  t->max_ms = ms[n - 1];
  t->median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  t->q1_ms = ms[(n - 1) / 4];
  t->q3_ms = ms[(3 * (n - 1)) / 4];
}

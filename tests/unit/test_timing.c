/* test_timing.c -- tn_timing_from_samples: median, quartiles, min and max
 * of many shuffled samples, of a few, and of none. */
#include <stdlib.h>

#include "gpu/timing.h"
#include "test_util.h"

/* 1, 1.5, 2, ... (exact in binary), shuffled with a fixed seed. */
static double *shuffled(int n)
{
  double *ms = malloc((size_t)n * sizeof(*ms));
  unsigned long long z = 0x2545f4914f6cdd1dULL;
  int i;
  if (ms == NULL)
    return NULL;
  for (i = 0; i < n; i++)
    ms[i] = 1.0 + 0.5 * i;
  for (i = n - 1; i > 0; i--) { /* Fisher-Yates with xorshift64 */
    int j;
    double v;
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    j = (int)(z % (unsigned long long)(i + 1));
    v = ms[i];
    ms[i] = ms[j];
    ms[j] = v;
  }
  return ms;
}

int main(void)
{
  /* 100,001 samples: the sorted value at index k is 1 + k / 2. */
  const int n = 100001;
  double *ms = shuffled(n);
  double few[4] = {4.0, 1.0, 3.0, 2.0};
  double one[1] = {7.0};
  tn_timing t;
  int i, moved = 0;

  CHECK(ms != NULL);
  if (ms == NULL)
    TEST_DONE();
  for (i = 0; i < n; i++)
    moved += ms[i] != 1.0 + 0.5 * i;
  CHECK(moved > n / 2); /* the shuffle shuffled */
  tn_timing_from_samples(ms, n, &t);
  CHECK_EQ_INT(t.repetitions, n);
  CHECK(t.min_ms == 1.0);
  CHECK(t.max_ms == 1.0 + 0.5 * (n - 1));  /* 50001 */
  CHECK(t.median_ms == 1.0 + 0.5 * 50000); /* index n / 2 */
  CHECK(t.q1_ms == 1.0 + 0.5 * 25000);     /* index (n - 1) / 4 */
  CHECK(t.q3_ms == 1.0 + 0.5 * 75000);     /* index 3 (n - 1) / 4 */
  for (i = 1; i < n; i++)
    if (ms[i - 1] > ms[i])
      break;
  CHECK_EQ_INT(i, n); /* sorted in place */
  free(ms);

  /* An even count: the median is the mean of the middle two. */
  tn_timing_from_samples(few, 4, &t);
  CHECK(t.min_ms == 1.0 && t.max_ms == 4.0);
  CHECK(t.median_ms == 2.5);
  CHECK(t.q1_ms == 1.0 && t.q3_ms == 3.0);

  tn_timing_from_samples(one, 1, &t);
  CHECK(t.min_ms == 7.0 && t.median_ms == 7.0 && t.max_ms == 7.0);
  CHECK(t.q1_ms == 7.0 && t.q3_ms == 7.0);

  tn_timing_from_samples(one, 0, &t);
  CHECK_EQ_INT(t.repetitions, 0);
  CHECK(t.median_ms == 0.0);
  TEST_DONE();
}

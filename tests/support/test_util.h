/* test_util.h -- a few assertion macros for the C tests: each failure
 * prints where and what, and the test's exit status counts them; and the
 * check of a refusal's reason. */
#ifndef TN_TEST_UTIL_H
#define TN_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

static int tn_test_failures;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,       \
              #cond);                                                        \
      tn_test_failures++;                                                    \
    }                                                                        \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                   \
  do {                                                                       \
    long long va_ = (long long)(a), vb_ = (long long)(b);                    \
    if (va_ != vb_) {                                                        \
      fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__,  \
              __LINE__, #a, va_, #b, vb_);                                   \
      tn_test_failures++;                                                    \
    }                                                                        \
  } while (0)

/* rc, a family's prepare() answer, must be a refusal whose why names
 * reason. */
static inline void expect_refusal(int rc, const char *why,
                                  const char *reason)
{
  CHECK_EQ_INT(rc, 1);
  if (strstr(why, reason) == NULL) {
    fprintf(stderr, "expected a reason with \"%s\", got \"%s\"\n", reason,
            why);
    tn_test_failures++;
  }
}

#define TEST_DONE()                                                          \
  do {                                                                       \
    if (tn_test_failures)                                                    \
      fprintf(stderr, "%d check(s) failed\n", tn_test_failures);             \
    return tn_test_failures ? 1 : 0;                                         \
  } while (0)

#endif

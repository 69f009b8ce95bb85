/* gemm_plan_util.h -- what the GEMM families' plan tests share
 * (test_gemm_plan.c, test_gemm_tc_plan.c): a CHECK_WHY that says why in a
 * message of its own, a point given as settings over the family's
 * defaults, and an M x N x K problem with its operands' transposes. */
#ifndef TN_GEMM_PLAN_UTIL_H
#define TN_GEMM_PLAN_UTIL_H

#include <stdio.h>
#include <string.h>

#include "family/family.h"
#include "family_util.h"

static int failures;

#define CHECK_WHY(cond, ...)                                                 \
  do {                                                                       \
    if (!(cond)) {                                                           \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                            \
      printf(__VA_ARGS__);                                                   \
      printf("\n");                                                          \
      failures++;                                                            \
    }                                                                        \
  } while (0)

typedef struct {
  const char *name;
  const char *value; /* an integer, or a swizzle name */
} setting;

/* Sets the parameter s names in p.  Returns 0, or -1 (why) where f has no
 * such parameter or the swizzle does not parse. */
static inline int tn_test_set(const tn_family *f, const setting *s,
                              tn_params *p, char *why, size_t n)
{
  int k = tn_param_index(f->params, f->n_params, s->name);
  if (k < 0) {
    snprintf(why, n, "no parameter %s", s->name);
    return -1;
  }
  if (f->params[k].kind == TN_PARAM_SWIZZLE)
    return tn_swizzle_parse(s->value, &p->v[k].sw, why, n) != 0 ? -1 : 0;
  p->v[k].i = 0;
  sscanf(s->value, "%lld", &p->v[k].i);
  return 0;
}

/* A point of f: its defaults, then the n_base settings of base, then the
 * n_set of set (a later one wins).  Returns prepare()'s answer (why), -1
 * if a setting does not apply. */
static inline int tn_test_gemm_point(const tn_family *f, const setting *base,
                                     int n_base, const setting *set,
                                     int n_set, const tn_problem *prob,
                                     tn_params *p, char *why, size_t n)
{
  int i, k;
  memset(p, 0, sizeof(*p));
  for (k = 0; k < f->n_params; k++)
    p->v[k].i = f->params[k].def;
  for (i = 0; i < n_base; i++)
    if (tn_test_set(f, &base[i], p, why, n) != 0)
      return -1;
  for (i = 0; i < n_set; i++)
    if (tn_test_set(f, &set[i], p, why, n) != 0)
      return -1;
  return f->prepare(f, p, prob, why, n);
}

/* f's problem of m x n x k (dims m, n, k) with trans_a ta and trans_b tb,
 * every other option at its default. */
static inline tn_problem tn_test_gemm_problem(const tn_family *f,
                                              long long m, long long n,
                                              long long k, int ta, int tb)
{
  tn_problem prob = mnk_problem(f, m, n, k);
  prob.opt[tn_problem_option_index(f, "trans_a")] = ta;
  prob.opt[tn_problem_option_index(f, "trans_b")] = tb;
  return prob;
}

#endif

/* family_util.h -- what tests of a family's points share: a point at the
 * family's defaults, the value a point's macros give one name, and a
 * problem of three sizes (a GEMM's M x N x K) at the options' defaults. */
#ifndef TN_FAMILY_UTIL_H
#define TN_FAMILY_UTIL_H

#include <string.h>

#include "family/family.h"

/* p: every parameter of f at its default. */
static inline void default_point(const tn_family *f, tn_params *p)
{
  int k;
  memset(p, 0, sizeof(*p));
  for (k = 0; k < f->n_params; k++)
    p->v[k].i = f->params[k].def;
}

/* The value of the macro called name in d, or NULL where d lacks it. */
static inline const char *define_of(const tn_defines *d, const char *name)
{
  int i;
  for (i = 0; i < d->n; i++)
    if (strcmp(d->name[i], name) == 0)
      return d->value[i];
  return NULL;
}

/* An M x N x K problem of f, every option at its default. */
static inline tn_problem mnk_problem(const tn_family *f, long long m,
                                     long long n, long long k)
{
  tn_problem prob;
  tn_problem_defaults(f, &prob);
  prob.size.n_dims = 3;
  prob.size.dims[0] = m;
  prob.size.dims[1] = n;
  prob.size.dims[2] = k;
  return prob;
}

#endif

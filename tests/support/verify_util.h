/* verify_util.h -- the host side of a family's check for the C tests of
 * the transposes (test_transpose_batched.c, test_transpose_widths.c): the
 * check's environment, built here once so that each test says only what
 * it puts in the buffers. */
#ifndef TN_VERIFY_UTIL_H
#define TN_VERIFY_UTIL_H

#include <string.h>

#include "family/family.h"

/* Sets env to check f's problem prob, whose two buffers d describe, from
 * the host copies in (buffer 0, the input) and out (buffer 1, the
 * output); nothing on a device. */
static inline void tn_test_verify_env(tn_verify_env *env, const tn_family *f,
                                      const tn_problem *prob,
                                      const tn_buffer_desc *d, void *in,
                                      void *out)
{
  memset(env, 0, sizeof(*env));
  env->family = f;
  env->problem = prob;
  env->n_buffers = 2;
  env->descs = d;
  env->host[0] = in;
  env->host[1] = out;
}

#endif

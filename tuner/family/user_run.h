/* user_run.h -- a described kernel in the worker: the buffers of its
 * arguments (and of a copy baseline), its arguments for a point, its
 * __constant__ symbols, the check of its outputs against the reference's
 * (each floating output within atol + rtol |ref|, integers exactly), the
 * copy baseline. */
#ifndef TN_USER_RUN_H
#define TN_USER_RUN_H

#include "family/user_kernel.h"

int tn_user_buffers(const tn_family *f, const tn_problem *prob,
                    tn_buffer_desc *out);
void tn_user_args(const tn_family *f, const tn_params *p,
                  const tn_problem *prob, const tn_devptr *bufs,
                  tn_args *out);
int tn_user_constants(const tn_family *f, const tn_params *p,
                      const tn_problem *prob, tn_constant_desc *out);
int tn_user_verify(tn_verify_env *env, char *why, size_t n);
int tn_user_baseline(const char *name, tn_baseline_env *env, char *why,
                     size_t n);

#endif

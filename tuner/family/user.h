/* user.h -- the family a config describes: the user's own kernel.
 *
 * The config (pipeline/config_user.c, docs/kernels.md) names a .cu file
 * and a kernel, its parameters, its problem's dimensions, the launch,
 * the arguments in the kernel's order, the reference it is checked
 * against, its rate, a baseline, and optionally its shared-memory plan
 * (family/user_kernel.h holds that description).  The tn_family made from
 * it takes the space, the model, the compiles, the worker, the results,
 * the headers and the merges as a family compiled in does. */
#ifndef TN_USER_H
#define TN_USER_H

#include "family/user_kernel.h"

/* Fills u->family from u's description (after the config is read):
 * name, parameters, dimensions, callbacks.  Returns 0. */
int tn_user_family_init(tn_user_kernel *u, const char *name);

/* Frees what u holds (its compiled expressions, sources); not u. */
void tn_user_kernel_free(tn_user_kernel *u);


#endif

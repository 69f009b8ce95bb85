/* user_plan.h -- the warp accesses a described kernel's shared-memory plan
 * declares, for the model (family/user_plan.c says how lanes map). */
#ifndef TN_USER_PLAN_H
#define TN_USER_PLAN_H

#include "family/user_kernel.h"

/* The plan's warp accesses of a launch of p on prob, every block priced
 * as the first.  Sets sink->failed with why when an expression fails or
 * an address leaves its array. */
void tn_user_plan(const tn_family *f, const tn_params *p,
                  const tn_problem *prob, tn_access_sink *sink);
/* The same for the plan's access index alone.  0, or -1 (sink->failed). */
int tn_user_plan_access(const tn_family *f, const tn_params *p,
                        const tn_problem *prob, int index,
                        tn_access_sink *sink);

/* NULL if width bytes per lane suit op, else what op takes ("1, 2, 4,
 * 8 or 16 bytes"). */
const char *tn_user_width_problem(int op, long long width);

#endif

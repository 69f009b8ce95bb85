/* plan_price.h -- a described kernel's declared plan priced one access at
 * a time: for a point and a problem, each declared access's warp-level
 * shared-memory instructions and wavefronts per launch, and the launch's
 * totals by the kind Nsight Compute counts them under (model.h).  What
 * `tuner plan` (plan_cmd.h) prints. */
#ifndef TN_PLAN_PRICE_H
#define TN_PLAN_PRICE_H

#include <stddef.h>

#include "family/user_kernel.h"
#include "model/model.h"
#include "pipeline/job.h"
#include "pipeline/space.h"

typedef struct {
  long long insts, wavefronts;
} tn_plan_count;

/* One point on one problem, priced. */
typedef struct {
  tn_launch launch;
  long long blocks;
  tn_plan_count access[TN_USER_MAX_ACCESSES]; /* by the plan's order */
  tn_plan_count kind[TN_KIND_COUNT];
} tn_plan_priced;

/* The kind access x's instructions are counted under. */
tn_ncu_kind tn_plan_access_kind(const tn_uaccess *x);

/* x's op as a config names it: "ld", "st", "ldmatrix", "stmatrix",
 * "cp.async" or "cp.async.cg". */
const char *tn_plan_op_name(int op);

/* Candidate c of job (a described kernel with a plan; c of a space built
 * for arch, so that its model is there) on problem k, access by access.
 * The accesses must add up to c's model of that problem.  Returns 0, or
 * -1 with why (an access that does not price, or a sum that is not the
 * model's: a bug). */
int tn_plan_price(const tn_job *job, const tn_arch *arch,
                  const tn_candidate *c, int k, tn_plan_priced *out,
                  char *why, size_t n);

#endif

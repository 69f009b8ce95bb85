/* model_async.h -- shared-memory wavefronts of cp.async (LDGSTS).
 *
 * cp.async copies global memory straight into shared memory, and what it
 * costs there depends on both sides: the global offsets each lane reads
 * and the shared offsets it writes.  Used by tn_model_access. */
#ifndef TN_MODEL_ASYNC_H
#define TN_MODEL_ASYNC_H

#include <stddef.h>

#include "model/access.h"

/* Costs one warp-wide cp.async (a->op TN_OP_CP_ASYNC_CA or _CG).  Returns
 * 0, or -1 with a reason in why for a bad width or an unaligned offset. */
int tn_model_cp_async(const tn_warp_access *a, tn_access_cost *cost,
                      char *why, size_t why_len);

#endif

/* config_user_plan.h -- a described kernel's shared-memory plan, from its
 * config: its arrays and the warp accesses to them (docs/kernels.md), and
 * which parameters set a layout alone. */
#ifndef TN_CONFIG_USER_PLAN_H
#define TN_CONFIG_USER_PLAN_H

#include <libconfig.h>

#include "pipeline/config_read.h"
#include "pipeline/job.h"

/* Reads root's plan (if any) into job->user and marks the layout
 * parameters.  0 or TN_EINPUT. */
int tn_config_user_plan(tn_cfg *c, const config_setting_t *root,
                        tn_job *job);

#endif

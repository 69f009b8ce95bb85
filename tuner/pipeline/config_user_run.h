/* config_user_run.h -- how a described kernel runs, from its config: the
 * launch, the baseline, the arguments, the __constant__ symbols, the
 * reference and the rate (docs/kernels.md). */
#ifndef TN_CONFIG_USER_RUN_H
#define TN_CONFIG_USER_RUN_H

#include <libconfig.h>

#include "pipeline/config_read.h"
#include "pipeline/job.h"

/* Reads them from root into job->user, each expression evaluated on every
 * problem.  0 or TN_EINPUT. */
int tn_config_user_run(tn_cfg *c, const config_setting_t *root, tn_job *job);

#endif

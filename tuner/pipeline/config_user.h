/* config_user.h -- the keys of a config that describes the user's own
 * kernel (docs/kernels.md): `kernel` in place of `family` and
 * `template`, and `launch`, `arguments`, `constants`, `check`, `rate`,
 * `baseline` and `plan`.
 *
 * Read in two steps around the keys every config has: the head (the
 * kernel, the problem's dimensions and the space's parameters) makes the
 * family the problem's sizes and the space are read against; the tail
 * reads the rest, each expression compiled against the names it may use
 * and evaluated on every problem, so that a mistake is FILE:LINE and
 * exit 2 before any work. */
#ifndef TN_CONFIG_USER_H
#define TN_CONFIG_USER_H

#include <libconfig.h>

#include "family/user.h"
#include "family/user_eval.h"
#include "pipeline/job.h"
#include "pipeline/config_read.h"

/* The top-level keys of such a config beside those of every config. */
extern const char *const tn_config_user_keys[];

/* root's kernel group, problem.dims and the space's parameter names and
 * kinds into a new job->user; job->family is its family.  With
 * describe_only, the .cu files are not read (a results file's copy of
 * the config, on a host that lacks them).  Returns 0 or TN_EINPUT. */
int tn_config_user_head(tn_cfg *c, const config_setting_t *root,
                        tn_job *job, int describe_only);

/* The values of user parameter k (a list, a range, or swizzle names)
 * from setting s into out.  Returns 0 or TN_EINPUT. */
int tn_config_user_values(tn_cfg *c, const config_setting_t *s,
                          tn_param_desc *d, tn_param_values *out);

/* The rest, once the problems and the space are read.  Returns 0 or
 * TN_EINPUT. */
int tn_config_user_tail(tn_cfg *c, const config_setting_t *root,
                        tn_job *job);

#endif

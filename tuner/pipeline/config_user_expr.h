/* config_user_expr.h -- an expression of a described kernel's config:
 * read from a setting, compiled against the names in scope. */
#ifndef TN_CONFIG_USER_EXPR_H
#define TN_CONFIG_USER_EXPR_H

#include <libconfig.h>

#include "family/user_expr.h"
#include "pipeline/config_read.h"

/* An expression at setting s (a string, or an integer literal) into e,
 * compiled against scope: unknown names are FILE:LINE errors that list
 * the names in scope.  what names it in messages.  0 or TN_EINPUT. */
int tn_config_user_expr(tn_cfg *c, const config_setting_t *s,
                        const char *what, const tn_uscope *scope,
                        tn_uexpr *e);
/* The same for group s's optional member key; absent: e stays empty. */
int tn_config_user_opt_expr(tn_cfg *c, const config_setting_t *s,
                            const char *key, const char *what,
                            const tn_uscope *scope, tn_uexpr *e);

/* Where e stands it may not read smem_bytes (the constraints' alone: it
 * is what the launch and the plan come to) nor, with threads_why, threads
 * (threads_why says why).  0, or TN_EINPUT naming e's line. */
int tn_config_user_known(tn_cfg *c, const config_setting_t *s,
                         const tn_uexpr *e, const char *threads_why);

#endif

/* config_user_expr.c -- an expression of a described kernel's config. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/config_user_expr.h"

#include <stdio.h>
#include <string.h>

/* An expression: a string, or an integer literal, read into e with its
 * line, compiled against scope. */
int tn_config_user_expr(tn_cfg *c, const config_setting_t *s, const char *what,
                    const tn_uscope *scope, tn_uexpr *e)
{
  char why[512];
  memset(e, 0, sizeof(*e));
  tn_strlcpy(e->what, what, sizeof(e->what));
  e->line = tn_cfg_line(c, s);
  if (tn_cfg_is_int(s)) {
    long long v;
    int rc = tn_cfg_get_int(c, s, what, -(1LL << 62), 1LL << 62, &v);
    if (rc)
      return rc;
    snprintf(e->text, sizeof(e->text), "%lld", v);
  } else if (config_setting_type(s) == CONFIG_TYPE_STRING) {
    int rc = tn_cfg_get_string(c, s, what, e->text, sizeof(e->text));
    if (rc)
      return rc;
  } else {
    return tn_cfg_bad(c, s, "%s: expected an expression (a string such as "
                            "\"ceil(cols / block_x)\") or an integer",
                      what);
  }
  if (tn_uexpr_compile(e, scope, why, sizeof(why)) != 0) {
    char names[1024] = "";
    size_t used = 0;
    int i;
    for (i = 0; i < TN_USLOT_COUNT && used < sizeof(names); i++)
      if (scope->name[i][0])
        used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
                                 used ? ", " : "", scope->name[i]);
    return tn_cfg_bad(c, s, "%s \"%s\": %s (names: %s)", what, e->text, why,
                      names);
  }
  return 0;
}

int tn_config_user_known(tn_cfg *c, const config_setting_t *s,
                         const tn_uexpr *e, const char *threads_why)
{
  if (tn_uexpr_uses(e, TN_USLOT_SMEM))
    return tn_cfg_bad(c, s, "%s \"%s\": smem_bytes is known to the "
                            "constraints alone (it is what the launch and "
                            "the plan come to)",
                      e->what, e->text);
  if (threads_why && tn_uexpr_uses(e, TN_USLOT_THREADS))
    return tn_cfg_bad(c, s, "%s \"%s\": threads is not known here (%s)",
                      e->what, e->text, threads_why);
  return 0;
}

/* An optional member of group s as an expression; absent: e is empty. */
int tn_config_user_opt_expr(tn_cfg *c, const config_setting_t *s, const char *key,
                    const char *what, const tn_uscope *scope, tn_uexpr *e)
{
  const config_setting_t *m = config_setting_get_member(s, key);
  memset(e, 0, sizeof(*e));
  tn_strlcpy(e->what, what, sizeof(e->what));
  return m ? tn_config_user_expr(c, m, what, scope, e) : 0;
}

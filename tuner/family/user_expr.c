/* user_expr.c -- the expressions of a kernel described by a config. */
#include "family/user_expr.h"

#include <stdio.h>
#include <string.h>

#include "base/expr.h"
#include "base/util.h"

int tn_uscope_find(const tn_uscope *scope, const char *name)
{
  int i;
  for (i = 0; i < TN_USLOT_COUNT; i++)
    if (scope->name[i][0] != '\0' && strcmp(scope->name[i], name) == 0)
      return i;
  return -1;
}

static int resolve(void *ctx, const char *name)
{
  return tn_uscope_find(ctx, name);
}

void tn_uexpr_init(tn_uexpr *e, const char *what, const char *text)
{
  memset(e, 0, sizeof(*e));
  tn_strlcpy(e->what, what, sizeof(e->what));
  tn_strlcpy(e->text, text, sizeof(e->text));
}

int tn_uexpr_compile(tn_uexpr *e, const tn_uscope *scope, char *why,
                     size_t n)
{
  tn_expr *code = NULL;
  tn_uexpr_free(e);
  if (tn_expr_compile(e->text, resolve, (void *)scope, &code, why, n) != 0)
    return -1;
  e->code = code;
  return 0;
}

int tn_uexpr_eval(const tn_uexpr *e, const long long *slots, long long *out,
                  char *why, size_t n)
{
  char msg[256];
  if (e->code == NULL) {
    snprintf(why, n, "%s \"%s\": not compiled (a bug)", e->what, e->text);
    return -1;
  }
  if (tn_expr_run(e->code, slots, out, msg, sizeof(msg)) != 0) {
    snprintf(why, n, "%s \"%s\": %s", e->what, e->text, msg);
    return -1;
  }
  return 0;
}

int tn_uexpr_uses(const tn_uexpr *e, int slot)
{
  return e->code != NULL && tn_expr_uses(e->code, slot);
}

void tn_uexpr_free(tn_uexpr *e)
{
  if (e->code)
    tn_expr_free(e->code);
  e->code = NULL;
}

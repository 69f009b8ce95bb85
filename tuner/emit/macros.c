/* macros.c -- the #define lines headers are made of: a configuration's
 * parameters and the family's derived macros under a prefix, aliases of
 * them, and the TN_<...> macros a template reads (tn_family_macros). */
#include "emit/internal.h"

#include <string.h>

/* Macros tn_family_macros writes for the parameters themselves. */
static int n_param_macros(const tn_family *f)
{
  int k, n = 0;
  for (k = 0; k < f->n_params; k++)
    n += f->params[k].kind == TN_PARAM_SWIZZLE ? 3 : 1;
  return n;
}

void tn__emit_derived(const tn_family *f, const tn_params *p,
                      const tn_problem *prob, tn_defines *out)
{
  tn_defines all;
  int i;
  memset(out, 0, sizeof(*out));
  if (prob == NULL)
    return;
  tn_family_macros(f, p, prob, &all);
  for (i = n_param_macros(f); i < all.n; i++) {
    const char *name = all.name[i];
    char m[48];
    if (strncmp(name, "TN_", 3) == 0)
      name += 3;
    tn_emit_macro_name(m, sizeof(m), name);
    tn_defines_add(out, m, "%s", all.value[i]);
  }
}

void tn__emit_values(FILE *o, const tn_family *f, const tn_params *p,
                     const tn_defines *d, const char *prefix)
{
  int k;
  for (k = 0; p != NULL && k < f->n_params; k++) {
    char pname[48];
    tn_emit_macro_name(pname, sizeof(pname), f->params[k].name);
    if (f->params[k].kind == TN_PARAM_SWIZZLE) {
      const tn_swizzle *sw = &p->v[k].sw;
      char swn[32];
      fprintf(o, "#define %s_%s_B %d /* %s */\n", prefix, pname, sw->b,
              tn_swizzle_name(sw, swn, sizeof(swn)));
      fprintf(o, "#define %s_%s_M %d\n", prefix, pname, sw->m);
      fprintf(o, "#define %s_%s_S %d\n", prefix, pname, sw->s);
    } else {
      fprintf(o, "#define %s_%s %lld\n", prefix, pname, p->v[k].i);
    }
  }
  for (k = 0; d != NULL && k < d->n; k++)
    fprintf(o, "#define %s_%s %s\n", prefix, d->name[k], d->value[k]);
}

void tn__emit_aliases(FILE *o, const tn_family *f, const tn_defines *d,
                      const char *to, const char *from)
{
  static const char *const parts[] = {"_B", "_M", "_S"};
  int k, j;
  for (k = 0; k < f->n_params; k++) {
    char pname[48];
    tn_emit_macro_name(pname, sizeof(pname), f->params[k].name);
    if (f->params[k].kind == TN_PARAM_SWIZZLE)
      for (j = 0; j < 3; j++)
        fprintf(o, "#define %s_%s%s %s_%s%s\n", to, pname, parts[j], from,
                pname, parts[j]);
    else
      fprintf(o, "#define %s_%s %s_%s\n", to, pname, from, pname);
  }
  for (k = 0; d != NULL && k < d->n; k++)
    fprintf(o, "#define %s_%s %s_%s\n", to, d->name[k], from, d->name[k]);
}

void tn__emit_template_macros(FILE *o, const tn_family *f, const tn_params *p,
                              const tn_problem *prob)
{
  tn_defines all;
  int i;
  tn_family_macros(f, p, prob, &all);
  for (i = 0; i < all.n; i++)
    fprintf(o, "#define %s %s\n", all.name[i], all.value[i]);
}

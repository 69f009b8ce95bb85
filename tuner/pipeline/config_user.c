/* config_user.c -- the keys of a config that describes the user's own
 * kernel (docs/kernels.md). */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/config_user.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/access.h"
#include "pipeline/config_user_expr.h"
#include "pipeline/config_user_plan.h"
#include "pipeline/config_user_run.h"

const char *const tn_config_user_keys[] = {
    "kernel", "launch", "arguments", "constants", "check",
    "rate",   "baseline", "plan",    NULL};

/* ---- the head: kernel, dimensions, parameters ---- */

static int parse_kernel(tn_cfg *c, const config_setting_t *s,
                        tn_user_kernel *u, int describe_only)
{
  static const char *const keys[] = {"file", "name", "layout", NULL};
  const config_setting_t *m;
  int rc;

  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "kernel: expected a group { file = \"k.cu\"; "
                            "name = \"my_kernel\"; }");
  rc = tn_cfg_only_keys(c, s, "kernel", keys);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "name");
  if (m == NULL)
    return tn_cfg_bad(c, s, "kernel: missing 'name' (the __global__ "
                            "function to tune)");
  u->kernel_line = tn_cfg_line(c, m);
  rc = tn_cfg_get_string(c, m, "kernel.name", u->kernel, sizeof(u->kernel));
  if (rc)
    return rc;
  if (!tn_cfg_identifier(u->kernel))
    return tn_cfg_bad(c, m, "kernel.name: '%s' is not a C identifier",
                      u->kernel);
  m = config_setting_get_member(s, "file");
  if (m == NULL)
    return tn_cfg_bad(c, s, "kernel: missing 'file' (the .cu file that "
                            "defines %s)",
                      u->kernel);
  if (describe_only)
    rc = tn_cfg_get_string(c, m, "kernel.file", u->file, sizeof(u->file));
  else
    rc = tn_cfg_get_path(c, m, "kernel.file", u->file, sizeof(u->file));
  if (rc)
    return rc;
  return 0;
}

static int parse_dims(tn_cfg *c, const config_setting_t *problem,
                      tn_user_kernel *u)
{
  const config_setting_t *m;
  size_t used = 0;
  int i, j, rc;

  if (problem == NULL || !config_setting_is_group(problem))
    return 0; /* config.c reports a missing or malformed problem */
  m = config_setting_get_member(problem, "dims");
  if (m == NULL)
    return tn_cfg_bad(c, problem, "problem: missing 'dims' (the names of "
                                  "the problem's dimensions, e.g. "
                                  "[\"rows\", \"cols\"])");
  if (!tn_cfg_is_list(m) || config_setting_length(m) < 1 ||
      config_setting_length(m) > TN_MAX_DIMS)
    return tn_cfg_bad(c, m, "problem.dims: expected a list of 1 to %d names",
                      TN_MAX_DIMS);
  u->n_dims = config_setting_length(m);
  for (i = 0; i < u->n_dims; i++) {
    const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
    rc = tn_cfg_get_string(c, e, "problem.dims", u->dim_names[i],
                           sizeof(u->dim_names[i]));
    if (rc)
      return rc;
    if (!tn_cfg_identifier(u->dim_names[i]))
      return tn_cfg_bad(c, e, "problem.dims: '%s' is not a name",
                        u->dim_names[i]);
    for (j = 0; j < i; j++)
      if (strcmp(u->dim_names[j], u->dim_names[i]) == 0)
        return tn_cfg_bad(c, e, "problem.dims: '%s' listed twice",
                          u->dim_names[i]);
    used += (size_t)snprintf(u->dim_list + used, sizeof(u->dim_list) - used,
                             "%s%s", i ? ", " : "", u->dim_names[i]);
  }
  return 0;
}

/* 1 if the values of space member s are swizzle names. */
static int swizzle_valued(const config_setting_t *s)
{
  const config_setting_t *e = s;
  if (tn_cfg_is_list(s) && config_setting_length(s) > 0)
    e = config_setting_get_elem(s, 0);
  return config_setting_type(e) == CONFIG_TYPE_STRING;
}

static int parse_params(tn_cfg *c, const config_setting_t *space,
                        tn_user_kernel *u)
{
  int i, n, j;
  if (space == NULL || !config_setting_is_group(space))
    return 0; /* config.c reports it */
  n = config_setting_length(space);
  if (n > TN_MAX_PARAMS)
    return tn_cfg_bad(c, space, "space: more than %d parameters",
                      TN_MAX_PARAMS);
  for (i = 0; i < n; i++) {
    const config_setting_t *m = config_setting_get_elem(space, (unsigned)i);
    const char *name = config_setting_name(m);
    tn_param_desc *d = &u->params[i];
    char upper_a[TN_NAME_LEN], upper_b[TN_NAME_LEN];
    if (!tn_cfg_identifier(name) || strlen(name) >= TN_NAME_LEN)
      return tn_cfg_bad(c, m, "space: '%s' is not a parameter name (a C "
                              "identifier of at most %d characters: it is "
                              "#defined in the kernel's source)",
                        name, TN_NAME_LEN - 1);
    for (j = 0; j < u->n_dims; j++)
      if (strcmp(u->dim_names[j], name) == 0)
        return tn_cfg_bad(c, m, "space: '%s' is also a dimension of the "
                                "problem",
                          name);
    /* the headers' macros spell parameters in capitals: two that differ
     * only in case would be one macro */
    for (j = 0; j < i; j++) {
      size_t k;
      for (k = 0; name[k] && k + 1 < sizeof(upper_a); k++)
        upper_a[k] = (char)toupper((unsigned char)name[k]);
      upper_a[k] = '\0';
      for (k = 0; u->param_names[j][k] && k + 1 < sizeof(upper_b); k++)
        upper_b[k] = (char)toupper((unsigned char)u->param_names[j][k]);
      upper_b[k] = '\0';
      if (strcmp(upper_a, upper_b) == 0)
        return tn_cfg_bad(c, m, "space: '%s' and '%s' differ only in case "
                                "(the headers' macros would be one)",
                          name, u->param_names[j]);
    }
    tn_strlcpy(u->param_names[i], name, sizeof(u->param_names[i]));
    d->name = u->param_names[i];
    d->kind = swizzle_valued(m) ? TN_PARAM_SWIZZLE : TN_PARAM_INT;
    d->min = -(1LL << 40);
    d->max = 1LL << 40;
    d->help = "a parameter of the user's kernel";
  }
  u->n_params = n;
  return 0;
}

/* The names of the head's scope: parameters, dimensions, threads and
 * smem_bytes. */
static int make_scope(tn_cfg *c, const config_setting_t *root,
                      tn_user_kernel *u)
{
  int k;
  memset(&u->scope, 0, sizeof(u->scope));
  for (k = 0; k < u->n_params; k++)
    tn_strlcpy(u->scope.name[TN_USLOT_PARAM0 + k], u->param_names[k],
               TN_NAME_LEN);
  for (k = 0; k < u->n_dims; k++)
    tn_strlcpy(u->scope.name[TN_USLOT_DIM0 + k], u->dim_names[k],
               TN_NAME_LEN);
  for (k = 0; k < u->n_params; k++)
    if (strcmp(u->param_names[k], "threads") == 0 ||
        strcmp(u->param_names[k], "smem_bytes") == 0)
      return tn_cfg_bad(c, root, "space: '%s' is a name the tuner gives "
                                 "(a block's threads and shared memory)",
                        u->param_names[k]);
  tn_strlcpy(u->scope.name[TN_USLOT_THREADS], "threads", TN_NAME_LEN);
  tn_strlcpy(u->scope.name[TN_USLOT_SMEM], "smem_bytes", TN_NAME_LEN);
  return 0;
}

int tn_config_user_head(tn_cfg *c, const config_setting_t *root,
                        tn_job *job, int describe_only)
{
  const config_setting_t *s = config_setting_get_member(root, "kernel");
  tn_user_kernel *u;
  int rc;

  u = calloc(1, sizeof(*u));
  if (u == NULL)
    return tn_errf(c->err, TN_ETOOL, "out of memory");
  job->user = u;
  tn_strlcpy(u->config_path, c->file, sizeof(u->config_path));
  rc = parse_kernel(c, s, u, describe_only);
  if (rc == 0)
    rc = parse_dims(c, config_setting_get_member(root, "problem"), u);
  if (rc == 0)
    rc = parse_params(c, config_setting_get_member(root, "space"), u);
  if (rc == 0)
    rc = make_scope(c, root, u);
  if (rc)
    return rc;
  if (!describe_only &&
      tn_read_file(u->file, &u->source, NULL, c->err) != 0)
    return tn_cfg_bad(c, s, "kernel.file: cannot read %s", u->file);
  tn_user_family_init(u, job->name);
  job->family = &u->family;
  tn_strlcpy(job->template_path, u->file, sizeof(job->template_path));
  return 0;
}

/* ---- parameter values ---- */

static int add_value(tn_cfg *c, const config_setting_t *e, const char *what,
                     tn_param_values *out, long long v)
{
  int j;
  if (out->n >= TN_MAX_VALUES)
    return tn_cfg_bad(c, e, "%s: more than %d values", what, TN_MAX_VALUES);
  for (j = 0; j < out->n; j++)
    if (out->values[j].i == v)
      return tn_cfg_bad(c, e, "%s: %lld listed twice", what, v);
  memset(&out->values[out->n], 0, sizeof(out->values[0]));
  out->values[out->n++].i = v;
  return 0;
}

/* { from = A; to = B; step = S; } or { ...; times = T; } */
static int add_range(tn_cfg *c, const config_setting_t *s, const char *what,
                     tn_param_values *out)
{
  static const char *const keys[] = {"from", "to", "step", "times", NULL};
  const config_setting_t *f = config_setting_get_member(s, "from");
  const config_setting_t *t = config_setting_get_member(s, "to");
  const config_setting_t *st = config_setting_get_member(s, "step");
  const config_setting_t *ti = config_setting_get_member(s, "times");
  long long a, b, k = 1, v;
  int rc = tn_cfg_only_keys(c, s, what, keys);
  if (rc)
    return rc;
  if (f == NULL || t == NULL || (st == NULL) == (ti == NULL))
    return tn_cfg_bad(c, s, "%s: a range is { from = A; to = B; step = S; } "
                            "or { from = A; to = B; times = T; }",
                      what);
  rc = tn_cfg_get_int(c, f, what, -(1LL << 40), 1LL << 40, &a);
  if (rc == 0)
    rc = tn_cfg_get_int(c, t, what, a, 1LL << 40, &b);
  if (rc == 0)
    rc = st ? tn_cfg_get_int(c, st, what, 1, 1LL << 40, &k)
            : tn_cfg_get_int(c, ti, what, 2, 1 << 20, &k);
  if (rc)
    return rc;
  if (ti && a <= 0)
    return tn_cfg_bad(c, s, "%s: a range by times starts above 0", what);
  for (v = a; v <= b; v = st ? v + k : v * k) {
    rc = add_value(c, s, what, out, v);
    if (rc)
      return rc;
  }
  return 0;
}

int tn_config_user_values(tn_cfg *c, const config_setting_t *s,
                          tn_param_desc *d, tn_param_values *out)
{
  char what[96];
  int i, n, rc;

  snprintf(what, sizeof(what), "space.%s", d->name);
  out->line = tn_cfg_line(c, s);
  out->n = 0;
  if (config_setting_is_group(s))
    return add_range(c, s, what, out);
  n = tn_cfg_is_list(s) ? config_setting_length(s) : 1;
  if (n == 0)
    return tn_cfg_bad(c, s, "%s: the list of values is empty", what);
  for (i = 0; i < n; i++) {
    const config_setting_t *e =
        tn_cfg_is_list(s) ? config_setting_get_elem(s, (unsigned)i) : s;
    if (d->kind == TN_PARAM_SWIZZLE) {
      char text[64], why[256];
      tn_value *v;
      int j;
      rc = tn_cfg_get_string(c, e, what, text, sizeof(text));
      if (rc)
        return rc;
      if (out->n >= TN_MAX_VALUES)
        return tn_cfg_bad(c, e, "%s: more than %d values", what,
                          TN_MAX_VALUES);
      v = &out->values[out->n];
      memset(v, 0, sizeof(*v));
      if (tn_swizzle_parse(text, &v->sw, why, sizeof(why)) != 0)
        return tn_cfg_bad(c, e, "%s: %s", what, why);
      for (j = 0; j < out->n; j++)
        if (memcmp(&out->values[j].sw, &v->sw, sizeof(v->sw)) == 0)
          return tn_cfg_bad(c, e, "%s: '%s' listed twice", what, text);
      v->i = out->n++;
    } else if (config_setting_is_group(e)) {
      rc = add_range(c, e, what, out);
      if (rc)
        return rc;
    } else {
      long long v;
      rc = tn_cfg_get_int(c, e, what, d->min, d->max, &v);
      if (rc == 0)
        rc = add_value(c, e, what, out, v);
      if (rc)
        return rc;
    }
  }
  /* the first value listed is the space's default point's */
  d->def = out->values[0].i;
  return 0;
}

int tn_config_user_tail(tn_cfg *c, const config_setting_t *root,
                        tn_job *job)
{
  int rc = tn_config_user_run(c, root, job);
  if (rc == 0)
    rc = tn_config_user_plan(c, root, job);
  if (rc == 0)
    tn_user_family_init(job->user, job->name);
  return rc;
}

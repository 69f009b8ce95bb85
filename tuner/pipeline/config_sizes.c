/* config_sizes.c -- problem.sizes: sizes and size classes (the syntax is
 * in config_sizes.h and docs/config.md).  Every error names the setting's
 * file and line (config_read.h). */
#include "pipeline/config_sizes.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "family/size.h"

/* A dimension's values in one class: a list, or the name of another. */
typedef struct {
  long long v[TN_MAX_SIZES];
  int n;
  int ref; /* the dimension it equals, or -1 */
} dim_values;

typedef struct {
  tn_cfg *rd;
  const tn_family *f;
  const tn_problem *base;
  tn_problem *out;
  int n;
  tn_size_keys keys;     /* the family's: which sizes are one */
  tn_size_keys dims;     /* one per dimension: the dimensions' names */
  char dim_list[128];    /* "M, N, K" */
} sizes_ctx;

static int badf(sizes_ctx *x, const config_setting_t *s, const char *fmt,
                ...) __attribute__((format(printf, 3, 4)));
static int badf(sizes_ctx *x, const config_setting_t *s, const char *fmt,
                ...)
{
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return tn_cfg_bad(x->rd, s, "%s", msg);
}

/* Adds one size; s names the setting it came from, for messages. */
static int add(sizes_ctx *x, const config_setting_t *s, const tn_size *size)
{
  char text[128], why[512];
  int i;
  tn_size_format(size, text, sizeof(text));
  if (x->f->check_problem) {
    tn_problem prob = *x->base;
    prob.size = *size;
    if (x->f->check_problem(x->f, &prob, why, sizeof(why)) != 0)
      return badf(x, s, "problem.sizes: %s: %s", text, why);
  }
  for (i = 0; i < x->n; i++)
    if (tn_size_same(&x->keys, &x->out[i].size, size)) {
      char other[128];
      tn_size_format(&x->out[i].size, other, sizeof(other));
      if (strcmp(text, other) == 0)
        return badf(x, s, "problem.sizes: %s is there twice (a size is "
                          "tuned once: leave it out of one of the lists)",
                    text);
      return badf(x, s, "problem.sizes: %s is the same size as %s for %s "
                        "(its sizes are told apart by their keys)",
                  text, other, x->f->name);
    }
  if (x->n >= TN_MAX_SIZES)
    return badf(x, s, "problem.sizes: more than %d sizes", TN_MAX_SIZES);
  x->out[x->n] = *x->base;
  x->out[x->n].size = *size;
  x->n++;
  return 0;
}

/* [a, b, ...]: one size. */
static int one_size(sizes_ctx *x, const config_setting_t *s)
{
  const tn_family *f = x->f;
  tn_size size;
  int i, n = config_setting_length(s);
  if (n != f->n_dims)
    return badf(x, s, "problem.sizes: a %s size has %d entries [%s], not %d",
                f->name, f->n_dims, f->dim_names, n);
  memset(&size, 0, sizeof(size));
  size.n_dims = n;
  for (i = 0; i < n; i++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    int rc = tn_cfg_get_int(x->rd, e, "problem.sizes", 1, TN_MAX_DIM,
                            &size.dims[i]);
    if (rc)
      return rc;
  }
  return add(x, s, &size);
}

static int push(sizes_ctx *x, const config_setting_t *s, const char *what,
                dim_values *dv, long long v)
{
  int i;
  for (i = 0; i < dv->n; i++)
    if (dv->v[i] == v)
      return badf(x, s, "%s: %lld listed twice", what, v);
  if (dv->n >= TN_MAX_SIZES)
    return badf(x, s, "%s: more than %d values (problem.sizes holds at most "
                      "%d sizes)",
                what, TN_MAX_SIZES, TN_MAX_SIZES);
  dv->v[dv->n++] = v;
  return 0;
}

/* { from = A; to = B; times = T; } or { from = A; to = B; step = S; }. */
static int range(sizes_ctx *x, const config_setting_t *g, const char *what,
                 dim_values *dv)
{
  static const char *const keys[] = {"from", "to", "times", "step"};
  const config_setting_t *m[4];
  long long v[4] = {0, 0, 0, 0}, at;
  int i, rc, n = config_setting_length(g);
  for (i = 0; i < n; i++) {
    const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);
    const char *name = config_setting_name(e);
    int j;
    for (j = 0; j < 4 && strcmp(name, keys[j]) != 0; j++)
      ;
    if (j == 4)
      return badf(x, e, "%s: unknown key '%s' in a range (from, to, and "
                        "times or step)",
                  what, name);
  }
  for (i = 0; i < 4; i++) {
    char w[128];
    m[i] = config_setting_get_member(g, keys[i]);
    if (m[i] == NULL)
      continue;
    snprintf(w, sizeof(w), "%s.%s", what, keys[i]);
    /* a geometric range multiplies by 2 or more */
    rc = tn_cfg_get_int(x->rd, m[i], w, i == 2 ? 2 : 1, TN_MAX_DIM, &v[i]);
    if (rc)
      return rc;
  }
  if (m[0] == NULL || m[1] == NULL)
    return badf(x, g, "%s: a range needs 'from' and 'to' ({ from = 1; to = "
                      "8192; times = 2; })",
                what);
  if ((m[2] == NULL) == (m[3] == NULL))
    return badf(x, g, "%s: a range takes one of 'times' (a geometric "
                      "range) and 'step' (an arithmetic one)",
                what);
  if (v[0] > v[1])
    return badf(x, m[1], "%s: to = %lld is below from = %lld", what, v[1],
                v[0]);
  for (at = v[0]; at <= v[1];) {
    rc = push(x, g, what, dv, at);
    if (rc)
      return rc;
    if (m[2] ? at > v[1] / v[2] : at > v[1] - v[3])
      break; /* the next one is past to (and no overflow) */
    at = m[2] ? at * v[2] : at + v[3];
  }
  return 0;
}

/* One dimension of a class: an integer, a list, a range or a name. */
static int dim_of(sizes_ctx *x, const config_setting_t *m, int d,
                  dim_values *dv)
{
  char what[96];
  int t = config_setting_type(m), i, rc;
  snprintf(what, sizeof(what), "problem.sizes.%s", x->dims.name[d]);
  dv->n = 0;
  dv->ref = -1;
  if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
    long long v;
    rc = tn_cfg_get_int(x->rd, m, what, 1, TN_MAX_DIM, &v);
    return rc ? rc : push(x, m, what, dv, v);
  }
  if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
    int n = config_setting_length(m);
    if (n == 0)
      return badf(x, m, "%s: the list is empty", what);
    for (i = 0; i < n; i++) {
      const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
      long long v;
      rc = tn_cfg_get_int(x->rd, e, what, 1, TN_MAX_DIM, &v);
      if (rc == 0)
        rc = push(x, e, what, dv, v);
      if (rc)
        return rc;
    }
    return 0;
  }
  if (t == CONFIG_TYPE_GROUP)
    return range(x, m, what, dv);
  if (t == CONFIG_TYPE_STRING) {
    const char *name = config_setting_get_string(m);
    for (i = 0; i < x->dims.n; i++)
      if (strcmp(x->dims.name[i], name) == 0)
        break;
    if (i == x->dims.n)
      return badf(x, m, "%s: \"%s\" is not a dimension of %s (%s)", what,
                  name, x->f->name, x->dim_list);
    if (i == d)
      return badf(x, m, "%s: names itself", what);
    dv->ref = i;
    return 0;
  }
  return badf(x, m, "%s: expected an integer, a list of them, a range { "
                    "from = ...; to = ...; times = ...; } or the name of "
                    "another dimension",
              what);
}

/* { M = ...; N = ...; K = ...; }: the product of its dimensions' lists. */
static int one_class(sizes_ctx *x, const config_setting_t *g)
{
  dim_values dv[TN_MAX_DIMS];
  int idx[TN_MAX_DIMS];
  int i, d, rc, nd = x->f->n_dims, n = config_setting_length(g);
  long long count = 1;

  for (i = 0; i < n; i++) {
    const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);
    for (d = 0; d < nd && strcmp(config_setting_name(e), x->dims.name[d]);
         d++)
      ;
    if (d == nd)
      return badf(x, e, "problem.sizes: '%s' is not a dimension of %s (a "
                        "class names each of %s)",
                  config_setting_name(e), x->f->name, x->dim_list);
  }
  for (d = 0; d < nd; d++) {
    const config_setting_t *m =
        config_setting_get_member(g, x->dims.name[d]);
    if (m == NULL)
      return badf(x, g, "problem.sizes: a class without '%s' (it names "
                        "each of %s)",
                  x->dims.name[d], x->dim_list);
    rc = dim_of(x, m, d, &dv[d]);
    if (rc)
      return rc;
  }
  for (d = 0; d < nd; d++) {
    if (dv[d].ref >= 0 && dv[dv[d].ref].ref >= 0)
      return badf(x, config_setting_get_member(g, x->dims.name[d]),
                  "problem.sizes.%s: \"%s\" names a dimension that names "
                  "another (name one with values)",
                  x->dims.name[d], x->dims.name[dv[d].ref]);
    if (dv[d].ref < 0) {
      count *= dv[d].n;
      if (count > TN_MAX_SIZES)
        return badf(x, g, "problem.sizes: this class holds more than %d "
                          "sizes",
                    TN_MAX_SIZES);
    }
    idx[d] = 0;
  }
  for (;;) {
    tn_size size;
    memset(&size, 0, sizeof(size));
    size.n_dims = nd;
    for (d = 0; d < nd; d++)
      if (dv[d].ref < 0)
        size.dims[d] = dv[d].v[idx[d]];
    for (d = 0; d < nd; d++)
      if (dv[d].ref >= 0)
        size.dims[d] = size.dims[dv[d].ref];
    rc = add(x, g, &size);
    if (rc)
      return rc;
    /* the next combination, the last dimension fastest */
    for (d = nd - 1; d >= 0; d--) {
      if (dv[d].ref >= 0)
        continue;
      if (++idx[d] < dv[d].n)
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return 0;
  }
}

int tn_config_sizes(tn_cfg *rd, const config_setting_t *sizes,
                    const tn_family *f, const tn_problem *base,
                    tn_problem *out, int *n_out)
{
  sizes_ctx x;
  int t = config_setting_type(sizes), i, rc = 0, n;
  size_t used = 0;

  memset(&x, 0, sizeof(x));
  x.rd = rd;
  x.f = f;
  x.base = base;
  x.out = out;
  tn_family_size_keys(f, &x.keys);
  tn_size_keys_make(NULL, 0, f->n_dims, f->dim_names, &x.dims);
  for (i = 0; i < x.dims.n; i++)
    used += (size_t)snprintf(x.dim_list + used, sizeof(x.dim_list) - used,
                             "%s%s", i ? ", " : "", x.dims.name[i]);
  *n_out = 0;
  if (t == CONFIG_TYPE_ARRAY)
    rc = one_size(&x, sizes);
  else if (t == CONFIG_TYPE_GROUP)
    rc = one_class(&x, sizes);
  else if (t != CONFIG_TYPE_LIST)
    return badf(&x, sizes, "problem.sizes: expected [%s], a class { %s = "
                           "...; } or a list of them",
                f->dim_names, x.dims.name[0]);
  else if ((n = config_setting_length(sizes)) == 0)
    return badf(&x, sizes, "problem.sizes: the list is empty");
  else
    for (i = 0; i < n && rc == 0; i++) {
      const config_setting_t *e = config_setting_get_elem(sizes, (unsigned)i);
      if (config_setting_type(e) == CONFIG_TYPE_ARRAY)
        rc = one_size(&x, e);
      else if (config_setting_type(e) == CONFIG_TYPE_GROUP)
        rc = one_class(&x, e);
      else
        rc = badf(&x, e, "problem.sizes: expected [%s] or a class { %s = "
                         "...; }",
                  f->dim_names, x.dims.name[0]);
    }
  *n_out = x.n;
  return rc;
}

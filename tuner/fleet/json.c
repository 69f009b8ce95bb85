/* json.c -- typed access to a results document for tuner/fleet/: a key
 * of the kind expected, a time in range, a parameter object of the
 * family; every message names the file and the JSON path of what is
 * wrong. */
#include "fleet/fleet.h"

#include <math.h>
#include <string.h>

/* A time read from a file: finite and in [0, MAX_MS] (positive if
 * positive).  0 or TN_EINPUT naming file and where.key. */
int tn_fleet_check_ms(const char *file, const char *where, const char *key,
                      double v, int positive, tn_err *err)
{
  if (!isfinite(v) || v < 0 || v > MAX_MS || (positive && !(v > 0)))
    return tn_errf(err, TN_EINPUT, "%s: %s.%s: %g is not a time in %s "
                   "(0, %g] ms",
                   file, where, key, v, positive ? "" : "or at", MAX_MS);
  return 0;
}

static int is_kind(json_t *v, mg_kind k)
{
  switch (k) {
  case K_STRING:
    return json_is_string(v);
  case K_STRING_OR_NULL:
    return json_is_string(v) || json_is_null(v);
  case K_INT:
    return json_is_integer(v);
  case K_NUMBER:
    return json_is_number(v);
  case K_BOOL:
    return json_is_boolean(v);
  case K_OBJECT:
    return json_is_object(v);
  case K_OBJECT_OR_NULL:
    return json_is_object(v) || json_is_null(v);
  case K_ARRAY:
    return json_is_array(v);
  }
  return 0;
}

static const char *kind_name(mg_kind k)
{
  static const char *const names[] = {
      "a string",  "a string or null", "an integer", "a number",
      "true or false", "an object", "an object or null", "an array"};
  return names[k];
}

/* obj[key] of the right kind into *out.  A missing optional key gives
 * NULL.  Messages name the file and the JSON path (where.key). */
int tn_fleet_get(const char *file, json_t *obj, const char *where,
                 const char *key, mg_kind kind, int optional, json_t **out,
                 tn_err *err)
{
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (v == NULL) {
    if (optional)
      return 0;
    return tn_errf(err, TN_EINPUT, "%s: %s%s%s: missing", file, where,
                   where[0] ? "." : "", key);
  }
  if (!is_kind(v, kind))
    return tn_errf(err, TN_EINPUT, "%s: %s%s%s: expected %s", file, where,
                   where[0] ? "." : "", key, kind_name(kind));
  *out = v;
  return 0;
}

/* A parameter object of r's family into p, checked against the family's
 * ranges and rules (which also resolve "xor" against the tile). */
int tn_fleet_parse_params(const mg_run *r, json_t *o, const char *where,
                          tn_params *p, tn_err *err)
{
  const tn_family *f = r->family;
  const char *key;
  json_t *v;
  char why[512];
  int k;

  memset(p, 0, sizeof(*p));
  json_object_foreach(o, key, v) {
    if (tn_param_index(f->params, f->n_params, key) < 0)
      return tn_errf(err, TN_EINPUT,
                     "%s: %s.%s: not a parameter of family %s", r->path,
                     where, key, f->name);
  }
  for (k = 0; k < f->n_params; k++) {
    const tn_param_desc *d = &f->params[k];
    v = json_object_get(o, d->name);
    if (v == NULL && d->added && d->kind == TN_PARAM_INT) {
      p->v[k].i = d->def; /* a file from before the parameter */
      continue;
    }
    if (v == NULL)
      return tn_errf(err, TN_EINPUT, "%s: %s.%s: missing", r->path, where,
                     d->name);
    if (d->kind == TN_PARAM_SWIZZLE) {
      if (!json_is_string(v))
        return tn_errf(err, TN_EINPUT, "%s: %s.%s: expected a string",
                       r->path, where, d->name);
      if (tn_swizzle_parse(json_string_value(v), &p->v[k].sw, why,
                           sizeof(why)) != 0)
        return tn_errf(err, TN_EINPUT, "%s: %s.%s: %s", r->path, where,
                       d->name, why);
    } else {
      json_int_t i;
      if (!json_is_integer(v))
        return tn_errf(err, TN_EINPUT, "%s: %s.%s: expected an integer",
                       r->path, where, d->name);
      i = json_integer_value(v);
      if (i < d->min || i > d->max)
        return tn_errf(err, TN_EINPUT,
                       "%s: %s.%s: %lld is outside [%lld, %lld]", r->path,
                       where, d->name, (long long)i, d->min, d->max);
      p->v[k].i = i;
    }
  }
  if (f->prepare(f, p, &r->problem, why, sizeof(why)) != 0)
    return tn_errf(err, TN_EINPUT, "%s: %s: not a valid %s configuration: %s",
                   r->path, where, f->name, why);
  return 0;
}

/* config_read.c -- reading a libconfig setting strictly: every number
 * checked against the text the user wrote, every problem reported as
 * FILE:LINE (the file an @include came from, where it did). */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/config_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <ctype.h>
#include <string.h>
#include <sys/stat.h>

/* The file and line setting s was written on: its literal's line (libconfig
 * names the next token's for a string), in the file that holds it. */
void tn_cfg_where(const tn_cfg *c, const config_setting_t *s, const char **file,
                  int *line)
{
  const tn_cfglit *lit = tn_cfgsrc_literal(s);
  int l = lit ? lit->line : (int)config_setting_source_line(s);
  tn_cfgsrc_where(c->src, l, file, line);
}

int tn_cfg_line(const tn_cfg *c, const config_setting_t *s)
{
  const char *file;
  int line;
  tn_cfg_where(c, s, &file, &line);
  return line;
}

int tn_cfg_bad(tn_cfg *c, const config_setting_t *s, const char *fmt, ...)
{
  char msg[1024];
  const char *file;
  int line;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  tn_cfg_where(c, s, &file, &line);
  return tn_errf(c->err, TN_EINPUT, "%s:%d: %s", file, line, msg);
}

/* Rejects members of group s not in allowed (NULL-terminated). */
int tn_cfg_only_keys(tn_cfg *c, const config_setting_t *s, const char *where,
                     const char *const *allowed)
{
  int i, n = config_setting_length(s);
  for (i = 0; i < n; i++) {
    const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
    const char *name = config_setting_name(m);
    const char *const *a;
    char list[512] = "";
    size_t used = 0;
    for (a = allowed; *a; a++)
      if (strcmp(*a, name) == 0)
        break;
    if (*a)
      continue;
    for (a = allowed; *a && used < sizeof(list); a++)
      used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                               a == allowed ? "" : ", ", *a);
    return tn_cfg_bad(c, m, "unknown key '%s%s%s' (expected one of: %s)", where,
                      where[0] ? "." : "", name, list);
  }
  return 0;
}

int tn_cfg_is_int(const config_setting_t *s)
{
  int t = config_setting_type(s);
  return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
}

/* The integer s holds as the user wrote it: libconfig 1.5 keeps the low
 * 32 bits of a literal without L, and saturates one with it. */
int tn_cfg_get_int(tn_cfg *c, const config_setting_t *s, const char *what,
                   long long lo, long long hi, long long *out)
{
  const tn_cfglit *lit = tn_cfgsrc_literal(s);
  long long v;
  if (!tn_cfg_is_int(s))
    return tn_cfg_bad(c, s, "%s: expected an integer", what);
  v = config_setting_get_int64(s);
  if (lit && tn_cfglit_int(lit, &v) != 0)
    return tn_cfg_bad(c, s, "%s: %.*s is out of range [%lld, %lld]", what,
                      lit->len, lit->text, lo, hi);
  if (v < lo || v > hi) {
    if (lit)
      return tn_cfg_bad(c, s, "%s: %.*s is out of range [%lld, %lld]", what,
                        lit->len, lit->text, lo, hi);
    return tn_cfg_bad(c, s, "%s: %lld is out of range [%lld, %lld]", what, v,
                      lo, hi);
  }
  *out = v;
  return 0;
}

int tn_cfg_get_number(tn_cfg *c, const config_setting_t *s, const char *what,
                      double lo, double hi, double *out)
{
  const tn_cfglit *lit = tn_cfgsrc_literal(s);
  double v;
  if (tn_cfg_is_int(s)) {
    long long i = config_setting_get_int64(s);
    if (lit && tn_cfglit_int(lit, &i) != 0)
      return tn_cfg_bad(c, s, "%s: %.*s is out of range [%g, %g]", what,
                        lit->len, lit->text, lo, hi);
    v = (double)i;
  } else if (config_setting_type(s) == CONFIG_TYPE_FLOAT) {
    v = config_setting_get_float(s);
    if (lit && tn_cfglit_float(lit, &v) != 0)
      return tn_cfg_bad(c, s,
                        "%s: %.*s does not fit in a double (too large, or "
                        "too small to be told from 0)",
                        what, lit->len, lit->text);
  } else {
    return tn_cfg_bad(c, s, "%s: expected a number", what);
  }
  if (!(v >= lo && v <= hi)) {
    if (lit)
      return tn_cfg_bad(c, s, "%s: %.*s is out of range [%g, %g]", what,
                        lit->len, lit->text, lo, hi);
    return tn_cfg_bad(c, s, "%s: %g is out of range [%g, %g]", what, v, lo, hi);
  }
  *out = v;
  return 0;
}

int tn_cfg_get_bool(tn_cfg *c, const config_setting_t *s, const char *what,
                    int *out)
{
  if (config_setting_type(s) != CONFIG_TYPE_BOOL)
    return tn_cfg_bad(c, s, "%s: expected true or false", what);
  *out = config_setting_get_bool(s);
  return 0;
}

int tn_cfg_get_string(tn_cfg *c, const config_setting_t *s, const char *what,
                      char *out, size_t n)
{
  const char *v;
  if (config_setting_type(s) != CONFIG_TYPE_STRING)
    return tn_cfg_bad(c, s, "%s: expected a string", what);
  v = config_setting_get_string(s);
  if (v[0] == '\0')
    return tn_cfg_bad(c, s, "%s: must not be empty", what);
  if (tn_strlcpy(out, v, n))
    return tn_cfg_bad(c, s, "%s: longer than %zu characters", what, n - 1);
  return 0;
}

int tn_cfg_is_list(const config_setting_t *s)
{
  int t = config_setting_type(s);
  return t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST;
}

int tn_cfg_identifier(const char *name)
{
  const char *p = name;
  if (!isalpha((unsigned char)*p) && *p != '_')
    return 0;
  for (; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_')
      return 0;
  return 1;
}

int tn_cfg_get_path(tn_cfg *c, const config_setting_t *s, const char *what,
                    char *out, size_t n)
{
  char rel[4096], dir[4096];
  const char *file;
  struct stat st;
  int line, rc = tn_cfg_get_string(c, s, what, rel, sizeof(rel));
  if (rc)
    return rc;
  /* relative to the file that names it, as an @include is, so that
   * configs work from any folder */
  tn_cfg_where(c, s, &file, &line);
  tn_dirname(dir, sizeof(dir), file);
  if (tn_path_join(out, n, dir, rel) != 0)
    return tn_cfg_bad(c, s, "%s: path too long", what);
  if (stat(out, &st) != 0 || !S_ISREG(st.st_mode))
    return tn_cfg_bad(c, s, "%s: '%s' (resolved to %s) is not a readable file",
                      what, rel, out);
  return 0;
}

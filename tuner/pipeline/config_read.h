/* config_read.h -- reading a libconfig setting strictly.
 *
 * Every reader checks the setting's type and range against the text the
 * user wrote (config_source.h ties each number to its literal), and
 * reports a problem as "FILE:LINE: what: expected ..." (the file an
 * @include came from, where it did), returning TN_EINPUT. */
#ifndef TN_CONFIG_READ_H
#define TN_CONFIG_READ_H

#include <libconfig.h>
#include <stddef.h>

#include "base/util.h"
#include "pipeline/config_source.h"

typedef struct {
  const char *file; /* the config */
  tn_cfgsrc *src;   /* its text, @includes spliced in */
  tn_err *err;
} tn_cfg;

/* The file and line setting s was written on. */
void tn_cfg_where(const tn_cfg *c, const config_setting_t *s,
                  const char **file, int *line);
int tn_cfg_line(const tn_cfg *c, const config_setting_t *s);
/* Formats "FILE:LINE: message" into c->err and returns TN_EINPUT. */
int tn_cfg_bad(tn_cfg *c, const config_setting_t *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Rejects members of group s not in allowed (NULL-terminated); where is
 * the group's path for the message ("" at the top). */
int tn_cfg_only_keys(tn_cfg *c, const config_setting_t *s, const char *where,
                     const char *const *allowed);
int tn_cfg_is_int(const config_setting_t *s);
/* The integer s holds as written, in [lo, hi]. */
int tn_cfg_get_int(tn_cfg *c, const config_setting_t *s, const char *what,
                   long long lo, long long hi, long long *out);
/* A number (integer or floating) as written, in [lo, hi]. */
int tn_cfg_get_number(tn_cfg *c, const config_setting_t *s, const char *what,
                      double lo, double hi, double *out);
int tn_cfg_get_bool(tn_cfg *c, const config_setting_t *s, const char *what,
                    int *out);
/* A non-empty string that fits in n bytes. */
int tn_cfg_get_string(tn_cfg *c, const config_setting_t *s, const char *what,
                      char *out, size_t n);
/* 1 if s is a list or an array. */
int tn_cfg_is_list(const config_setting_t *s);
/* 1 if name is a C identifier (it becomes a macro or a symbol). */
int tn_cfg_identifier(const char *name);
/* A path relative to the file s is written in, resolved into out: it must
 * be a regular file. */
int tn_cfg_get_path(tn_cfg *c, const config_setting_t *s, const char *what,
                    char *out, size_t n);

#endif

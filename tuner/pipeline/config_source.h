/* config_source.h -- the text of a config file, @includes spliced in.
 *
 * libconfig 1.5 cuts integers wider than 32 bits, names the line after a
 * string, opens @include paths from the working folder and names the
 * including file for errors in an included one.  This module reads the text
 * itself: it splices every @include in (resolved from the folder of the file
 * that includes it), keeps where each line came from, and finds the literal
 * each scalar setting was read from, so that the config reader checks the
 * number the user wrote and names its own file and line. */
#ifndef TN_CONFIG_SOURCE_H
#define TN_CONFIG_SOURCE_H

#include <libconfig.h>

#include "base/util.h"

typedef struct tn_cfgsrc tn_cfgsrc;

typedef enum {
  TN_LIT_INT,
  TN_LIT_HEX,
  TN_LIT_FLOAT,
  TN_LIT_STRING
} tn_lit_kind;

typedef struct {
  tn_lit_kind kind;
  int line;         /* in the spliced text */
  const char *text; /* as written, not terminated: len characters */
  int len;
} tn_cfglit;

/* Reads the config at path (or text, named path, when text is not NULL)
 * and the files it includes.  Returns 0 with *out set, TN_EINPUT with
 * "FILE:LINE: ..." in err (a missing, unreadable or folder @include, one
 * nested too deeply), or TN_ETOOL. */
int tn_cfgsrc_read(const char *path, const char *text, tn_cfgsrc **out,
                   tn_err *err);

/* The same for text that came from another host (a results file's copy
 * of a config): an @include in it is an error, so it opens no file. */
int tn_cfgsrc_read_sealed(const char *name, const char *text,
                          tn_cfgsrc **out, tn_err *err);

/* The spliced text, for config_read_string. */
const char *tn_cfgsrc_text(const tn_cfgsrc *src);

/* The file and its line that line (of the spliced text) came from. */
void tn_cfgsrc_where(const tn_cfgsrc *src, int line, const char **file,
                     int *file_line);

/* Ties each scalar setting under root to the literal it was read from
 * (config_setting_set_hook).  Returns 0, or -1 when the text and the tree
 * do not agree (or memory ran out): then none is tied and the reader falls
 * back on libconfig's values. */
int tn_cfgsrc_bind(tn_cfgsrc *src, config_setting_t *root);

/* The literal setting s was read from, or NULL. */
const tn_cfglit *tn_cfgsrc_literal(const config_setting_t *s);

/* The integer a literal says.  Returns 0, or -1 when it does not fit in
 * 64 bits. */
int tn_cfglit_int(const tn_cfglit *lit, long long *out);

/* The number a literal says.  Returns 0, or -1 when it is not a finite
 * double (1e400) or is too small to be told from 0 (1e-400). */
int tn_cfglit_float(const tn_cfglit *lit, double *out);

void tn_cfgsrc_free(tn_cfgsrc *src);

#endif

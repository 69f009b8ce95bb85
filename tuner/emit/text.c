/* text.c -- the one rule for text that goes into a header (comments,
 * string literals, macro names), and the in-memory text headers are
 * written into. */
#define _POSIX_C_SOURCE 200809L
#include "emit/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void tn_emit_macro_name(char *out, size_t n, const char *in)
{
  size_t i;
  for (i = 0; in[i] && i + 1 < n; i++) {
    unsigned char c = (unsigned char)in[i];
    out[i] = isalnum(c) ? (char)toupper(c) : '_';
  }
  out[i] = '\0';
}

int tn_emit_idents(const char *name, char *macro, char *ident, size_t n,
                   tn_err *err)
{
  size_t i;
  if (name[0] == '\0' || strchr(name, '/') != NULL || name[0] == '.')
    return tn_errf(err, TN_EINPUT,
                   "name \"%s\": not usable as a file name; give --name",
                   name);
  tn_emit_macro_name(macro, n, name);
  if (!(macro[0] >= 'A' && macro[0] <= 'Z'))
    return tn_errf(err, TN_EINPUT,
                   "name \"%s\": macros and C names must start with a "
                   "letter; give --name",
                   name);
  for (i = 0; macro[i]; i++)
    ident[i] = (char)(macro[i] >= 'A' && macro[i] <= 'Z' ? macro[i] + 32
                                                          : macro[i]);
  ident[i] = '\0';
  return 0;
}

void tn_emit_comment(FILE *o, const char *s)
{
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if ((c == '*' && s[1] == '/') || (c == '/' && s[1] == '*')) {
      fputc(c, o); /* "* /", "/ *": neither ends nor opens a comment */
      fputc(' ', o);
    } else if (c == '?' && s[1] == '?') {
      fputs("? ", o); /* no trigraph (a "??/" would join lines) */
    } else if (c < 32 || c == 127) {
      fputc(' ', o);
    } else {
      fputc(c, o);
    }
  }
}

void tn_emit_cstring(FILE *o, const char *s)
{
  fputc('"', o);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(o, "\\%c", c);
    else if (c < 32 || c >= 127)
      fprintf(o, "\\%03o", c);
    else if (c == '?')
      fputs("\\?", o); /* every one, so no trigraph survives escaping */
    else
      fputc(c, o);
  }
  fputc('"', o);
}

FILE *tn__emit_open(char **buf, size_t *len, tn_err *err)
{
  FILE *o;
  *buf = NULL;
  *len = 0;
  o = open_memstream(buf, len);
  if (o == NULL)
    tn_errf(err, TN_ETOOL, "open_memstream: %s", strerror(errno));
  return o;
}

int tn__emit_close(FILE *o, char **buf, char **text, tn_err *err)
{
  int bad = ferror(o);
  if (fclose(o) != 0 || bad) {
    free(*buf);
    *buf = NULL;
    return tn_errf(err, TN_ETOOL, "out of memory writing a header");
  }
  *text = *buf;
  return 0;
}

int tn__emit_write(const char *path, const char *text, tn_err *err)
{
  char dir[4096];
  int rc;
  tn_dirname(dir, sizeof(dir), path);
  rc = tn_mkdirs(dir, err);
  if (rc == 0)
    rc = tn_write_file_atomic(path, text, strlen(text), err);
  return rc;
}

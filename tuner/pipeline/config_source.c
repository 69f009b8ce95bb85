/* config_source.c -- the text of a config file, @includes spliced in, and
 * the literal each setting was read from.
 *
 * One rule for relative paths: an @include is resolved from the folder of
 * the file that holds it, as the template is (docs/config.md).  libconfig
 * then reads the spliced text; a line map gives every line back its file,
 * and a scan of the text that follows libconfig 1.5's scanner (numbers,
 * strings, names, comments) ties each scalar setting to its literal. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/config_source.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 10          /* as libconfig's own @include */
#define MAX_FILES 64          /* the main file and what it includes */
#define MAX_TEXT (1u << 20)   /* the spliced text, far above any config */

typedef struct {
  int file;
  int line;
} origin;

struct tn_cfgsrc {
  char *text;
  size_t len, cap;
  origin *map; /* of each line of text */
  int n_lines, cap_lines;
  char *files[MAX_FILES];
  int n_files;
  tn_cfglit *lits;
  int n_lits, cap_lits;
  int sealed; /* text from another host: it may include no file */
};

enum { ST_CODE, ST_STRING, ST_BLOCK };

static int grow(void **p, int *cap, int need, size_t size)
{
  void *np;
  int ncap;
  if (need <= *cap)
    return 0;
  ncap = *cap ? *cap * 2 : 256;
  while (ncap < need)
    ncap *= 2;
  np = realloc(*p, (size_t)ncap * size);
  if (np == NULL)
    return -1;
  *p = np;
  *cap = ncap;
  return 0;
}

/* Appends one line (and a newline) that came from file:line. */
static int add_line(tn_cfgsrc *src, const char *s, size_t n, int file,
                    int line, tn_err *err)
{
  if (src->len + n + 2 > MAX_TEXT)
    return tn_errf(err, TN_EINPUT, "%s:%d: the config with its @includes "
                                   "is longer than %u bytes",
                   src->files[file], line, MAX_TEXT);
  if (src->len + n + 2 > src->cap) {
    size_t ncap = src->cap ? src->cap : 4096;
    char *nt;
    while (ncap < src->len + n + 2)
      ncap *= 2;
    nt = realloc(src->text, ncap);
    if (nt == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory reading the config");
    src->text = nt;
    src->cap = ncap;
  }
  if (grow((void **)&src->map, &src->cap_lines, src->n_lines + 1,
           sizeof(origin)))
    return tn_errf(err, TN_ETOOL, "out of memory reading the config");
  memcpy(src->text + src->len, s, n);
  src->len += n;
  src->text[src->len++] = '\n';
  src->text[src->len] = '\0';
  src->map[src->n_lines].file = file;
  src->map[src->n_lines].line = line;
  src->n_lines++;
  return 0;
}

/* The lexical state after line s[0..n) when it starts in state st. */
static int state_after(const char *s, size_t n, int st)
{
  size_t i;
  for (i = 0; i < n; i++) {
    char c = s[i], d = i + 1 < n ? s[i + 1] : '\0';
    if (st == ST_STRING) {
      if (c == '\\')
        i++;
      else if (c == '"')
        st = ST_CODE;
    } else if (st == ST_BLOCK) {
      if (c == '*' && d == '/') {
        i++;
        st = ST_CODE;
      }
    } else if (c == '"') {
      st = ST_STRING;
    } else if (c == '#' || (c == '/' && d == '/')) {
      break;
    } else if (c == '/' && d == '*') {
      i++;
      st = ST_BLOCK;
    }
  }
  return st;
}

/* If line s[0..n) is an @include, its path into rel; 1 if it is, 0 if it
 * is not, -1 if it is malformed. */
static int include_path(const char *s, size_t n, char *rel, size_t rn)
{
  size_t i = 0, k = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t'))
    i++;
  if (n - i < 8 || strncmp(s + i, "@include", 8) != 0)
    return 0;
  i += 8;
  if (i >= n || (s[i] != ' ' && s[i] != '\t'))
    return -1;
  while (i < n && (s[i] == ' ' || s[i] == '\t'))
    i++;
  if (i >= n || s[i] != '"')
    return -1;
  for (i++; i < n && s[i] != '"'; i++) {
    if (s[i] == '\\' && i + 1 < n)
      i++;
    if (k + 1 >= rn)
      return -1;
    rel[k++] = s[i];
  }
  rel[k] = '\0';
  if (i >= n || k == 0)
    return -1;
  for (i++; i < n; i++) {
    if (s[i] == '#' || (s[i] == '/' && i + 1 < n && s[i + 1] == '/'))
      break;
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
      return -1;
  }
  return 1;
}

static int splice(tn_cfgsrc *src, int file, const char *text, int depth,
                  tn_err *err);

/* Where the first NUL byte of data (len bytes, one at least) is: its line
 * and column, from 1.  A NUL ends a string for libconfig, so the rest of
 * the file would be lost unseen. */
static void nul_at(const char *data, size_t len, int *line, size_t *col)
{
  size_t i, start = 0;
  *line = 1;
  for (i = 0; i < len && data[i] != '\0'; i++)
    if (data[i] == '\n') {
      (*line)++;
      start = i + 1;
    }
  *col = i - start + 1;
}

/* Reads the file rel names (from the folder of file) and splices it in. */
static int include(tn_cfgsrc *src, int file, int line, const char *rel,
                   int depth, tn_err *err)
{
  const char *who = src->files[file];
  char dir[4096], path[4096];
  struct stat st;
  char *data = NULL;
  size_t len = 0;
  tn_err ignore = {{0}};
  int rc;

  if (src->sealed)
    return tn_errf(err, TN_EINPUT, "%s:%d: @include \"%s\": a config kept "
                                   "in a results file includes no file",
                   who, line, rel);
  tn_dirname(dir, sizeof(dir), who);
  if (strcmp(dir, ".") == 0)
    dir[0] = '\0';
  if (tn_path_join(path, sizeof(path), dir, rel) != 0)
    return tn_errf(err, TN_EINPUT, "%s:%d: @include \"%s\": path too long",
                   who, line, rel);
  if (depth >= MAX_DEPTH)
    return tn_errf(err, TN_EINPUT, "%s:%d: @include \"%s\": nested more "
                                   "than %d deep (does it include itself?)",
                   who, line, rel, MAX_DEPTH);
  if (src->n_files >= MAX_FILES)
    return tn_errf(err, TN_EINPUT, "%s:%d: @include \"%s\": more than %d "
                                   "files",
                   who, line, rel, MAX_FILES);
  if (stat(path, &st) != 0)
    return tn_errf(err, TN_EINPUT, "%s:%d: @include \"%s\": cannot open %s: "
                                   "%s (a path is relative to the folder "
                                   "of the file that includes it)",
                   who, line, rel, path, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return tn_errf(err, TN_EINPUT, "%s:%d: @include \"%s\": is a folder "
                                   "(%s), not a config file",
                   who, line, rel, path);
  if (!S_ISREG(st.st_mode))
    return tn_errf(err, TN_EINPUT, "%s:%d: @include \"%s\": is not a "
                                   "regular file (%s)",
                   who, line, rel, path);
  if (tn_read_file(path, &data, &len, &ignore) != 0)
    return tn_errf(err, TN_EINPUT, "%s:%d: @include \"%s\": cannot read %s",
                   who, line, rel, path);
  if (strlen(data) != len) {
    int at;
    size_t col;
    nul_at(data, len, &at, &col);
    free(data);
    return tn_errf(err, TN_EINPUT, "%s:%d: not text: a NUL byte (column "
                                   "%zu); included by %s:%d (@include "
                                   "\"%s\")",
                   path, at, col, who, line, rel);
  }
  src->files[src->n_files] = strdup(path);
  if (src->files[src->n_files] == NULL) {
    free(data);
    return tn_errf(err, TN_ETOOL, "out of memory reading the config");
  }
  src->n_files++;
  rc = splice(src, src->n_files - 1, data, depth + 1, err);
  free(data);
  return rc;
}

/* Copies text (of file) line by line, replacing @include lines with the
 * files they name. */
static int splice(tn_cfgsrc *src, int file, const char *text, int depth,
                  tn_err *err)
{
  const char *p = text;
  int line = 0, st = ST_CODE, rc;

  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    char rel[1024];
    int inc = st == ST_CODE ? include_path(p, n, rel, sizeof(rel)) : 0;
    line++;
    if (inc < 0)
      return tn_errf(err, TN_EINPUT, "%s:%d: @include: expected @include "
                                     "\"FILE\" alone on its line",
                     src->files[file], line);
    if (inc > 0) {
      rc = include(src, file, line, rel, depth, err);
      /* the line itself stays, empty, so that libconfig counts it */
      if (rc == 0)
        rc = add_line(src, "", 0, file, line, err);
    } else {
      rc = add_line(src, p, n, file, line, err);
      st = state_after(p, n, st);
    }
    if (rc)
      return rc;
    p += n;
    if (*p == '\n')
      p++;
  }
  return 0;
}

/* The length of the number libconfig 1.5 scans at s (0 if none), the
 * longest of [-+]?[0-9]+L?L?, 0[Xx][0-9A-Fa-f]+L?L? and its floats. */
static int number_at(const char *s, tn_lit_kind *kind)
{
  int i = 0, d, n_int, n_flt = 0, j;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
      isxdigit((unsigned char)s[2])) {
    i = 2;
    while (isxdigit((unsigned char)s[i]))
      i++;
    if (s[i] == 'L')
      i += s[i + 1] == 'L' ? 2 : 1;
    *kind = TN_LIT_HEX;
    return i;
  }
  if (s[0] == '-' || s[0] == '+')
    i = 1;
  for (d = 0; isdigit((unsigned char)s[i + d]); d++)
    ;
  n_int = d ? i + d : 0;
  if (n_int && s[n_int] == 'L')
    n_int += s[n_int + 1] == 'L' ? 2 : 1;
  j = i + d;
  if (s[j] == '.') {
    j++;
    while (isdigit((unsigned char)s[j]))
      j++;
    n_flt = j;
  }
  if ((n_flt || d) && (s[j] == 'e' || s[j] == 'E')) {
    int k = j + 1;
    if (s[k] == '-' || s[k] == '+')
      k++;
    if (isdigit((unsigned char)s[k])) {
      while (isdigit((unsigned char)s[k]))
        k++;
      n_flt = k;
    }
  }
  if (n_flt > n_int) {
    *kind = TN_LIT_FLOAT;
    return n_flt;
  }
  *kind = TN_LIT_INT;
  return n_int;
}

static int add_lit(tn_cfgsrc *src, tn_lit_kind kind, int line,
                   const char *text, int len)
{
  tn_cfglit *l;
  if (grow((void **)&src->lits, &src->cap_lits, src->n_lits + 1,
           sizeof(tn_cfglit)))
    return -1;
  l = &src->lits[src->n_lits++];
  l->kind = kind;
  l->line = line;
  l->text = text;
  l->len = len;
  return 0;
}

static int is_name_char(char c)
{
  return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '*';
}

/* Every number and string of the spliced text, in order; adjacent strings
 * are one, as libconfig joins them. */
static int scan_literals(tn_cfgsrc *src)
{
  const char *p = src->text;
  int line = 1, after_string = 0;
  while (*p) {
    tn_lit_kind kind;
    int n;
    if (*p == '\n') {
      line++;
      p++;
    } else if (isspace((unsigned char)*p)) {
      p++;
    } else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
      while (*p && *p != '\n')
        p++;
    } else if (p[0] == '/' && p[1] == '*') {
      for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
        line += *p == '\n';
      p += *p ? 2 : 0;
    } else if (*p == '"') {
      const char *start = p;
      int first = line;
      for (p++; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1])
          p++;
        line += *p == '\n';
      }
      p += *p ? 1 : 0;
      if (after_string) {
        tn_cfglit *l = &src->lits[src->n_lits - 1];
        l->len = (int)(p - l->text);
      } else if (add_lit(src, TN_LIT_STRING, first, start,
                         (int)(p - start))) {
        return -1;
      }
      after_string = 1;
      continue;
    } else if (isalpha((unsigned char)*p) || *p == '*') {
      while (is_name_char(*p))
        p++;
    } else if ((n = number_at(p, &kind)) > 0) {
      if (add_lit(src, kind, line, p, n))
        return -1;
      p += n;
    } else {
      p++;
    }
    after_string = 0;
  }
  return 0;
}

static int read_source(const char *path, const char *text, int sealed,
                       tn_cfgsrc **out, tn_err *err)
{
  tn_cfgsrc *src = calloc(1, sizeof(*src));
  char *data = NULL;
  size_t len = 0;
  int rc;

  *out = NULL;
  if (src == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory reading the config");
  src->sealed = sealed;
  src->files[0] = strdup(path);
  src->n_files = 1;
  if (src->files[0] == NULL) {
    rc = tn_errf(err, TN_ETOOL, "out of memory reading the config");
    goto cleanup;
  }
  if (text == NULL) {
    struct stat st;
    tn_err ignore = {{0}};
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      rc = tn_errf(err, TN_EINPUT, "%s: is a folder, not a config file",
                   path);
      goto cleanup;
    }
    if (tn_read_file(path, &data, &len, &ignore) != 0) {
      rc = tn_errf(err, TN_EINPUT, "%s: cannot read the file", path);
      goto cleanup;
    }
    if (strlen(data) != len) {
      int at;
      size_t col;
      nul_at(data, len, &at, &col);
      rc = tn_errf(err, TN_EINPUT, "%s:%d: not text: a NUL byte (column %zu)",
                   path, at, col);
      goto cleanup;
    }
    text = data;
  }
  rc = splice(src, 0, text, 0, err);
  if (rc == 0 && src->text == NULL)
    rc = add_line(src, "", 0, 0, 1, err);
  if (rc == 0 && scan_literals(src) != 0)
    rc = tn_errf(err, TN_ETOOL, "out of memory reading the config");

cleanup:
  free(data);
  if (rc) {
    tn_cfgsrc_free(src);
    return rc;
  }
  *out = src;
  return 0;
}

int tn_cfgsrc_read(const char *path, const char *text, tn_cfgsrc **out,
                   tn_err *err)
{
  return read_source(path, text, 0, out, err);
}

int tn_cfgsrc_read_sealed(const char *name, const char *text,
                          tn_cfgsrc **out, tn_err *err)
{
  return read_source(name, text, 1, out, err);
}

const char *tn_cfgsrc_text(const tn_cfgsrc *src)
{
  return src->text;
}

void tn_cfgsrc_where(const tn_cfgsrc *src, int line, const char **file,
                     int *file_line)
{
  if (line >= 1 && line <= src->n_lines) {
    *file = src->files[src->map[line - 1].file];
    *file_line = src->map[line - 1].line;
  } else {
    *file = src->files[0];
    *file_line = line < 1 ? 1 : line;
  }
}

/* Whether literal l can be what libconfig read into s. */
static int agrees(const tn_cfglit *l, const config_setting_t *s)
{
  int t = config_setting_type(s);
  long long v;
  if (t == CONFIG_TYPE_STRING)
    return l->kind == TN_LIT_STRING;
  if (t == CONFIG_TYPE_FLOAT)
    return l->kind == TN_LIT_FLOAT;
  if (l->kind != TN_LIT_INT && l->kind != TN_LIT_HEX)
    return 0;
  if (tn_cfglit_int(l, &v) != 0)
    return 1; /* libconfig kept some bits of it: cannot compare */
  if (t == CONFIG_TYPE_INT64)
    return v == config_setting_get_int64(s);
  return (int32_t)(uint32_t)(uint64_t)v == config_setting_get_int(s);
}

/* Pairs the scalar settings under s, in order, with the literals from *k;
 * 0 when every one agrees. */
static int pair(tn_cfgsrc *src, config_setting_t *s, int *k,
                config_setting_t **tied)
{
  int t = config_setting_type(s);
  if (config_setting_is_aggregate(s)) {
    int i, n = config_setting_length(s);
    for (i = 0; i < n; i++)
      if (pair(src, config_setting_get_elem(s, (unsigned)i), k, tied))
        return -1;
    return 0;
  }
  if (t == CONFIG_TYPE_BOOL)
    return 0;
  if (*k >= src->n_lits || !agrees(&src->lits[*k], s))
    return -1;
  tied[(*k)++] = s;
  return 0;
}

int tn_cfgsrc_bind(tn_cfgsrc *src, config_setting_t *root)
{
  config_setting_t **tied;
  int i, k = 0, rc = -1;
  if (src->n_lits == 0)
    return 0;
  tied = calloc((size_t)src->n_lits, sizeof(*tied));
  if (tied == NULL)
    return -1;
  if (pair(src, root, &k, tied) == 0 && k == src->n_lits) {
    for (i = 0; i < k; i++)
      config_setting_set_hook(tied[i], &src->lits[i]);
    rc = 0;
  }
  free(tied);
  return rc;
}

const tn_cfglit *tn_cfgsrc_literal(const config_setting_t *s)
{
  return config_setting_get_hook(s);
}

/* The literal without its L suffix into buf; -1 if it is too long. */
static int lit_copy(const tn_cfglit *l, char *buf, size_t n)
{
  int len = l->len;
  while (len > 0 && l->text[len - 1] == 'L')
    len--;
  if ((size_t)len >= n)
    return -1;
  memcpy(buf, l->text, (size_t)len);
  buf[len] = '\0';
  return 0;
}

int tn_cfglit_int(const tn_cfglit *lit, long long *out)
{
  char buf[64], *end;
  if (lit->kind != TN_LIT_INT && lit->kind != TN_LIT_HEX)
    return -1;
  if (lit_copy(lit, buf, sizeof(buf)))
    return -1;
  errno = 0;
  if (lit->kind == TN_LIT_HEX) {
    unsigned long long u = strtoull(buf + 2, &end, 16);
    if (errno || *end || u > (unsigned long long)INT64_MAX)
      return -1;
    *out = (long long)u;
  } else {
    *out = strtoll(buf, &end, 10);
    if (errno || *end)
      return -1;
  }
  return 0;
}

int tn_cfglit_float(const tn_cfglit *lit, double *out)
{
  char buf[512], *end;
  double v;
  if (lit_copy(lit, buf, sizeof(buf)))
    return -1;
  errno = 0;
  v = strtod(buf, &end);
  if (errno || *end || !isfinite(v))
    return -1;
  *out = v;
  return 0;
}

void tn_cfgsrc_free(tn_cfgsrc *src)
{
  int i;
  if (src == NULL)
    return;
  for (i = 0; i < src->n_files; i++)
    free(src->files[i]);
  free(src->text);
  free(src->map);
  free(src->lits);
  free(src);
}

/* render.c -- a template and a point of the space into CUDA source. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tn_template_load(const char *path, tn_template *t, tn_err *err)
{
  char dir[4096];
  const char *p;
  int line = 1, rc;

  memset(t, 0, sizeof(*t));
  tn_strlcpy(t->path, path, sizeof(t->path));
  rc = tn_read_file(path, &t->text, NULL, err);
  if (rc)
    return rc;
  tn_dirname(dir, sizeof(dir), path);
  for (p = t->text; *p; p++) {
    const char *q = p, *name, *end;
    char file[256], hpath[4096];
    if (*p == '\n')
      line++;
    if (p != t->text && p[-1] != '\n')
      continue;
    while (*q == ' ' || *q == '\t')
      q++;
    if (strncmp(q, "#include", 8) != 0)
      continue;
    q += 8;
    while (*q == ' ' || *q == '\t')
      q++;
    if (*q != '"')
      continue; /* <system> headers are NVRTC's own */
    name = q + 1;
    end = strchr(name, '"');
    if (end == NULL || end == name || (size_t)(end - name) >= sizeof(file) ||
        memchr(name, '\n', (size_t)(end - name)) != NULL) {
      rc = tn_errf(err, TN_EINPUT, "%s:%d: malformed #include", path, line);
      goto fail;
    }
    memcpy(file, name, (size_t)(end - name));
    file[end - name] = '\0';
    if (t->n_headers >= TN_MAX_HEADERS) {
      rc = tn_errf(err, TN_EINPUT, "%s:%d: more than %d local headers", path,
                   line, TN_MAX_HEADERS);
      goto fail;
    }
    if (tn_path_join(hpath, sizeof(hpath), dir, file) != 0) {
      rc = tn_errf(err, TN_EINPUT, "%s:%d: header path too long", path, line);
      goto fail;
    }
    t->header_names[t->n_headers] = strdup(file);
    if (t->header_names[t->n_headers] == NULL) {
      rc = tn_errf(err, TN_ETOOL, "out of memory");
      goto fail;
    }
    rc = tn_read_file(hpath, &t->header_texts[t->n_headers], NULL, err);
    t->n_headers++;
    if (rc) {
      err->msg[0] = '\0';
      rc = tn_errf(err, TN_EINPUT, "%s:%d: cannot read the included '%s' (%s)",
                   path, line, file, hpath);
      goto fail;
    }
  }
  return 0;
fail:
  tn_template_free(t);
  return rc;
}

void tn_template_free(tn_template *t)
{
  int i;
  free(t->text);
  for (i = 0; i < t->n_headers; i++) {
    free(t->header_names[i]);
    free(t->header_texts[i]);
  }
  memset(t, 0, sizeof(*t));
}

int tn_render(const tn_family *f, const tn_params *p, const tn_problem *prob,
              const tn_template *t, char **source, tn_err *err)
{
  tn_defines d;
  char ptxt[512], *out;
  size_t cap, used = 0;
  int i;

  tn_family_macros(f, p, prob, &d);
  if (d.overflow)
    return tn_errf(err, TN_ETOOL,
                   "family %s: its macros do not fit (more than %d, or one "
                   "of 48 characters or more): a bug in the family",
                   f->name, TN_MAX_DEFINES);
  tn_params_format(f->params, f->n_params, p, ptxt, sizeof(ptxt));

  cap = strlen(t->text) + 1024 + (size_t)d.n * 128;
  out = malloc(cap);
  if (out == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory rendering");
  used += (size_t)snprintf(out + used, cap - used,
                           "/* rendered by tuner: %s %s */\n", f->name, ptxt);
  for (i = 0; i < d.n; i++)
    used += (size_t)snprintf(out + used, cap - used, "#define %s %s\n",
                             d.name[i], d.value[i]);
  used += (size_t)snprintf(out + used, cap - used, "#line 1 \"%s\"\n",
                           strrchr(t->path, '/') ? strrchr(t->path, '/') + 1
                                                 : t->path);
  snprintf(out + used, cap - used, "%s", t->text);
  *source = out;
  return 0;
}

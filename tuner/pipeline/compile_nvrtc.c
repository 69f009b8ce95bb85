/* compile_nvrtc.c -- a candidate's compile, and the resources ptxas
 * reports (compile_nvrtc.h). */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/compile_nvrtc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tn_compile_options(const tn_arch *arch,
                       char opts[TN_NVRTC_MAX_OPTS][64])
{
  return tn_nvrtc_options(arch, 1, opts);
}

int tn_compile_source(const char *source, const char *name,
                      const tn_template *t, const tn_arch *arch,
                      void **cubin, size_t *cubin_len, char **log,
                      tn_err *err)
{
  tn_nvrtc_headers h;
  if (t == NULL)
    return tn_nvrtc_compile(source, name, NULL, arch, 1, cubin, cubin_len,
                            log, err);
  h.n = t->n_headers;
  h.names = t->header_names;
  h.texts = t->header_texts;
  return tn_nvrtc_compile(source, name, &h, arch, 1, cubin, cubin_len, log,
                          err);
}

/* The integer just before marker in line (ptxas writes "N bytes smem",
 * "N bytes stack frame, N bytes spill stores, ..."), or -1. */
static int number_before(const char *line, const char *marker)
{
  const char *m = strstr(line, marker), *q;
  if (m == NULL)
    return -1;
  q = m;
  while (q > line && q[-1] == ' ')
    q--;
  while (q > line && q[-1] >= '0' && q[-1] <= '9')
    q--;
  return (q[0] >= '0' && q[0] <= '9') ? atoi(q) : -1;
}

/* Where kernel's lines start in a ptxas -v log, and end (the next entry
 * function's, or the log's end); NULL when the log does not name it. */
static const char *entry_lines(const char *log, const char *kernel,
                               const char **end)
{
  static const char mark[] = "Compiling entry function '";
  const char *p = log, *next;
  size_t kl = kernel ? strlen(kernel) : 0;
  while (kl && (p = strstr(p, mark)) != NULL) {
    p += sizeof(mark) - 1;
    if (strncmp(p, kernel, kl) == 0 && p[kl] == '\'') {
      next = strstr(p, mark);
      *end = next ? next : p + strlen(p);
      return p;
    }
  }
  return NULL;
}

int tn_compile_parse_resources(const char *log, const char *kernel,
                               tn_candidate *c)
{
  const char *p, *stop = NULL;
  int found = 0;
  c->regs = c->spill_stores = c->spill_loads = c->stack_bytes = 0;
  if (log == NULL)
    return -1;
  p = entry_lines(log, kernel, &stop);
  if (p == NULL)
    p = log; /* one entry function, or no name: the last "Used" line */
  for (; p && *p && (stop == NULL || p < stop);) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    char line[512];
    const char *u;
    int v;
    if (len >= sizeof(line))
      len = sizeof(line) - 1;
    memcpy(line, p, len);
    line[len] = '\0';
    u = strstr(line, "Used ");
    if (u != NULL && sscanf(u, "Used %d registers", &v) == 1) {
      c->regs = v;
      found = 1;
      v = number_before(line, "bytes smem");
      if (v >= 0)
        c->smem_bytes = v;
    }
    v = number_before(line, "bytes stack frame");
    if (v >= 0)
      c->stack_bytes = v;
    v = number_before(line, "bytes spill stores");
    if (v >= 0)
      c->spill_stores = v;
    v = number_before(line, "bytes spill loads");
    if (v >= 0)
      c->spill_loads = v;
    p = eol ? eol + 1 : NULL;
  }
  return found ? 0 : -1;
}

int tn_compile_ptx(const char *source, const char *name, const tn_template *t,
                   const tn_arch *arch, char **ptx, char **log, tn_err *err)
{
  tn_nvrtc_headers h;
  if (t == NULL)
    return tn_nvrtc_ptx(source, name, NULL, arch, ptx, log, err);
  h.n = t->n_headers;
  h.names = t->header_names;
  h.texts = t->header_texts;
  return tn_nvrtc_ptx(source, name, &h, arch, ptx, log, err);
}

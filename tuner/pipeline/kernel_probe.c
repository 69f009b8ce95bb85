/* kernel_probe.c -- what a described kernel's files define, read from the
 * PTX of one point before the space is compiled. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/kernel_probe.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family/user_kernel.h"
#include "pipeline/compile_nvrtc.h"
#include "pipeline/render.h"
#include "pipeline/space.h"

/* One ".param .u32 name" or ".param .align 4 .b8 name[12]" at p; p moves
 * past it.  0, or -1 if it is not one. */
static int parse_param(const char **pp, tn_ptx_entry *e)
{
  const char *p = *pp;
  char type[8] = "";
  int bytes = 0, n = 0;

  if (e->n_params >= TN_PTX_MAX_PARAMS)
    return -1;
  if (strncmp(p, ".param", 6) != 0)
    return -1;
  p += 6;
  while (*p == ' ' || *p == '\t')
    p++;
  if (strncmp(p, ".align", 6) == 0) { /* a struct, or a 16-bit float */
    p += 6;
    while (*p == ' ' || *p == '\t' || isdigit((unsigned char)*p))
      p++;
  }
  if (*p != '.')
    return -1;
  p++;
  while (isalnum((unsigned char)*p) && n + 1 < (int)sizeof(type))
    type[n++] = *p++;
  type[n] = '\0';
  if (n < 2 || !isdigit((unsigned char)type[1]))
    return -1;
  bytes = atoi(type + 1) / 8;
  while (*p && *p != ',' && *p != ')' && *p != '[' && *p != '\n')
    p++;
  if (*p == '[') { /* an array of that type: its bytes */
    bytes *= atoi(p + 1);
    p = strchr(p, ']');
    if (p == NULL)
      return -1;
    p++;
  }
  snprintf(e->type[e->n_params], sizeof(e->type[0]), "%s", type);
  e->bytes[e->n_params++] = bytes;
  *pp = p;
  return 0;
}

int tn_ptx_entries_parse(const char *ptx, tn_ptx_entries *out)
{
  const char *p = ptx;
  memset(out, 0, sizeof(*out));
  while ((p = strstr(p, ".entry ")) != NULL) {
    tn_ptx_entry *e;
    size_t n = 0;
    if (out->n >= TN_PTX_MAX_ENTRIES)
      return -1;
    e = &out->e[out->n];
    p += 7;
    while (*p == ' ')
      p++;
    while ((isalnum((unsigned char)*p) || *p == '_' || *p == '$') &&
           n + 1 < sizeof(e->name))
      e->name[n++] = *p++;
    e->name[n] = '\0';
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
      p++;
    if (*p == '(') {
      p++;
      for (;;) {
        while (isspace((unsigned char)*p) || *p == ',')
          p++;
        if (*p == ')' || *p == '\0')
          break;
        if (parse_param(&p, e) != 0)
          return -1;
      }
    }
    out->n++;
  }
  return 0;
}

const tn_ptx_entry *tn_ptx_find(const tn_ptx_entries *es, const char *name)
{
  char mangled[300];
  size_t ml;
  int i;
  /* a free C++ function: _Z, the name's length, the name, its types */
  snprintf(mangled, sizeof(mangled), "_Z%zu%s", strlen(name), name);
  ml = strlen(mangled);
  for (i = 0; i < es->n; i++)
    if (strcmp(es->e[i].name, name) == 0)
      return &es->e[i];
  for (i = 0; i < es->n; i++)
    if (strncmp(es->e[i].name, mangled, ml) == 0 &&
        !isdigit((unsigned char)es->e[i].name[ml]))
      return &es->e[i];
  return NULL;
}

/* "a, b, c": the kernels of es, by their names in the source. */
static void entry_list(const tn_ptx_entries *es, char *out, size_t n)
{
  size_t used = 0;
  int i;
  out[0] = '\0';
  for (i = 0; i < es->n && used < n; i++) {
    const char *name = es->e[i].name;
    char plain[256];
    int len;
    /* _Z6conv2dPfPKfii -> conv2d */
    if (strncmp(name, "_Z", 2) == 0 && isdigit((unsigned char)name[2]) &&
        (len = atoi(name + 2)) > 0 && len < (int)sizeof(plain)) {
      const char *q = name + 2;
      while (isdigit((unsigned char)*q))
        q++;
      snprintf(plain, sizeof(plain), "%.*s", len, q);
      name = plain;
    }
    used += (size_t)snprintf(out + used, n - used, "%s%s", i ? ", " : "",
                             name);
  }
}

/* What a PTX parameter type is, in words. */
static const char *type_words(const char *type, int bytes)
{
  if (type[0] == 'f')
    return bytes == 8 ? "double" : bytes == 4 ? "float" : "half";
  if (strcmp(type, "b8") == 0)
    return "a struct or a 16-bit float";
  if (bytes == 8)
    return "a pointer or a 64-bit integer";
  return bytes == 4 ? "a 32-bit integer" : bytes == 2 ? "a 16-bit integer"
                                                      : "an 8-bit integer";
}

static void params_text(const tn_ptx_entry *e, char *out, size_t n)
{
  size_t used = 0;
  int i;
  out[0] = '\0';
  for (i = 0; i < e->n_params && used < n; i++)
    used += (size_t)snprintf(out + used, n - used, "%s[%d] %d bytes (%s)",
                             i ? ", " : "", i, e->bytes[i],
                             type_words(e->type[i], e->bytes[i]));
}

/* The arguments of u against entry e's parameters. */
static int check_args(const tn_user_kernel *u, const char *kernel,
                      const tn_ptx_entry *e, const char *what, tn_err *err)
{
  char params[2048];
  int i;
  params_text(e, params, sizeof(params));
  if (u->n_args != e->n_params)
    return tn_errf(err, TN_EINPUT,
                   "%s:%d: arguments: %s (%s) takes %d parameter%s: %s; the "
                   "config lists %d argument%s",
                   u->config_path, u->args_line, kernel, what, e->n_params,
                   e->n_params == 1 ? "" : "s", params, u->n_args,
                   u->n_args == 1 ? "" : "s");
  for (i = 0; i < u->n_args; i++) {
    const tn_uarg *g = &u->args[i];
    int want = g->kind == TN_UARG_BUFFER ? 8 : tn_elem_bytes(g->type);
    int is_float = e->type[i][0] == 'f';
    const char *problem = NULL;
    if (e->bytes[i] != want)
      problem = "a different size";
    else if (g->kind == TN_UARG_BUFFER && is_float)
      problem = "a floating-point value, not a pointer";
    else if (g->kind == TN_UARG_SCALAR && strcmp(e->type[i], "b8") != 0 &&
             is_float != tn_elem_is_float(g->type))
      problem = is_float ? "floating-point, not an integer"
                         : "an integer, not floating-point";
    if (problem)
      return tn_errf(err, TN_EINPUT,
                     "%s:%d: arguments.%s: parameter %d of %s is %s: %d "
                     "bytes (%s), the argument %s %s (%d bytes); %s takes: "
                     "%s",
                     u->config_path, g->line, g->name, i, kernel, problem,
                     e->bytes[i], type_words(e->type[i], e->bytes[i]),
                     g->kind == TN_UARG_BUFFER ? "is a buffer of"
                                               : "is a scalar of",
                     tn_elem_long_name(g->type), want, kernel, params);
  }
  return 0;
}

/* Compiles file's text (headers beside it) with p's macros to PTX and
 * reads its entries.  0, TN_EINPUT (a compile error, its log shown) or
 * TN_ETOOL. */
static int probe_file(const tn_job *job, const char *file,
                      const tn_params *p, const tn_arch *arch, int line,
                      tn_ptx_entries *es, tn_err *err)
{
  tn_template t;
  char *source = NULL, *ptx = NULL, *log = NULL;
  int rc = tn_template_load(file, &t, err);
  if (rc)
    return rc;
  rc = tn_render(job->family, p, &job->problems[0], &t, &source, err);
  if (rc == 0)
    rc = tn_compile_ptx(source, file, &t, arch, &ptx, &log, err);
  if (rc == 1)
    rc = tn_errf(err, TN_EINPUT,
                 "%s:%d: %s does not compile for the space's first point: "
                 "%.1500s",
                 job->path, line, file, log ? log : "(no log)");
  if (rc == 0 && tn_ptx_entries_parse(ptx, es) != 0)
    rc = tn_errf(err, TN_ETOOL, "%s: the PTX of %s could not be read (more "
                                "than %d kernels?)",
                 job->path, file, TN_PTX_MAX_ENTRIES);
  free(source);
  free(ptx);
  free(log);
  tn_template_free(&t);
  return rc;
}

/* Looks up the kernel called name among the entries of file. */
static int find_kernel(const tn_job *job, const tn_ptx_entries *es,
                       const char *name, const char *file, int line,
                       const char *what, char *lowered, size_t n,
                       const tn_ptx_entry **out, tn_err *err)
{
  char list[1024];
  const tn_ptx_entry *e = tn_ptx_find(es, name);
  if (e == NULL) {
    entry_list(es, list, sizeof(list));
    return tn_errf(err, TN_EINPUT,
                   "%s:%d: %s: %s defines no kernel '%s' (it defines: %s)",
                   job->path, line, what, file, name,
                   list[0] ? list : "none");
  }
  tn_strlcpy(lowered, e->name, n);
  *out = e;
  return 0;
}

/* The first point of the space that the family's rules and the
 * constraints take, for any architecture. */
static int first_point(const tn_job *job, tn_params *p, tn_err *err)
{
  tn_space sp;
  int i, rc = tn_space_build(job, NULL, &sp, err);
  if (rc)
    return rc;
  for (i = 0; i < sp.n; i++)
    if (sp.c[i].status == TN_ST_PENDING) {
      *p = sp.c[i].params;
      break;
    }
  tn_space_free(&sp);
  return 0;
}

int tn_kernel_probe(const tn_job *job, const tn_arch *arch, tn_err *err)
{
  tn_user_kernel *u = job->user;
  tn_ptx_entries *es = calloc(1, sizeof(*es));
  const tn_ptx_entry *e = NULL;
  const char *held = u->file; /* the file es lists */
  tn_params p;
  int rc;

  if (es == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory");
  rc = first_point(job, &p, err);
  u->default_point = p;
  if (rc == 0)
    rc = probe_file(job, u->file, &p, arch, u->kernel_line, es, err);
  if (rc == 0)
    rc = find_kernel(job, es, u->kernel, u->file, u->kernel_line,
                     "kernel.name", u->lowered, sizeof(u->lowered), &e, err);
  if (rc == 0)
    rc = check_args(u, u->kernel, e, u->file, err);
  if (rc == 0 && u->ref_kind == TN_UREF_KERNEL) {
    tn_uother *o = &u->reference;
    if (strcmp(o->file, held) != 0)
      rc = probe_file(job, o->file, &p, arch, o->line, es, err);
    held = o->file;
    if (rc == 0)
      rc = find_kernel(job, es, o->kernel, o->file, o->line,
                       "check.reference", o->lowered, sizeof(o->lowered), &e,
                       err);
    if (rc == 0)
      rc = check_args(u, o->kernel, e, o->file, err);
  }
  if (rc == 0 && u->base_kind == TN_UBASE_KERNEL) {
    tn_uother *o = &u->baseline;
    if (strcmp(o->file, held) != 0)
      rc = probe_file(job, o->file, &p, arch, o->line, es, err);
    if (rc == 0)
      rc = find_kernel(job, es, o->kernel, o->file, o->line,
                       "baseline.kernel", o->lowered, sizeof(o->lowered), &e,
                       err);
    if (rc == 0)
      rc = check_args(u, o->kernel, e, o->file, err);
  }
  free(es);
  if (rc == 0)
    u->family.kernel = u->lowered; /* what the compiles look for */
  return rc;
}

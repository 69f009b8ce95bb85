/* config.c -- a libconfig file into a job description.
 *
 * Strict: unknown keys, wrong types, empty lists and values out of range
 * are errors that name the file and line.  Nothing here touches the GPU or
 * writes a file. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/config.h"

#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/expr.h"
#include "pipeline/config_read.h"
#include "pipeline/config_sizes.h"
#include "pipeline/config_read.h"
#include "pipeline/config_source.h"
#include "pipeline/config_user.h"

/* The family's problem options (trans_a, alpha, ...) from group s into
 * base; keys other than theirs and "sizes" are errors. */
static int parse_options(tn_cfg *c, const config_setting_t *s,
                         const tn_family *f, tn_problem *base)
{
  const char *keys[TN_MAX_OPTIONS + 3];
  int i, rc;

  keys[0] = "sizes";
  for (i = 0; i < f->n_options && i < TN_MAX_OPTIONS; i++)
    keys[i + 1] = f->options[i].name;
  /* a described kernel names its dimensions (config_user.c) */
  keys[i + 1] = f->impl ? "dims" : NULL;
  keys[i + 2] = NULL;
  rc = tn_cfg_only_keys(c, s, "problem", keys);
  if (rc)
    return rc;
  tn_problem_defaults(f, base);
  for (i = 0; i < f->n_options; i++) {
    const tn_option_desc *d = &f->options[i];
    const config_setting_t *m = config_setting_get_member(s, d->name);
    char what[64];
    if (m == NULL)
      continue;
    snprintf(what, sizeof(what), "problem.%s", d->name);
    if (d->kind == TN_OPT_BOOL) {
      int b = 0;
      rc = tn_cfg_get_bool(c, m, what, &b);
      base->opt[i] = b;
    } else if (d->kind == TN_OPT_CHOICE) {
      char why[512]; /* the string is NULL if the setting is not one */
      rc = tn_option_choice_parse(d, config_setting_get_string(m),
                                  &base->opt[i], why, sizeof(why)) != 0
               ? tn_cfg_bad(c, m, "%s: %s", what, why)
               : 0;
    } else {
      rc = tn_cfg_get_number(c, m, what, d->min, d->max, &base->opt[i]);
    }
    if (rc)
      return rc;
  }
  return 0;
}

static int parse_problem(tn_cfg *c, const config_setting_t *s, tn_job *job)
{
  const config_setting_t *sizes;
  tn_problem base;
  int rc;

  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "problem: expected a group { ... }");
  rc = parse_options(c, s, job->family, &base);
  if (rc)
    return rc;

  sizes = config_setting_get_member(s, "sizes");
  if (sizes == NULL)
    return tn_cfg_bad(c, s, "problem: missing 'sizes' ([%s] or a list of them)",
                      job->family->dim_names);
  /* sizes and size classes: config_sizes.c */
  return tn_config_sizes(c, sizes, job->family, &base, job->problems,
                         &job->n_problems);
}

static int parse_param(tn_cfg *c, const config_setting_t *s,
                       const tn_param_desc *d, tn_param_values *out)
{
  int i, j, n, t = config_setting_type(s);
  char what[96];

  snprintf(what, sizeof(what), "space.%s", d->name);
  out->line = tn_cfg_line(c, s);
  if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
    /* a single value is a list of one */
    n = 1;
  } else {
    n = config_setting_length(s);
    if (n == 0)
      return tn_cfg_bad(c, s, "%s: the list of values is empty", what);
    if (n > TN_MAX_VALUES)
      return tn_cfg_bad(c, s, "%s: more than %d values", what, TN_MAX_VALUES);
  }
  out->n = n;
  for (i = 0; i < n; i++) {
    const config_setting_t *e =
        (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST)
            ? config_setting_get_elem(s, (unsigned)i)
            : s;
    tn_value *v = &out->values[i];
    memset(v, 0, sizeof(*v));
    if (d->kind == TN_PARAM_INT) {
      int rc = tn_cfg_get_int(c, e, what, d->min, d->max, &v->i);
      if (rc)
        return rc;
    } else {
      char text[64], why[256];
      int rc = tn_cfg_get_string(c, e, what, text, sizeof(text));
      if (rc)
        return rc;
      if (tn_swizzle_parse(text, &v->sw, why, sizeof(why)) != 0)
        return tn_cfg_bad(c, e, "%s: %s", what, why);
      v->i = (long long)i;
    }
    for (j = 0; j < i; j++) {
      int same = d->kind == TN_PARAM_INT
                     ? out->values[j].i == v->i
                     : memcmp(&out->values[j].sw, &v->sw, sizeof(v->sw)) == 0;
      if (same)
        return tn_cfg_bad(c, e, "%s: value listed twice", what);
    }
  }
  return 0;
}

static int parse_space(tn_cfg *c, const config_setting_t *s, tn_job *job)
{
  const tn_family *f = job->family;
  int i, n;

  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s,
                      "space: expected a group { parameter = [values]; }");
  {
    const char *file;
    tn_cfg_where(c, s, &file, &job->space_line);
    tn_strlcpy(job->space_file, file, sizeof(job->space_file));
  }
  n = config_setting_length(s);
  for (i = 0; i < n; i++) {
    const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
    int k = tn_param_index(f->params, f->n_params, config_setting_name(m));
    int rc;
    if (k < 0) {
      char list[512] = "";
      size_t used = 0;
      int j;
      for (j = 0; j < f->n_params; j++)
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                                 j ? ", " : "", f->params[j].name);
      return tn_cfg_bad(c, m,
                        "space: '%s' is not a parameter of %s (it has: %s)",
                        config_setting_name(m), f->name, list);
    }
    rc = job->user ? tn_config_user_values(c, m, &job->user->params[k],
                                           &job->values[k])
                   : parse_param(c, m, &f->params[k], &job->values[k]);
    if (rc)
      return rc;
  }
  /* Parameters the config leaves out take the family's default. */
  for (i = 0; i < f->n_params; i++) {
    tn_param_values *pv = &job->values[i];
    if (pv->n > 0)
      continue;
    pv->n = 1;
    pv->line = tn_cfg_line(c, s);
    memset(&pv->values[0], 0, sizeof(pv->values[0]));
    pv->values[0].i = f->params[i].def;
  }
  return 0;
}

/* Any identifier a constraint may use, at load time (values unknown). */
static int any_name(void *vctx, const char *name, long long *value)
{
  const tn_family *f = vctx;
  *value = 1;
  if (tn_param_index(f->params, f->n_params, name) >= 0)
    return 0;
  if (strcmp(name, "threads") == 0 || strcmp(name, "smem_bytes") == 0)
    return 0;
  if (f->impl && tn_uscope_find(&tn_user_of(f)->scope, name) >= 0)
    return 0; /* a described kernel's dimensions */
  return -1;
}

static int parse_constraints(tn_cfg *c, const config_setting_t *s, tn_job *job)
{
  int i, n, t = config_setting_type(s);
  if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
    return tn_cfg_bad(c, s, "constraints: expected a list of strings");
  n = config_setting_length(s);
  if (n > TN_MAX_CONSTRAINTS)
    return tn_cfg_bad(c, s, "constraints: more than %d", TN_MAX_CONSTRAINTS);
  for (i = 0; i < n; i++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    char why[256];
    int rc = tn_cfg_get_string(c, e, "constraints", job->constraints[i],
                               sizeof(job->constraints[i]));
    if (rc)
      return rc;
    if (tn_expr_check(job->constraints[i], any_name, (void *)job->family,
                      why, sizeof(why)) != 0)
      return tn_cfg_bad(c, e,
                        "constraint \"%s\": %s (names: the parameters, %s%s)",
                        job->constraints[i], why, TN_CONSTRAINT_NAMES,
                        job->user ? ", the problem's dimensions" : "");
    {
      const char *file;
      tn_cfg_where(c, e, &file, &job->constraint_lines[i]);
      tn_strlcpy(job->constraint_files[i], file,
                 sizeof(job->constraint_files[i]));
    }
  }
  job->n_constraints = n;
  return 0;
}

int tn_config_parse_budget(const char *text, tn_budget *out, char *why,
                           size_t n)
{
  char *end;
  double v;
  memset(out, 0, sizeof(*out));
  errno = 0;
  v = strtod(text, &end);
  if (end != text && errno == 0 && isfinite(v) && v > 0) {
    double scale = strcmp(end, "s") == 0   ? 1
                   : strcmp(end, "m") == 0 ? 60
                   : strcmp(end, "h") == 0 ? 3600
                                           : 0;
    if (*end == '\0' && v <= 1000000 && v == (int)v) {
      out->candidates = (int)v;
      return 0;
    }
    if (scale > 0 && v * scale <= 7 * 86400.0) {
      out->seconds = v * scale;
      return 0;
    }
  }
  snprintf(why, n, "'%s' is not a budget: a number of candidates (1 .. "
                   "1000000) or of seconds, minutes or hours of the run "
                   "(\"120s\", \"20m\", \"2h\"; at most a week)",
           text);
  return -1;
}

static int parse_budget(tn_cfg *c, const config_setting_t *m, tn_job *job)
{
  char text[64], why[256];
  int rc;
  if (config_setting_type(m) == CONFIG_TYPE_INT ||
      config_setting_type(m) == CONFIG_TYPE_INT64) {
    long long v;
    rc = tn_cfg_get_int(c, m, "bench.budget", 1, 1000000, &v);
    if (rc == 0)
      job->budget.candidates = (int)v;
    return rc;
  }
  rc = tn_cfg_get_string(c, m, "bench.budget", text, sizeof(text));
  if (rc)
    return rc;
  if (tn_config_parse_budget(text, &job->budget, why, sizeof(why)) != 0)
    return tn_cfg_bad(c, m, "bench.budget: %s", why);
  return 0;
}

static int parse_bench(tn_cfg *c, const config_setting_t *s, tn_job *job)
{
  static const char *const keys[] = {"repetitions", "warmup", "timeout_s",
                                     "seed", "min_noise", "min_repetitions",
                                     "ci_target", "baseline_every_s",
                                     "baseline_every", "budget", NULL};
  const config_setting_t *m;
  long long v;
  int rc;

  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "bench: expected a group { ... }");
  rc = tn_cfg_only_keys(c, s, "bench", keys);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "repetitions");
  if (m) {
    rc = tn_cfg_get_int(c, m, "bench.repetitions", 1, 100000, &v);
    if (rc)
      return rc;
    job->bench.repetitions = (int)v;
  }
  m = config_setting_get_member(s, "warmup");
  if (m) {
    rc = tn_cfg_get_int(c, m, "bench.warmup", 0, 100000, &v);
    if (rc)
      return rc;
    job->bench.warmup = (int)v;
  }
  m = config_setting_get_member(s, "timeout_s");
  if (m) {
    rc = tn_cfg_get_number(c, m, "bench.timeout_s", 0.1, 86400.0,
                           &job->bench.timeout_s);
    if (rc)
      return rc;
  }
  m = config_setting_get_member(s, "seed");
  if (m) {
    rc = tn_cfg_get_int(c, m, "bench.seed", 0, 9007199254740991LL, &v);
    if (rc)
      return rc;
    job->bench.seed = (unsigned long long)v;
  }
  m = config_setting_get_member(s, "min_noise");
  if (m) {
    rc = tn_cfg_get_number(c, m, "bench.min_noise", 0.0, 0.5,
                           &job->bench.min_noise);
    if (rc)
      return rc;
  }
  m = config_setting_get_member(s, "min_repetitions");
  if (m) {
    rc = tn_cfg_get_int(c, m, "bench.min_repetitions", 1, 100000, &v);
    if (rc)
      return rc;
    job->bench.min_repetitions = (int)v;
  }
  m = config_setting_get_member(s, "ci_target");
  if (m) {
    rc = tn_cfg_get_number(c, m, "bench.ci_target", 0.0, 1.0,
                           &job->bench.ci_target);
    if (rc)
      return rc;
  }
  m = config_setting_get_member(s, "baseline_every_s");
  if (m) {
    rc = tn_cfg_get_number(c, m, "bench.baseline_every_s", 0.0, 86400.0,
                           &job->bench.baseline_every_s);
    if (rc)
      return rc;
  }
  m = config_setting_get_member(s, "baseline_every");
  if (m) {
    rc = tn_cfg_get_int(c, m, "bench.baseline_every", 0, 1000000, &v);
    if (rc)
      return rc;
    job->bench.baseline_every = (int)v;
  }
  m = config_setting_get_member(s, "budget");
  if (m)
    return parse_budget(c, m, job);
  return 0;
}

static int parse_output(tn_cfg *c, const config_setting_t *s, tn_job *job)
{
  static const char *const keys[] = {"dir", NULL};
  const config_setting_t *m;
  int rc;
  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "output: expected a group { dir = \"...\"; }");
  rc = tn_cfg_only_keys(c, s, "output", keys);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "dir");
  if (m) {
    rc = tn_cfg_get_string(c, m, "output.dir", job->output_dir,
                           sizeof(job->output_dir));
    if (rc)
      return rc;
  }
  return 0;
}

static int parse_template(tn_cfg *c, const config_setting_t *s, tn_job *job)
{
  char rel[TN_PATH_LEN], dir[TN_PATH_LEN];
  const char *file;
  struct stat st;
  int line, rc = tn_cfg_get_string(c, s, "template", rel, sizeof(rel));
  if (rc)
    return rc;
  /* relative to the file that names it (as an @include is), so configs
   * work from any directory */
  tn_cfg_where(c, s, &file, &line);
  tn_dirname(dir, sizeof(dir), file);
  if (tn_path_join(job->template_path, sizeof(job->template_path), dir,
                   rel) != 0)
    return tn_cfg_bad(c, s, "template: path too long");
  if (stat(job->template_path, &st) != 0 || !S_ISREG(st.st_mode))
    return tn_cfg_bad(c, s,
                      "template: '%s' (resolved to %s) is not a readable file",
                      rel, job->template_path);
  return 0;
}

static void set_defaults(tn_job *job)
{
  job->bench.repetitions = 100;
  job->bench.warmup = 10;
  job->bench.timeout_s = 30.0;
  job->bench.seed = 0;
  job->bench.min_noise = 0.01;
  job->bench.min_repetitions = 5;
  job->bench.ci_target = 0.01;
  job->bench.baseline_every_s = 10.0;
  tn_strlcpy(job->output_dir, "results", sizeof(job->output_dir));
}

/* Reads the file at path, or text when it is not NULL (named path); the
 * family the config names is given's if given is not NULL, else the
 * registry's. */
/* Every top-level key: a family compiled in, or a described kernel. */
static const char *const family_keys[] = {
    "name", "family", "template", "problem", "space", "constraints",
    "bench", "output", NULL};

/* A described kernel's keys, family_keys' without family and template. */
static void user_keys(const char **out)
{
  int n = 0, i;
  for (i = 0; family_keys[i]; i++)
    if (strcmp(family_keys[i], "family") != 0 &&
        strcmp(family_keys[i], "template") != 0)
      out[n++] = family_keys[i];
  for (i = 0; tn_config_user_keys[i]; i++)
    out[n++] = tn_config_user_keys[i];
  out[n] = NULL;
}

/* The name key into job->name: a C identifier's start, sanitized. */
static int parse_name(tn_cfg *c, const config_setting_t *root, tn_job *job)
{
  const config_setting_t *s = config_setting_get_member(root, "name");
  int rc;
  if (s == NULL)
    return 0;
  rc = tn_cfg_get_string(c, s, "name", job->name, sizeof(job->name));
  if (rc)
    return rc;
  tn_sanitize_name(job->name);
  /* it names the headers' macros (NAME_SM_90_TILE): a C identifier */
  if (!isalpha((unsigned char)job->name[0]))
    return tn_cfg_bad(c, s, "name: '%s' must start with a letter (it names "
                            "the headers and their macros)",
                      job->name);
  return 0;
}

/* The family the config names is given's if given is not NULL, else the
 * registry's; its template. */
static int parse_family(tn_cfg *c, const config_setting_t *root,
                        const tn_family *given, tn_job *job)
{
  const config_setting_t *s = config_setting_get_member(root, "family");
  char family[64];
  int rc;
  if (s == NULL) {
    char list[256];
    tn_family_list(list, sizeof(list));
    return tn_errf(c->err, TN_EINPUT,
                   "%s:1: missing 'family' (one of: %s), or 'kernel' (your "
                   "own: docs/kernels.md)",
                   c->file, list);
  }
  rc = tn_cfg_get_string(c, s, "family", family, sizeof(family));
  if (rc)
    return rc;
  job->family = given ? given : tn_family_find(family);
  if (job->family == NULL || strcmp(job->family->name, family) != 0) {
    char list[256];
    tn_family_list(list, sizeof(list));
    return tn_cfg_bad(c, s, "family: unknown '%s' (known: %s)", family,
                      list);
  }
  tn_strlcpy(job->name, job->family->name, sizeof(job->name));
  rc = parse_name(c, root, job);
  if (rc)
    return rc;
  s = config_setting_get_member(root, "template");
  if (s == NULL)
    return tn_errf(c->err, TN_EINPUT, "%s:1: missing 'template' (a .cu file)",
                   c->file);
  return parse_template(c, s, job);
}

/* A described kernel: its name (the kernel's, unless given), its head. */
static int parse_user(tn_cfg *c, const config_setting_t *root,
                      int describe_only, tn_job *job)
{
  const config_setting_t *k = config_setting_get_member(root, "kernel");
  const config_setting_t *n = k ? config_setting_get_member(k, "name") : NULL;
  int rc;
  if (config_setting_get_member(root, "family") ||
      config_setting_get_member(root, "template"))
    return tn_cfg_bad(c, k, "kernel: a config describes its own kernel or "
                            "names a family and a template, not both");
  if (n && config_setting_type(n) == CONFIG_TYPE_STRING)
    tn_strlcpy(job->name, config_setting_get_string(n), sizeof(job->name));
  rc = parse_name(c, root, job);
  if (rc)
    return rc;
  if (job->name[0] == '\0' || tn_family_find(job->name) != NULL)
    return tn_cfg_bad(c, config_setting_get_member(root, "name")
                             ? config_setting_get_member(root, "name")
                             : k,
                      "name: '%s' is a shipped family's: give your kernel "
                      "another name",
                      job->name);
  return tn_config_user_head(c, root, job, describe_only);
}

/* Reads the file at path, or text when it is not NULL (named path). */
static int load(const char *path, const char *text, const tn_family *given,
                int describe_only, tn_job *job, tn_err *err)
{
  const char *keys[32];
  config_t cfg;
  config_setting_t *root, *s;
  tn_cfgsrc *src = NULL;
  tn_cfg c;
  int rc = 0, described;

  memset(job, 0, sizeof(*job));
  set_defaults(job);
  c.file = path;
  c.err = err;
  c.src = NULL;
  if (tn_strlcpy(job->path, path, sizeof(job->path)))
    return tn_errf(err, TN_EINPUT, "%s: path too long", path);

  /* the text with its @includes spliced in, read by libconfig as one */
  config_init(&cfg);
  rc = describe_only ? tn_cfgsrc_read_sealed(path, text, &src, err)
                     : tn_cfgsrc_read(path, text, &src, err);
  if (rc)
    goto cleanup;
  c.src = src;
  if (!config_read_string(&cfg, tn_cfgsrc_text(src))) {
    const char *file;
    int line;
    tn_cfgsrc_where(src, config_error_line(&cfg), &file, &line);
    rc = tn_errf(err, TN_EINPUT, "%s:%d: syntax error: %s", file, line,
                 config_error_text(&cfg));
    goto cleanup;
  }
  root = config_root_setting(&cfg);
  job->literals_tied = tn_cfgsrc_bind(src, root) == 0;
  if (!job->literals_tied)
    fprintf(stderr,
            "tuner: note: %s: its numbers could not be matched with their "
            "text; they are checked as libconfig read them (a bug: please "
            "report the file)\n",
            path);
  described = config_setting_get_member(root, "kernel") != NULL;
  if (described)
    user_keys(keys);
  else
    memcpy(keys, family_keys, sizeof(family_keys));
  rc = tn_cfg_only_keys(&c, root, "", keys);
  if (rc == 0)
    rc = described ? parse_user(&c, root, describe_only, job)
                   : parse_family(&c, root, given, job);
  if (rc)
    goto cleanup;
  if (described)
    job->text = strdup(tn_cfgsrc_text(src));
  if (described && job->text == NULL) {
    rc = tn_errf(err, TN_ETOOL, "out of memory");
    goto cleanup;
  }

  s = config_setting_get_member(root, "problem");
  if (s == NULL) {
    rc = tn_errf(err, TN_EINPUT,
                 "%s:1: missing 'problem' (problem = { sizes = [%s]; })",
                 path, job->family->dim_names);
    goto cleanup;
  }
  rc = parse_problem(&c, s, job);
  if (rc)
    goto cleanup;

  s = config_setting_get_member(root, "space");
  if (s == NULL) {
    rc = tn_errf(err, TN_EINPUT,
                 "%s:1: missing 'space' (space = { parameter = [values]; })",
                 path);
    goto cleanup;
  }
  rc = parse_space(&c, s, job);
  if (rc)
    goto cleanup;
  s = config_setting_get_member(root, "constraints");
  if (s) {
    rc = parse_constraints(&c, s, job);
    if (rc)
      goto cleanup;
  }
  s = config_setting_get_member(root, "bench");
  if (s) {
    rc = parse_bench(&c, s, job);
    if (rc)
      goto cleanup;
  }
  s = config_setting_get_member(root, "output");
  if (s) {
    rc = parse_output(&c, s, job);
    if (rc)
      goto cleanup;
  }
  if (job->user)
    rc = tn_config_user_tail(&c, root, job);

cleanup:
  if (rc)
    tn_config_free(job); /* nothing half-made outlives a failure */
  config_destroy(&cfg);
  tn_cfgsrc_free(src);
  return rc;
}

int tn_config_load(const char *path, tn_job *job, tn_err *err)
{
  return load(path, NULL, NULL, 0, job, err);
}

int tn_config_load_string(const char *text, const char *name, tn_job *job,
                          tn_err *err)
{
  return load(name, text, NULL, 0, job, err);
}

int tn_config_load_string_family(const char *text, const char *name,
                                 const tn_family *family, tn_job *job,
                                 tn_err *err)
{
  return load(name, text, family, 0, job, err);
}

int tn_config_load_description(const char *text, const char *name,
                               tn_job *job, tn_err *err)
{
  return load(name, text, NULL, 1, job, err);
}

void tn_config_free(tn_job *job)
{
  if (job->user) {
    tn_user_kernel_free(job->user);
    free(job->user);
  }
  free(job->text);
  job->user = NULL;
  job->text = NULL;
  job->family = NULL;
}

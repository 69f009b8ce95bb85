/* config_user_run.c -- how the user's kernel runs, from its config: the
 * launch, the arguments, the __constant__ symbols, the reference, the
 * baseline and the rate. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/config_user_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family/user_eval.h"
#include "pipeline/config_user_expr.h"

/* Evaluates e on every problem of job (parameters at their first
 * values); v gets the last.  A failure names e's line. */
static int eval_on_problems(tn_cfg *c, const config_setting_t *s,
                            const tn_job *job, const tn_uexpr *e,
                            long long lo, long long hi, long long *v)
{
  const tn_user_kernel *u = job->user;
  tn_params p;
  int k, i;
  memset(&p, 0, sizeof(p));
  for (i = 0; i < u->n_params; i++)
    p.v[i].i = job->values[i].values[0].i;
  for (k = 0; k < job->n_problems; k++) {
    long long slots[TN_USLOT_COUNT];
    char why[512];
    tn_user_slots(u, &p, &job->problems[k], slots);
    if (tn_uexpr_eval(e, slots, v, why, sizeof(why)) != 0)
      return tn_cfg_bad(c, s, "%s (problem %d)", why, k);
    if (*v < lo || *v > hi)
      return tn_cfg_bad(c, s, "%s \"%s\" is %lld on problem %d (expected "
                              "%lld to %lld)",
                        e->what, e->text, *v, k, lo, hi);
  }
  return 0;
}

/* A launch group: grid and block, 1 to 3 expressions each, and smem. */
static int parse_launch(tn_cfg *c, const config_setting_t *s,
                        const char *where, const tn_uscope *scope,
                        int own_keys, tn_ulaunch *l)
{
  static const char *const keys[] = {"grid", "block", "smem", NULL};
  static const char *const part[2] = {"grid", "block"};
  char what[96];
  int rc, g, d;

  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "%s: expected a group { grid = [...]; block = "
                            "[...]; smem = \"...\"; }",
                      where);
  /* a launch inside another group: that group checks its keys */
  rc = own_keys ? tn_cfg_only_keys(c, s, where, keys) : 0;
  if (rc)
    return rc;
  memset(l, 0, sizeof(*l));
  for (g = 0; g < 2; g++) {
    const config_setting_t *m = config_setting_get_member(s, part[g]);
    tn_uexpr *e = g == 0 ? l->grid : l->block;
    int n;
    if (m == NULL)
      return tn_cfg_bad(c, s, "%s: missing '%s' (1 to 3 expressions)", where,
                        part[g]);
    n = tn_cfg_is_list(m) ? config_setting_length(m) : 1;
    if (n < 1 || n > 3)
      return tn_cfg_bad(c, m, "%s.%s: 1 to 3 expressions (x, y, z)", where,
                        part[g]);
    for (d = 0; d < n; d++) {
      const config_setting_t *x =
          tn_cfg_is_list(m) ? config_setting_get_elem(m, (unsigned)d) : m;
      snprintf(what, sizeof(what), "%s.%s[%d]", where, part[g], d);
      rc = tn_config_user_expr(c, x, what, scope, &e[d]);
      if (rc == 0 && g == 0)
        rc = tn_config_user_known(c, x, &e[d], NULL);
      if (rc)
        return rc;
      /* threads and smem_bytes come of the block: it cannot read them */
      if (g == 1 && (tn_uexpr_uses(&e[d], TN_USLOT_THREADS) ||
                     tn_uexpr_uses(&e[d], TN_USLOT_SMEM)))
        return tn_cfg_bad(c, x, "%s \"%s\": a block's size cannot read "
                                "threads or smem_bytes, which come of it",
                          what, e[d].text);
    }
  }
  snprintf(what, sizeof(what), "%s.smem", where);
  rc = tn_config_user_opt_expr(c, s, "smem", what, scope, &l->smem);
  if (rc == 0 && tn_uexpr_set(&l->smem))
    rc = tn_config_user_known(c, config_setting_get_member(s, "smem"),
                              &l->smem, NULL);
  return rc;
}

/* An init: "zeros", "ramp", or { random = [a, b]; } { constant = v; }
 * { ramp = [start, step]; }. */
static int parse_init(tn_cfg *c, const config_setting_t *s, const char *what,
                      tn_elem_type type, tn_buffer_init *init)
{
  static const char *const keys[] = {"random", "constant", "ramp", NULL};
  const config_setting_t *m;
  int rc;
  memset(init, 0, sizeof(*init));
  if (config_setting_type(s) == CONFIG_TYPE_STRING) {
    const char *v = config_setting_get_string(s);
    if (strcmp(v, "zeros") == 0) {
      init->kind = TN_INIT_ZEROS;
      return 0;
    }
    if (strcmp(v, "ramp") == 0) {
      init->kind = TN_INIT_RAMP;
      init->b = 1.0;
      return 0;
    }
    return tn_cfg_bad(c, s, "%s: '%s' is not an init (\"zeros\", \"ramp\", "
                            "{ random = [lo, hi]; }, { constant = v; }, "
                            "{ ramp = [start, step]; })",
                      what, v);
  }
  if (!config_setting_is_group(s) || config_setting_length(s) != 1)
    return tn_cfg_bad(c, s, "%s: expected \"zeros\", \"ramp\", { random = "
                            "[lo, hi]; }, { constant = v; } or { ramp = "
                            "[start, step]; }",
                      what);
  rc = tn_cfg_only_keys(c, s, what, keys);
  if (rc)
    return rc;
  m = config_setting_get_elem(s, 0);
  if (strcmp(config_setting_name(m), "constant") == 0) {
    init->kind = TN_INIT_CONSTANT;
    return tn_cfg_get_number(c, m, what, -1e300, 1e300, &init->a);
  }
  if (!tn_cfg_is_list(m) || config_setting_length(m) != 2)
    return tn_cfg_bad(c, m, "%s.%s: expected two numbers", what,
                      config_setting_name(m));
  init->kind = strcmp(config_setting_name(m), "random") == 0
                   ? TN_INIT_UNIFORM
                   : TN_INIT_RAMP;
  rc = tn_cfg_get_number(c, config_setting_get_elem(m, 0), what, -1e300,
                         1e300, &init->a);
  if (rc == 0)
    rc = tn_cfg_get_number(c, config_setting_get_elem(m, 1), what, -1e300,
                           1e300, &init->b);
  if (rc)
    return rc;
  if (init->kind == TN_INIT_UNIFORM && !(init->a <= init->b))
    return tn_cfg_bad(c, m, "%s.random: [%g, %g] is empty", what, init->a,
                      init->b);
  if (init->kind == TN_INIT_UNIFORM && !tn_elem_is_float(type) &&
      (init->a != floor(init->a) || init->b != floor(init->b) ||
       init->a < -9.2e18 || init->b > 1.8e19))
    return tn_cfg_bad(c, m, "%s.random: [%g, %g] for integers: whole "
                            "numbers in the type's range",
                      what, init->a, init->b);
  return 0;
}

/* The default tolerance of a floating output of type t. */
static void default_tolerance(tn_elem_type t, double *atol, double *rtol)
{
  if (t == TN_ELEM_F64) {
    *atol = 1e-12;
    *rtol = 1e-9;
  } else if (t == TN_ELEM_F32) {
    *atol = 1e-6;
    *rtol = 1e-5;
  } else {
    *atol = 1e-3;
    *rtol = 1e-2; /* fp16 and bf16 */
  }
}

static int parse_type(tn_cfg *c, const config_setting_t *s, const char *what,
                      tn_elem_type *out)
{
  char name[32];
  int t, rc = tn_cfg_get_string(c, s, what, name, sizeof(name));
  if (rc)
    return rc;
  t = tn_elem_parse(name);
  if (t < 0)
    return tn_cfg_bad(c, s, "%s: '%s' is not a type (fp64, fp32, fp16, "
                            "bf16, int8, int16, int32, int64, uint8, uint16, "
                            "uint32, uint64)",
                      what, name);
  *out = (tn_elem_type)t;
  return 0;
}

static int parse_output(tn_cfg *c, const config_setting_t *s, tn_uarg *g)
{
  static const char *const keys[] = {"atol", "rtol", NULL};
  const config_setting_t *m;
  int rc;
  char what[96];

  snprintf(what, sizeof(what), "arguments.%s.output", g->name);
  default_tolerance(g->type, &g->atol, &g->rtol);
  if (config_setting_type(s) == CONFIG_TYPE_BOOL)
    return tn_cfg_get_bool(c, s, what, &g->output);
  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "%s: expected true, or { atol = ...; rtol = "
                            "...; }",
                      what);
  rc = tn_cfg_only_keys(c, s, what, keys);
  if (rc)
    return rc;
  g->output = 1;
  if (!tn_elem_is_float(g->type) && config_setting_length(s) > 0)
    return tn_cfg_bad(c, s, "%s: %s is an integer type, compared exactly "
                            "(no tolerance)",
                      what, tn_elem_long_name(g->type));
  m = config_setting_get_member(s, "atol");
  if (m && (rc = tn_cfg_get_number(c, m, what, 0.0, 1e300, &g->atol)) != 0)
    return rc;
  m = config_setting_get_member(s, "rtol");
  if (m && (rc = tn_cfg_get_number(c, m, what, 0.0, 1e300, &g->rtol)) != 0)
    return rc;
  return 0;
}

/* Why a size or an amount of work may not read threads. */
#define DIMS_ALONE                                                           \
  "it is of the problem's dimensions alone: the same for every candidate"

/* The largest element count of a buffer or constant, in bytes too. */
#define MAX_BUFFER_BYTES (1LL << 40)

static int parse_argument(tn_cfg *c, const config_setting_t *s,
                          tn_job *job, int index)
{
  static const char *const keys[] = {"name",   "buffer", "scalar", "count",
                                     "init",   "output", "value",  NULL};
  tn_user_kernel *u = job->user;
  tn_uarg *g = &u->args[index];
  const config_setting_t *m, *buf, *sc;
  char what[96];
  long long v;
  int rc;

  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "arguments[%d]: expected a group { name = ...; "
                            "buffer = \"fp32\"; count = \"...\"; } or { "
                            "name = ...; scalar = \"int32\"; value = ...; }",
                      index);
  g->line = tn_cfg_line(c, s);
  snprintf(g->name, sizeof(g->name), "argument %d", index);
  m = config_setting_get_member(s, "name");
  if (m && (rc = tn_cfg_get_string(c, m, "arguments.name", g->name,
                                   sizeof(g->name))) != 0)
    return rc;
  snprintf(what, sizeof(what), "arguments.%s", g->name);
  rc = tn_cfg_only_keys(c, s, what, keys);
  if (rc)
    return rc;
  buf = config_setting_get_member(s, "buffer");
  sc = config_setting_get_member(s, "scalar");
  if ((buf == NULL) == (sc == NULL))
    return tn_cfg_bad(c, s, "%s: give 'buffer' (its element type) or "
                            "'scalar' (its type), one of them",
                      what);
  if (sc) {
    static const char *const scalar_keys[] = {"name", "scalar", "value",
                                              NULL};
    g->kind = TN_UARG_SCALAR;
    rc = parse_type(c, sc, what, &g->type);
    if (rc == 0)
      rc = tn_cfg_only_keys(c, s, what, scalar_keys);
    if (rc)
      return rc;
    m = config_setting_get_member(s, "value");
    if (m == NULL)
      return tn_cfg_bad(c, s, "%s: missing 'value' (an expression, or a "
                              "number for a floating type)",
                        what);
    if (config_setting_type(m) == CONFIG_TYPE_FLOAT) {
      if (!tn_elem_is_float(g->type))
        return tn_cfg_bad(c, m, "%s.value: a fraction for %s", what,
                          tn_elem_long_name(g->type));
      g->literal = 1;
      return tn_cfg_get_number(c, m, what, -1e300, 1e300,
                               &g->literal_value);
    }
    snprintf(what, sizeof(what), "arguments.%s.value", g->name);
    rc = tn_config_user_expr(c, m, what, &u->scope, &g->value);
    return rc ? rc : tn_config_user_known(c, m, &g->value, NULL);
  }
  g->kind = TN_UARG_BUFFER;
  rc = parse_type(c, buf, what, &g->type);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "count");
  if (m == NULL)
    return tn_cfg_bad(c, s, "%s: missing 'count' (its elements: an "
                            "expression of the dimensions)",
                      what);
  snprintf(what, sizeof(what), "arguments.%s.count", g->name);
  rc = tn_config_user_expr(c, m, what, &u->scope, &g->count);
  if (rc)
    return rc;
  for (v = 0; v < u->n_params; v++)
    if (tn_uexpr_uses(&g->count, TN_USLOT_PARAM0 + (int)v))
      return tn_cfg_bad(c, m, "%s \"%s\": a buffer's size is of the "
                              "dimensions alone (it names the parameter "
                              "%s): one buffer serves every candidate",
                        what, g->count.text, u->param_names[v]);
  rc = tn_config_user_known(c, m, &g->count, DIMS_ALONE);
  if (rc == 0)
    rc = eval_on_problems(c, m, job, &g->count, 1,
                        MAX_BUFFER_BYTES / tn_elem_bytes(g->type), &v);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "output");
  if (m && (rc = parse_output(c, m, g)) != 0)
    return rc;
  m = config_setting_get_member(s, "init");
  snprintf(what, sizeof(what), "arguments.%s.init", g->name);
  if (m) {
    g->has_init = 1;
    return parse_init(c, m, what, g->type, &g->init);
  }
  /* inputs are random unless said otherwise */
  g->init.kind = TN_INIT_UNIFORM;
  g->init.a = tn_elem_is_float(g->type) ? -1.0 : 0.0;
  g->init.b = tn_elem_is_float(g->type) ? 1.0 : 100.0;
  return 0;
}

static int parse_arguments(tn_cfg *c, const config_setting_t *s,
                           tn_job *job)
{
  tn_user_kernel *u = job->user;
  int i, j, n, rc, outputs = 0;
  if (!tn_cfg_is_list(s))
    return tn_cfg_bad(c, s, "arguments: expected a list ( { ... }, ... ) in "
                            "the kernel's order");
  n = config_setting_length(s);
  if (n > TN_USER_MAX_ARGS)
    return tn_cfg_bad(c, s, "arguments: more than %d", TN_USER_MAX_ARGS);
  u->n_args = n;
  u->args_line = tn_cfg_line(c, s);
  for (i = 0; i < n; i++) {
    rc = parse_argument(c, config_setting_get_elem(s, (unsigned)i), job, i);
    if (rc)
      return rc;
    for (j = 0; j < i; j++)
      if (strcmp(u->args[j].name, u->args[i].name) == 0)
        return tn_cfg_bad(c, config_setting_get_elem(s, (unsigned)i),
                          "arguments: '%s' named twice", u->args[i].name);
    outputs += u->args[i].output;
  }
  j = 0;
  for (i = 0; i < n; i++)
    j += u->args[i].kind == TN_UARG_BUFFER;
  if (j + (u->base_kind == TN_UBASE_COPY ? 2 : 0) > TN_MAX_BUFFERS)
    return tn_cfg_bad(c, s, "arguments: more than %d buffers",
                      TN_MAX_BUFFERS - 2);
  if (outputs == 0)
    return tn_cfg_bad(c, s, "arguments: no output (mark the buffers the "
                            "kernel writes `output = true;`: they are "
                            "checked against the reference)");
  return 0;
}

static int parse_constants(tn_cfg *c, const config_setting_t *s, tn_job *job)
{
  static const char *const keys[] = {"name", "type", "count", "init", NULL};
  tn_user_kernel *u = job->user;
  int i, n, rc;
  if (!tn_cfg_is_list(s))
    return tn_cfg_bad(c, s, "constants: expected a list ( { name = ...; "
                            "type = ...; count = ...; init = ...; } )");
  n = config_setting_length(s);
  if (n > TN_USER_MAX_CONSTANTS)
    return tn_cfg_bad(c, s, "constants: more than %d",
                      TN_USER_MAX_CONSTANTS);
  for (i = 0; i < n; i++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    tn_uconstant *k = &u->constants[i];
    const config_setting_t *m;
    char what[96];
    long long v;
    if (!config_setting_is_group(e))
      return tn_cfg_bad(c, e, "constants[%d]: expected a group", i);
    rc = tn_cfg_only_keys(c, e, "constants", keys);
    if (rc)
      return rc;
    k->line = tn_cfg_line(c, e);
    m = config_setting_get_member(e, "name");
    if (m == NULL)
      return tn_cfg_bad(c, e, "constants[%d]: missing 'name' (the "
                              "__constant__ symbol)",
                        i);
    rc = tn_cfg_get_string(c, m, "constants.name", k->name, sizeof(k->name));
    if (rc)
      return rc;
    if (!tn_cfg_identifier(k->name))
      return tn_cfg_bad(c, m, "constants.name: '%s' is not a symbol",
                        k->name);
    snprintf(what, sizeof(what), "constants.%s", k->name);
    m = config_setting_get_member(e, "type");
    if (m == NULL)
      return tn_cfg_bad(c, e, "%s: missing 'type'", what);
    rc = parse_type(c, m, what, &k->type);
    if (rc)
      return rc;
    m = config_setting_get_member(e, "count");
    if (m == NULL)
      return tn_cfg_bad(c, e, "%s: missing 'count'", what);
    snprintf(what, sizeof(what), "constants.%s.count", k->name);
    rc = tn_config_user_expr(c, m, what, &u->scope, &k->count);
    for (v = 0; rc == 0 && v < u->n_params; v++)
      if (tn_uexpr_uses(&k->count, TN_USLOT_PARAM0 + (int)v))
        rc = tn_cfg_bad(c, m, "%s \"%s\": of the dimensions alone (it "
                              "names the parameter %s): one symbol serves "
                              "every candidate",
                        what, k->count.text, u->param_names[v]);
    if (rc == 0)
      rc = tn_config_user_known(c, m, &k->count, DIMS_ALONE);
    if (rc == 0)
      rc = eval_on_problems(c, m, job, &k->count, 1, 65536 / 1, &v);
    if (rc)
      return rc;
    if (v * tn_elem_bytes(k->type) > 65536)
      return tn_cfg_bad(c, m, "%s: %lld bytes (constant memory holds 64 KiB)",
                        what, v * tn_elem_bytes(k->type));
    m = config_setting_get_member(e, "init");
    k->init.kind = TN_INIT_UNIFORM;
    k->init.a = tn_elem_is_float(k->type) ? -1.0 : 0.0;
    k->init.b = tn_elem_is_float(k->type) ? 1.0 : 100.0;
    if (m && (rc = parse_init(c, m, what, k->type, &k->init)) != 0)
      return rc;
  }
  u->n_constants = n;
  return 0;
}

/* Another kernel: { kernel = "name"; file = "f.cu"; grid; block; smem }. */
static int parse_other(tn_cfg *c, const config_setting_t *s,
                       const char *where, tn_job *job, tn_uother *o)
{
  static const char *const keys[] = {"kernel", "file", "grid", "block",
                                     "smem", NULL};
  tn_user_kernel *u = job->user;
  const config_setting_t *m;
  char what[96];
  int rc = tn_cfg_only_keys(c, s, where, keys);
  if (rc)
    return rc;
  o->line = tn_cfg_line(c, s);
  snprintf(what, sizeof(what), "%s.kernel", where);
  m = config_setting_get_member(s, "kernel");
  if (m == NULL)
    return tn_cfg_bad(c, s, "%s: missing 'kernel' (its name)", where);
  rc = tn_cfg_get_string(c, m, what, o->kernel, sizeof(o->kernel));
  if (rc)
    return rc;
  if (!tn_cfg_identifier(o->kernel))
    return tn_cfg_bad(c, m, "%s: '%s' is not a C identifier", what,
                      o->kernel);
  m = config_setting_get_member(s, "file");
  snprintf(what, sizeof(what), "%s.file", where);
  if (m)
    rc = u->source ? tn_cfg_get_path(c, m, what, o->file, sizeof(o->file))
                   : tn_cfg_get_string(c, m, what, o->file, sizeof(o->file));
  else
    tn_strlcpy(o->file, u->file, sizeof(o->file));
  if (rc)
    return rc;
  if (u->source && tn_read_file(o->file, &o->source, NULL, c->err) != 0)
    return tn_cfg_bad(c, m ? m : s, "%s: cannot read %s", what, o->file);
  return parse_launch(c, s, where, &u->scope, 0, &o->launch);
}

static int parse_check(tn_cfg *c, const config_setting_t *s, tn_job *job)
{
  static const char *const keys[] = {"reference", NULL};
  tn_user_kernel *u = job->user;
  const config_setting_t *m;
  int rc;
  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "check: expected a group { reference = ...; }");
  rc = tn_cfg_only_keys(c, s, "check", keys);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "reference");
  if (m == NULL)
    return 0;
  if (config_setting_type(m) == CONFIG_TYPE_STRING) {
    if (strcmp(config_setting_get_string(m), "default") != 0)
      return tn_cfg_bad(c, m, "check.reference: \"default\" (the space's "
                              "first point), or { kernel = ...; grid = "
                              "...; block = ...; }");
    u->ref_kind = TN_UREF_DEFAULT;
    return 0;
  }
  if (!config_setting_is_group(m))
    return tn_cfg_bad(c, m, "check.reference: \"default\", or { kernel = "
                            "...; grid = ...; block = ...; }");
  u->ref_kind = TN_UREF_KERNEL;
  return parse_other(c, m, "check.reference", job, &u->reference);
}

/* "GB/s" into its scale (1e9) and whether it counts bytes. */
static int parse_unit(const char *unit, double *scale)
{
  static const char *const bases[] = {"B/s", "FLOP/s", "op/s", "elem/s"};
  static const char prefixes[] = "KMGTP";
  const char *p = unit;
  size_t i;
  *scale = 1.0;
  if (*p && strchr(prefixes, *p) && p[1] != '/') {
    *scale = pow(1e3, (double)(strchr(prefixes, *p) - prefixes + 1));
    p++;
  }
  for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
    if (strcmp(p, bases[i]) == 0)
      return 0;
  return -1;
}

static int parse_rate(tn_cfg *c, const config_setting_t *s, tn_job *job)
{
  static const char *const keys[] = {"work", "unit", NULL};
  tn_user_kernel *u = job->user;
  const config_setting_t *m;
  long long v;
  int rc, k;
  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "rate: expected a group { work = \"...\"; unit "
                            "= \"GB/s\"; }");
  rc = tn_cfg_only_keys(c, s, "rate", keys);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "work");
  if (m == NULL)
    return tn_cfg_bad(c, s, "rate: missing 'work' (per launch, in the "
                            "unit's bytes or operations)");
  rc = tn_config_user_expr(c, m, "rate.work", &u->scope, &u->work);
  if (rc)
    return rc;
  for (k = 0; k < u->n_params; k++)
    if (tn_uexpr_uses(&u->work, TN_USLOT_PARAM0 + k))
      return tn_cfg_bad(c, m, "rate.work \"%s\": of the dimensions alone "
                              "(it names the parameter %s): every "
                              "candidate does the same work",
                        u->work.text, u->param_names[k]);
  rc = tn_config_user_known(c, m, &u->work, DIMS_ALONE);
  if (rc == 0)
    rc = eval_on_problems(c, m, job, &u->work, 1, 1LL << 62, &v);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "unit");
  if (m == NULL)
    return tn_cfg_bad(c, s, "rate: missing 'unit' (such as \"GB/s\" or "
                            "\"TFLOP/s\")");
  rc = tn_cfg_get_string(c, m, "rate.unit", u->unit, sizeof(u->unit));
  if (rc)
    return rc;
  if (parse_unit(u->unit, &u->unit_scale) != 0)
    return tn_cfg_bad(c, m, "rate.unit: '%s' is not a unit (B/s, FLOP/s, "
                            "op/s or elem/s, with K, M, G, T or P before "
                            "them: GB/s, TFLOP/s)",
                      u->unit);
  return 0;
}

/* Without a rate: the bytes of every buffer argument, in GB/s. */
static int default_rate(tn_cfg *c, const config_setting_t *root,
                        tn_job *job)
{
  tn_user_kernel *u = job->user;
  char text[TN_UEXPR_LEN] = "", why[256];
  size_t used = 0;
  long long v;
  int a;
  for (a = 0; a < u->n_args; a++) {
    const tn_uarg *g = &u->args[a];
    int w;
    if (g->kind != TN_UARG_BUFFER)
      continue;
    w = snprintf(text + used, sizeof(text) - used, "%s(%s) * %d",
                 used ? " + " : "", g->count.text, tn_elem_bytes(g->type));
    if (w < 0 || (size_t)w >= sizeof(text) - used)
      return tn_cfg_bad(c, root, "rate: the buffers' bytes make too long an "
                                 "expression: give rate = { work = ...; "
                                 "unit = ...; }");
    used += (size_t)w;
  }
  tn_uexpr_init(&u->work, "rate.work (the buffers' bytes)", text);
  if (tn_uexpr_compile(&u->work, &u->scope, why, sizeof(why)) != 0)
    return tn_cfg_bad(c, root, "rate: the buffers' bytes \"%s\": %s", text,
                      why);
  tn_strlcpy(u->unit, "GB/s", sizeof(u->unit));
  u->unit_scale = 1e9;
  return eval_on_problems(c, root, job, &u->work, 0, 1LL << 62, &v);
}

static int parse_baseline(tn_cfg *c, const config_setting_t *s, tn_job *job)
{
  tn_user_kernel *u = job->user;
  const config_setting_t *m;
  long long v;
  int rc;
  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "baseline: expected { copy = \"bytes\"; } or { "
                            "kernel = ...; grid = ...; block = ...; }");
  m = config_setting_get_member(s, "copy");
  if (m) {
    static const char *const keys[] = {"copy", NULL};
    rc = tn_cfg_only_keys(c, s, "baseline", keys);
    if (rc == 0)
      rc = tn_config_user_expr(c, m, "baseline.copy", &u->scope, &u->copy_bytes);
    for (v = 0; rc == 0 && v < u->n_params; v++)
      if (tn_uexpr_uses(&u->copy_bytes, TN_USLOT_PARAM0 + (int)v))
        rc = tn_cfg_bad(c, m, "baseline.copy \"%s\": of the dimensions "
                              "alone (it names the parameter %s): one copy "
                              "is every candidate's baseline",
                        u->copy_bytes.text, u->param_names[v]);
    if (rc == 0)
      rc = tn_config_user_known(c, m, &u->copy_bytes, DIMS_ALONE);
    if (rc == 0)
      rc = eval_on_problems(c, m, job, &u->copy_bytes, 1, MAX_BUFFER_BYTES,
                            &v);
    if (rc)
      return rc;
    u->base_kind = TN_UBASE_COPY;
    return 0;
  }
  u->base_kind = TN_UBASE_KERNEL;
  return parse_other(c, s, "baseline", job, &u->baseline);
}

int tn_config_user_run(tn_cfg *c, const config_setting_t *root, tn_job *job)
{
  tn_user_kernel *u = job->user;
  const config_setting_t *s;
  int rc;

  s = config_setting_get_member(root, "launch");
  if (s == NULL)
    return tn_errf(c->err, TN_EINPUT,
                   "%s:1: missing 'launch' (launch = { grid = [...]; block = "
                   "[...]; })",
                   c->file);
  rc = parse_launch(c, s, "launch", &u->scope, 1, &u->launch);
  if (rc)
    return rc;
  s = config_setting_get_member(root, "baseline");
  if (s && (rc = parse_baseline(c, s, job)) != 0)
    return rc;
  s = config_setting_get_member(root, "arguments");
  if (s == NULL)
    return tn_errf(c->err, TN_EINPUT,
                   "%s:1: missing 'arguments' (the kernel's, in its order)",
                   c->file);
  rc = parse_arguments(c, s, job);
  if (rc)
    return rc;
  s = config_setting_get_member(root, "constants");
  if (s && (rc = parse_constants(c, s, job)) != 0)
    return rc;
  s = config_setting_get_member(root, "check");
  if (s && (rc = parse_check(c, s, job)) != 0)
    return rc;
  s = config_setting_get_member(root, "rate");
  return s ? parse_rate(c, s, job) : default_rate(c, root, job);
}

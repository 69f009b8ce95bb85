/* config_user_plan.c -- the shared-memory plan a config declares for the
 * user's kernel: its arrays and the warp accesses to them (docs/kernels.md,
 * "The plan"). */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/config_user_plan.h"

#include <stdio.h>
#include <string.h>

#include "family/user_eval.h"
#include "family/user_plan.h"
#include "model/access.h"
#include "pipeline/config_user_expr.h"

/* The names an access adds to the kernel's: each lane's indices. */
static const struct {
  const char *name;
  int slot;
} lane_names[] = {
    {"lane", TN_USLOT_LANE}, {"warp", TN_USLOT_WARP}, {"tid", TN_USLOT_TID},
    {"tx", TN_USLOT_TX},     {"ty", TN_USLOT_TY},     {"tz", TN_USLOT_TZ},
};
#define N_LANE_NAMES ((int)(sizeof(lane_names) / sizeof(lane_names[0])))

static const struct {
  const char *name;
  tn_op op;
} op_names[] = {
    {"ld", TN_OP_LD},
    {"st", TN_OP_ST},
    {"ldmatrix", TN_OP_LDMATRIX},
    {"stmatrix", TN_OP_STMATRIX},
    {"cp.async", TN_OP_CP_ASYNC_CA},
    {"cp.async.cg", TN_OP_CP_ASYNC_CG},
};

static int parse_array(tn_cfg *c, const config_setting_t *s,
                       tn_user_kernel *u, int index)
{
  static const char *const keys[] = {"name", "elem", "rows",    "cols",
                                     "pad",  "swizzle", "dynamic", NULL};
  tn_uarray *ar = &u->arrays[index];
  const config_setting_t *m;
  char what[96], text[64], why[256];
  int rc, j;

  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "plan.arrays[%d]: expected a group { name; "
                            "elem; rows; cols; pad; swizzle; }",
                      index);
  rc = tn_cfg_only_keys(c, s, "plan.arrays", keys);
  if (rc)
    return rc;
  ar->line = tn_cfg_line(c, s);
  ar->swizzle_param = -1;
  m = config_setting_get_member(s, "name");
  if (m == NULL)
    return tn_cfg_bad(c, s, "plan.arrays[%d]: missing 'name'", index);
  rc = tn_cfg_get_string(c, m, "plan.arrays.name", ar->name,
                         sizeof(ar->name));
  if (rc)
    return rc;
  for (j = 0; j < index; j++)
    if (strcmp(u->arrays[j].name, ar->name) == 0)
      return tn_cfg_bad(c, m, "plan.arrays: '%s' declared twice", ar->name);
  snprintf(what, sizeof(what), "plan.arrays.%s.elem", ar->name);
  m = config_setting_get_member(s, "elem");
  if (m == NULL)
    return tn_cfg_bad(c, s, "plan.arrays.%s: missing 'elem' (bytes of an "
                            "element, or its type: \"fp32\")",
                      ar->name);
  if (config_setting_type(m) == CONFIG_TYPE_STRING) {
    int t = tn_elem_parse(config_setting_get_string(m));
    if (t < 0)
      return tn_cfg_bad(c, m, "%s: '%s' is not a type", what,
                        config_setting_get_string(m));
    ar->elem = tn_elem_bytes((tn_elem_type)t);
  } else {
    long long v;
    rc = tn_cfg_get_int(c, m, what, 1, 16, &v);
    if (rc)
      return rc;
    if (v & (v - 1))
      return tn_cfg_bad(c, m, "%s: %lld bytes (1, 2, 4, 8 or 16)", what, v);
    ar->elem = (int)v;
  }
  snprintf(what, sizeof(what), "plan.arrays.%s", ar->name);
  if (config_setting_get_member(s, "rows") == NULL ||
      config_setting_get_member(s, "cols") == NULL)
    return tn_cfg_bad(c, s, "%s: missing 'rows' or 'cols'", what);
  snprintf(what, sizeof(what), "plan.arrays.%s.rows", ar->name);
  rc = tn_config_user_opt_expr(c, s, "rows", what, &u->scope, &ar->rows);
  snprintf(what, sizeof(what), "plan.arrays.%s.cols", ar->name);
  if (rc == 0)
    rc = tn_config_user_opt_expr(c, s, "cols", what, &u->scope, &ar->cols);
  snprintf(what, sizeof(what), "plan.arrays.%s.pad", ar->name);
  if (rc == 0)
    rc = tn_config_user_opt_expr(c, s, "pad", what, &u->scope, &ar->pad);
  if (rc == 0)
    rc = tn_config_user_known(c, s, &ar->rows, NULL);
  if (rc == 0)
    rc = tn_config_user_known(c, s, &ar->cols, NULL);
  if (rc == 0)
    rc = tn_config_user_known(c, s, &ar->pad, NULL);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "dynamic");
  snprintf(what, sizeof(what), "plan.arrays.%s.dynamic", ar->name);
  if (m && (rc = tn_cfg_get_bool(c, m, what, &ar->dynamic)) != 0)
    return rc;
  m = config_setting_get_member(s, "swizzle");
  if (m == NULL)
    return 0;
  snprintf(what, sizeof(what), "plan.arrays.%s.swizzle", ar->name);
  rc = tn_cfg_get_string(c, m, what, text, sizeof(text));
  if (rc)
    return rc;
  /* a swizzle parameter of the space, or a fixed swizzle */
  for (j = 0; j < u->n_params; j++)
    if (strcmp(u->param_names[j], text) == 0) {
      if (u->params[j].kind != TN_PARAM_SWIZZLE)
        return tn_cfg_bad(c, m, "%s: the parameter %s takes integers, not "
                                "swizzles (\"none\", \"xor\", ...)",
                          what, text);
      ar->swizzle_param = j;
      return 0;
    }
  if (tn_swizzle_parse(text, &ar->swizzle, why, sizeof(why)) != 0)
    return tn_cfg_bad(c, m, "%s: '%s' is neither a swizzle parameter nor a "
                            "swizzle: %s",
                      what, text, why);
  return 0;
}

/* The scope of access x: the kernel's names, each lane's, its loops'. */
static int access_scope(tn_cfg *c, const config_setting_t *s,
                        const tn_user_kernel *u, tn_uaccess *x)
{
  int i, j;
  x->scope = u->scope;
  for (i = 0; i < N_LANE_NAMES; i++) {
    if (tn_uscope_find(&u->scope, lane_names[i].name) >= 0)
      return tn_cfg_bad(c, s, "plan: the parameter or dimension '%s' hides "
                              "the plan's name for a lane's %s",
                        lane_names[i].name, lane_names[i].name);
    tn_strlcpy(x->scope.name[lane_names[i].slot], lane_names[i].name,
               TN_NAME_LEN);
  }
  for (i = 0; i < x->n_loops; i++) {
    if (tn_uscope_find(&x->scope, x->loop_name[i]) >= 0)
      return tn_cfg_bad(c, s, "plan.accesses.%s: the loop index '%s' hides "
                              "another name",
                        x->name, x->loop_name[i]);
    for (j = 0; j < i; j++)
      if (strcmp(x->loop_name[j], x->loop_name[i]) == 0)
        return tn_cfg_bad(c, s, "plan.accesses.%s: loop '%s' twice",
                          x->name, x->loop_name[i]);
    tn_strlcpy(x->scope.name[TN_USLOT_LOOP0 + i], x->loop_name[i],
               TN_NAME_LEN);
  }
  return 0;
}

static int parse_op(tn_cfg *c, const config_setting_t *s, tn_uaccess *x)
{
  char text[32], what[96];
  size_t i;
  int rc;
  snprintf(what, sizeof(what), "plan.accesses.%s.op", x->name);
  rc = tn_cfg_get_string(c, s, what, text, sizeof(text));
  if (rc)
    return rc;
  for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
    if (strcmp(op_names[i].name, text) == 0) {
      x->op = (int)op_names[i].op;
      return 0;
    }
  return tn_cfg_bad(c, s, "%s: '%s' is not one of ld, st, ldmatrix, "
                          "stmatrix, cp.async, cp.async.cg",
                    what, text);
}

/* width, matrices and trans, by op.  A width may be an expression of
 * the kernel's names (4 * vec): it is checked on each point. */
static int parse_shape(tn_cfg *c, const config_setting_t *s,
                       const tn_user_kernel *u, tn_uaccess *x)
{
  const char *bad;
  const config_setting_t *m;
  char what[96];
  long long v;
  int rc;
  int matrix = x->op == TN_OP_LDMATRIX || x->op == TN_OP_STMATRIX;

  snprintf(what, sizeof(what), "plan.accesses.%s", x->name);
  if (matrix) {
    x->width = 16;
    x->matrices = 4;
    m = config_setting_get_member(s, "matrices");
    if (m) {
      rc = tn_cfg_get_int(c, m, what, 1, 4, &v);
      if (rc)
        return rc;
      if (v == 3)
        return tn_cfg_bad(c, m, "%s.matrices: 1, 2 or 4", what);
      x->matrices = (int)v;
    }
    m = config_setting_get_member(s, "trans");
    if (m && (rc = tn_cfg_get_bool(c, m, what, &x->trans)) != 0)
      return rc;
    return 0;
  }
  if (config_setting_get_member(s, "matrices") ||
      config_setting_get_member(s, "trans"))
    return tn_cfg_bad(c, s, "%s: 'matrices' and 'trans' are ldmatrix's and "
                            "stmatrix's",
                      what);
  m = config_setting_get_member(s, "width");
  if (m == NULL)
    return tn_cfg_bad(c, s, "%s: missing 'width' (bytes per lane: 1, 2, 4, "
                            "8 or 16, or an expression such as \"4 * "
                            "vec\")",
                      what);
  if (config_setting_type(m) == CONFIG_TYPE_STRING) {
    char w[128];
    snprintf(w, sizeof(w), "%s.width", what);
    x->width = 0;
    return tn_config_user_expr(c, m, w, &u->scope, &x->width_expr);
  }
  rc = tn_cfg_get_int(c, m, what, 1, 16, &v);
  if (rc)
    return rc;
  bad = tn_user_width_problem(x->op, v);
  if (bad)
    return tn_cfg_bad(c, m, "%s.width: %lld bytes (%s)", what, v, bad);
  x->width = (int)v;
  return 0;
}

/* Lines in text: a last line without its newline counts. */
static long long count_lines(const char *text)
{
  long long n = 0;
  const char *p;
  for (p = text; *p; p++)
    n += *p == '\n';
  return n + (p > text && p[-1] != '\n');
}

/* `line`: a line of the kernel's file, or a list of them, each within
 * the file. */
static int parse_src_lines(tn_cfg *c, const config_setting_t *m,
                           const tn_user_kernel *u, tn_uaccess *x,
                           const char *what)
{
  char w[160];
  long long lines = count_lines(u->source ? u->source : "");
  const char *base = strrchr(u->file, '/') ? strrchr(u->file, '/') + 1
                                           : u->file;
  int i, n = 1, list = tn_cfg_is_list(m);

  snprintf(w, sizeof(w), "%s.line", what);
  if (list) {
    n = config_setting_length(m);
    if (n < 1 || n > TN_USER_MAX_SRC_LINES)
      return tn_cfg_bad(c, m, "%s: a line of %s or a list of 1 to %d "
                              "lines",
                        w, base, TN_USER_MAX_SRC_LINES);
  }
  for (i = 0; i < n; i++) {
    const config_setting_t *e =
        list ? config_setting_get_elem(m, (unsigned)i) : m;
    long long v;
    int rc = tn_cfg_get_int(c, e, w, 1, 1000000000LL, &v);
    if (rc)
      return rc;
    if (v > lines)
      return tn_cfg_bad(c, e, "%s: %lld is past the end of %s (%lld "
                              "lines); name the line of the kernel's "
                              "file that holds the access's "
                              "shared-memory instruction",
                        w, v, base, lines);
    x->src_line[x->n_src_lines++] = (int)v;
  }
  return 0;
}

static int parse_access(tn_cfg *c, const config_setting_t *s,
                        tn_user_kernel *u, int index)
{
  static const char *const keys[] = {
      "name", "array",  "op",     "width", "matrices", "trans",  "row",
      "col",  "active", "warps",  "times", "loops",    "global", "line",
      NULL};
  tn_uaccess *x = &u->accesses[index];
  const config_setting_t *m;
  char what[128], arr[TN_NAME_LEN];
  int rc, i;

  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "plan.accesses[%d]: expected a group", index);
  {
    const char *file;
    tn_cfg_where(c, s, &file, &x->line);
    tn_strlcpy(x->file, file, sizeof(x->file));
  }
  snprintf(x->name, sizeof(x->name), "access %d", index);
  m = config_setting_get_member(s, "name");
  if (m && (rc = tn_cfg_get_string(c, m, "plan.accesses.name", x->name,
                                   sizeof(x->name))) != 0)
    return rc;
  snprintf(what, sizeof(what), "plan.accesses.%s", x->name);
  rc = tn_cfg_only_keys(c, s, what, keys);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "array");
  if (m == NULL)
    return tn_cfg_bad(c, s, "%s: missing 'array'", what);
  rc = tn_cfg_get_string(c, m, what, arr, sizeof(arr));
  if (rc)
    return rc;
  for (x->array = 0; x->array < u->n_arrays; x->array++)
    if (strcmp(u->arrays[x->array].name, arr) == 0)
      break;
  if (x->array == u->n_arrays)
    return tn_cfg_bad(c, m, "%s: no array '%s' in plan.arrays", what, arr);
  m = config_setting_get_member(s, "op");
  if (m == NULL)
    return tn_cfg_bad(c, s, "%s: missing 'op' (ld, st, ldmatrix, stmatrix, "
                            "cp.async, cp.async.cg)",
                      what);
  rc = parse_op(c, m, x);
  if (rc == 0)
    rc = parse_shape(c, s, u, x);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "loops");
  if (m) {
    if (!config_setting_is_group(m) ||
        config_setting_length(m) > TN_USER_MAX_LOOPS)
      return tn_cfg_bad(c, m, "%s.loops: a group of at most %d loops { i = "
                              "\"count\"; j = \"count\"; } (the first "
                              "outermost)",
                        what, TN_USER_MAX_LOOPS);
    x->n_loops = config_setting_length(m);
    for (i = 0; i < x->n_loops; i++) {
      const char *name = config_setting_name(config_setting_get_elem(m, i));
      if (strlen(name) >= TN_NAME_LEN)
        return tn_cfg_bad(c, m, "%s.loops: '%s' is too long a name", what,
                          name);
      tn_strlcpy(x->loop_name[i], name, TN_NAME_LEN);
    }
  }
  rc = access_scope(c, s, u, x);
  if (rc)
    return rc;
  for (i = 0; i < x->n_loops; i++) {
    char w[256];
    snprintf(w, sizeof(w), "%s.loops.%s", what, x->loop_name[i]);
    /* a loop's count is of the kernel's names, not of a lane's */
    rc = tn_config_user_expr(c, config_setting_get_elem(m, (unsigned)i), w,
                             &u->scope, &x->loop_count[i]);
    if (rc == 0)
      rc = tn_config_user_known(c, m, &x->loop_count[i], NULL);
    if (rc)
      return rc;
  }
  if (config_setting_get_member(s, "row") == NULL ||
      config_setting_get_member(s, "col") == NULL)
    return tn_cfg_bad(c, s, "%s: missing 'row' or 'col' (of each lane: "
                            "expressions of lane, warp, tid, tx, ty, tz and "
                            "the loops)",
                      what);
  {
    static const char *const parts[] = {"row", "col", "active", "global"};
    tn_uexpr *dst[] = {&x->row, &x->col, &x->active, &x->global};
    for (i = 0; i < 4; i++) {
      char w[256];
      snprintf(w, sizeof(w), "%s.%s", what, parts[i]);
      rc = tn_config_user_opt_expr(c, s, parts[i], w, &x->scope, dst[i]);
      if (rc == 0)
        rc = tn_config_user_known(c, s, dst[i], NULL);
      if (rc)
        return rc;
    }
  }
  if (tn_uexpr_set(&x->global) && x->op != TN_OP_CP_ASYNC_CA &&
      x->op != TN_OP_CP_ASYNC_CG)
    return tn_cfg_bad(c, s, "%s: 'global' is cp.async's (the global byte "
                            "offset each lane copies from)",
                      what);
  {
    char w[256];
    snprintf(w, sizeof(w), "%s.warps", what);
    rc = tn_config_user_opt_expr(c, s, "warps", w, &u->scope, &x->warps);
    snprintf(w, sizeof(w), "%s.times", what);
    if (rc == 0)
      rc = tn_config_user_opt_expr(c, s, "times", w, &u->scope, &x->times);
    if (rc == 0)
      rc = tn_config_user_known(c, s, &x->warps, NULL);
    if (rc == 0)
      rc = tn_config_user_known(c, s, &x->times, NULL);
    if (rc == 0)
      rc = tn_config_user_known(c, s, &x->width_expr, NULL);
  }
  if (rc == 0 && (m = config_setting_get_member(s, "line")) != NULL)
    rc = parse_src_lines(c, m, u, x, what);
  return rc;
}

/* Parameters that set a layout alone (kernel.layout), else found: the
 * swizzle parameters and those the arrays' padding reads but nothing else
 * (the launch, the arguments, the arrays' shapes, the accesses) does. */
static int mark_layout(tn_cfg *c, const config_setting_t *root,
                       tn_user_kernel *u)
{
  const config_setting_t *kernel = config_setting_get_member(root, "kernel");
  const config_setting_t *m = config_setting_get_member(kernel, "layout");
  int k, a, d;

  if (m) {
    int n, i, rc;
    if (!tn_cfg_is_list(m))
      return tn_cfg_bad(c, m, "kernel.layout: expected a list of parameter "
                              "names");
    n = config_setting_length(m);
    for (i = 0; i < n; i++) {
      const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
      char name[TN_NAME_LEN];
      rc = tn_cfg_get_string(c, e, "kernel.layout", name, sizeof(name));
      if (rc)
        return rc;
      k = tn_param_index(u->params, u->n_params, name);
      if (k < 0)
        return tn_cfg_bad(c, e, "kernel.layout: '%s' is not a parameter of "
                                "the space",
                          name);
      u->params[k].is_layout = 1;
    }
    return 0;
  }
  for (k = 0; k < u->n_params; k++) {
    int slot = TN_USLOT_PARAM0 + k, in_pad = 0, elsewhere = 0;
    if (u->params[k].kind == TN_PARAM_SWIZZLE) {
      u->params[k].is_layout = 1;
      continue;
    }
    for (d = 0; d < 3; d++)
      elsewhere |= tn_uexpr_uses(&u->launch.grid[d], slot) ||
                   tn_uexpr_uses(&u->launch.block[d], slot);
    elsewhere |= tn_uexpr_uses(&u->launch.smem, slot);
    for (a = 0; a < u->n_args; a++)
      elsewhere |= tn_uexpr_uses(&u->args[a].value, slot);
    for (a = 0; a < u->n_arrays; a++) {
      in_pad |= tn_uexpr_uses(&u->arrays[a].pad, slot);
      elsewhere |= tn_uexpr_uses(&u->arrays[a].rows, slot) ||
                   tn_uexpr_uses(&u->arrays[a].cols, slot);
    }
    for (a = 0; a < u->n_accesses; a++) {
      const tn_uaccess *x = &u->accesses[a];
      elsewhere |= tn_uexpr_uses(&x->row, slot) ||
                   tn_uexpr_uses(&x->col, slot) ||
                   tn_uexpr_uses(&x->active, slot) ||
                   tn_uexpr_uses(&x->warps, slot) ||
                   tn_uexpr_uses(&x->times, slot) ||
                   tn_uexpr_uses(&x->width_expr, slot);
      for (d = 0; d < x->n_loops; d++)
        elsewhere |= tn_uexpr_uses(&x->loop_count[d], slot);
    }
    u->params[k].is_layout = in_pad && !elsewhere;
  }
  return 0;
}

int tn_config_user_plan(tn_cfg *c, const config_setting_t *root,
                        tn_job *job)
{
  static const char *const keys[] = {"arrays", "accesses", NULL};
  tn_user_kernel *u = job->user;
  const config_setting_t *s = config_setting_get_member(root, "plan");
  const config_setting_t *m;
  int i, n, rc;

  if (s == NULL)
    return mark_layout(c, root, u);
  if (!config_setting_is_group(s))
    return tn_cfg_bad(c, s, "plan: expected a group { arrays = (...); "
                            "accesses = (...); }");
  rc = tn_cfg_only_keys(c, s, "plan", keys);
  if (rc)
    return rc;
  m = config_setting_get_member(s, "arrays");
  if (m == NULL || !tn_cfg_is_list(m) || config_setting_length(m) < 1 ||
      config_setting_length(m) > TN_USER_MAX_ARRAYS)
    return tn_cfg_bad(c, m ? m : s, "plan.arrays: a list of 1 to %d shared "
                                    "arrays",
                      TN_USER_MAX_ARRAYS);
  n = config_setting_length(m);
  for (i = 0; i < n; i++) {
    u->n_arrays = i + 1;
    rc = parse_array(c, config_setting_get_elem(m, (unsigned)i), u, i);
    if (rc)
      return rc;
  }
  m = config_setting_get_member(s, "accesses");
  if (m == NULL || !tn_cfg_is_list(m) || config_setting_length(m) < 1 ||
      config_setting_length(m) > TN_USER_MAX_ACCESSES)
    return tn_cfg_bad(c, m ? m : s, "plan.accesses: a list of 1 to %d warp "
                                    "accesses",
                      TN_USER_MAX_ACCESSES);
  n = config_setting_length(m);
  for (i = 0; i < n; i++) {
    u->n_accesses = i + 1;
    rc = parse_access(c, config_setting_get_elem(m, (unsigned)i), u, i);
    if (rc)
      return rc;
  }
  u->has_plan = 1;
  return mark_layout(c, root, u);
}

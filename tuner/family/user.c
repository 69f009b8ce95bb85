/* user.c -- the family a config describes: the host's side (parameters,
 * the launch, the limits of a point, the rate). */
#include "family/user.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static const struct {
  const char *name;
  tn_elem_type type;
} type_names[] = {
    {"fp64", TN_ELEM_F64},    {"float64", TN_ELEM_F64},
    {"double", TN_ELEM_F64},  {"f64", TN_ELEM_F64},
    {"fp32", TN_ELEM_F32},    {"float32", TN_ELEM_F32},
    {"float", TN_ELEM_F32},   {"f32", TN_ELEM_F32},
    {"fp16", TN_ELEM_F16},    {"float16", TN_ELEM_F16},
    {"half", TN_ELEM_F16},    {"f16", TN_ELEM_F16},
    {"bf16", TN_ELEM_BF16},   {"bfloat16", TN_ELEM_BF16},
    {"int8", TN_ELEM_I8},     {"i8", TN_ELEM_I8},
    {"int16", TN_ELEM_I16},   {"i16", TN_ELEM_I16},
    {"int32", TN_ELEM_I32},   {"i32", TN_ELEM_I32},
    {"int", TN_ELEM_I32},     {"int64", TN_ELEM_I64},
    {"i64", TN_ELEM_I64},     {"uint8", TN_ELEM_U8},
    {"u8", TN_ELEM_U8},       {"uint16", TN_ELEM_U16},
    {"u16", TN_ELEM_U16},     {"uint32", TN_ELEM_U32},
    {"u32", TN_ELEM_U32},     {"unsigned", TN_ELEM_U32},
    {"uint64", TN_ELEM_U64},  {"u64", TN_ELEM_U64},
};

int tn_user_type_parse(const char *name)
{
  size_t i;
  for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
    if (strcmp(type_names[i].name, name) == 0)
      return (int)type_names[i].type;
  return -1;
}

const char *tn_user_type_name(tn_elem_type t)
{
  static const char *const names[TN_ELEM_COUNT] = {
      [TN_ELEM_F32] = "fp32", [TN_ELEM_BF16] = "bf16",
      [TN_ELEM_F16] = "fp16", [TN_ELEM_F64] = "fp64",
      [TN_ELEM_I8] = "int8",  [TN_ELEM_I16] = "int16",
      [TN_ELEM_I32] = "int32", [TN_ELEM_I64] = "int64",
      [TN_ELEM_U8] = "uint8", [TN_ELEM_U16] = "uint16",
      [TN_ELEM_U32] = "uint32", [TN_ELEM_U64] = "uint64"};
  return (int)t >= 0 && (int)t < TN_ELEM_COUNT ? names[t] : "?";
}

void tn_user_slots(const tn_user_kernel *u, const tn_params *p,
                   const tn_problem *prob, long long *slots)
{
  int k;
  memset(slots, 0, sizeof(long long) * TN_USLOT_COUNT);
  for (k = 0; k < u->n_params; k++)
    slots[TN_USLOT_PARAM0 + k] = p->v[k].i;
  for (k = 0; k < u->n_dims && k < prob->size.n_dims; k++)
    slots[TN_USLOT_DIM0 + k] = prob->size.dims[k];
}

int tn_user_eval_launch(const tn_ulaunch *l, const long long *slots,
                        unsigned grid[3], unsigned block[3], int *smem,
                        char *why, size_t n)
{
  /* the driver's limits on a launch's shape, on every architecture */
  static const long long grid_max[3] = {2147483647LL, 65535, 65535};
  long long v;
  int d;

  for (d = 0; d < 3; d++) {
    grid[d] = block[d] = 1;
    if (tn_uexpr_set(&l->grid[d])) {
      if (tn_uexpr_eval(&l->grid[d], slots, &v, why, n) != 0)
        return -1;
      if (v < 1 || v > grid_max[d]) {
        snprintf(why, n, "%s \"%s\" is %lld (the grid takes 1 to %lld)",
                 l->grid[d].what, l->grid[d].text, v, grid_max[d]);
        return -1;
      }
      grid[d] = (unsigned)v;
    }
    if (tn_uexpr_set(&l->block[d])) {
      if (tn_uexpr_eval(&l->block[d], slots, &v, why, n) != 0)
        return -1;
      if (v < 1 || v > 1024) {
        snprintf(why, n, "%s \"%s\" is %lld (a block takes 1 to 1024)",
                 l->block[d].what, l->block[d].text, v);
        return -1;
      }
      block[d] = (unsigned)v;
    }
  }
  *smem = 0;
  if (tn_uexpr_set(&l->smem)) {
    if (tn_uexpr_eval(&l->smem, slots, &v, why, n) != 0)
      return -1;
    if (v < 0 || v > (1 << 24)) {
      snprintf(why, n, "%s \"%s\" is %lld bytes", l->smem.what, l->smem.text,
               v);
      return -1;
    }
    *smem = (int)v;
  }
  return 0;
}

/* The bytes of shared memory the plan's arrays take on slots (0 without
 * a plan): what a launch declares before the compile says. */
static int plan_smem(const tn_user_kernel *u, const long long *slots,
                     long long *bytes, char *why, size_t n)
{
  int a;
  *bytes = 0;
  for (a = 0; a < u->n_arrays; a++) {
    const tn_uarray *ar = &u->arrays[a];
    long long rows, cols, pad = 0;
    if (tn_uexpr_eval(&ar->rows, slots, &rows, why, n) != 0 ||
        tn_uexpr_eval(&ar->cols, slots, &cols, why, n) != 0 ||
        (tn_uexpr_set(&ar->pad) &&
         tn_uexpr_eval(&ar->pad, slots, &pad, why, n) != 0))
      return -1;
    if (rows < 1 || cols < 1 || pad < 0 || rows > (1 << 20) ||
        cols > (1 << 20) || pad > (1 << 20)) {
      snprintf(why, n, "plan: array %s is %lld x %lld with %lld padding", 
               ar->name, rows, cols, pad);
      return -1;
    }
    /* 128-byte aligned, as the plan lays the arrays out */
    *bytes += (rows * (cols + pad) * ar->elem + 127) / 128 * 128;
  }
  return 0;
}

/* Every expression of point p that the launch and the arguments take
 * evaluates; the swizzles resolve against their arrays. */
static int prepare(const tn_family *f, tn_params *p, const tn_problem *prob,
                   char *why, size_t n)
{
  const tn_user_kernel *u = tn_user_of(f);
  long long slots[TN_USLOT_COUNT], v;
  unsigned grid[3], block[3];
  int smem, a, k;

  tn_user_slots(u, p, prob, slots);
  if (tn_user_eval_launch(&u->launch, slots, grid, block, &smem, why, n))
    return 1;
  slots[TN_USLOT_THREADS] = (long long)block[0] * block[1] * block[2];
  if (slots[TN_USLOT_THREADS] > 1024) {
    snprintf(why, n, "a block of %u x %u x %u is %lld threads (at most "
                     "1024)",
             block[0], block[1], block[2], slots[TN_USLOT_THREADS]);
    return 1;
  }
  for (a = 0; a < u->n_args; a++) {
    const tn_uarg *g = &u->args[a];
    if (g->kind == TN_UARG_SCALAR && !g->literal &&
        tn_uexpr_eval(&g->value, slots, &v, why, n) != 0)
      return 1;
  }
  /* a swizzle parameter resolves against the first array it lays out */
  for (k = 0; k < u->n_params; k++) {
    if (u->params[k].kind != TN_PARAM_SWIZZLE)
      continue;
    for (a = 0; a < u->n_arrays; a++) {
      const tn_uarray *ar = &u->arrays[a];
      long long cols;
      char sw_why[256];
      if (ar->swizzle_param != k)
        continue;
      if (tn_uexpr_eval(&ar->cols, slots, &cols, why, n) != 0)
        return 1;
      if (cols > (1 << 20) ||
          tn_swizzle_resolve(&p->v[k].sw, (int)cols, ar->elem, sw_why,
                             sizeof(sw_why)) != 0) {
        snprintf(why, n, "%s on array %s (%lld columns of %d bytes): %s",
                 u->params[k].name, ar->name, cols, ar->elem, sw_why);
        return 1;
      }
      break;
    }
    if (a == u->n_arrays && p->v[k].sw.kind == TN_SWZ_XOR) {
      snprintf(why, n, "%s: \"xor\" needs an array of the plan to resolve "
                       "against",
               u->params[k].name);
      return 1;
    }
  }
  if (plan_smem(u, slots, &v, why, n) != 0)
    return 1;
  return 0;
}

static void launch(const tn_family *f, const tn_params *p,
                   const tn_problem *prob, tn_launch *l)
{
  const tn_user_kernel *u = tn_user_of(f);
  long long slots[TN_USLOT_COUNT], smem_static = 0;
  char why[256];
  int smem = 0;

  memset(l, 0, sizeof(*l));
  tn_user_slots(u, p, prob, slots);
  /* prepare() has evaluated these; a failure leaves a launch of one */
  if (tn_user_eval_launch(&u->launch, slots, l->grid, l->block, &smem, why,
                          sizeof(why)) != 0) {
    l->grid[0] = l->grid[1] = l->grid[2] = 1;
    l->block[0] = l->block[1] = l->block[2] = 1;
  }
  l->threads = (int)(l->block[0] * l->block[1] * l->block[2]);
  l->smem_dynamic = smem;
  if (plan_smem(u, slots, &smem_static, why, sizeof(why)) == 0)
    l->smem_static = (int)(smem_static > smem ? smem_static - smem : 0);
}

static double work(const tn_family *f, const tn_problem *prob)
{
  const tn_user_kernel *u = tn_user_of(f);
  long long slots[TN_USLOT_COUNT], v = 0;
  tn_params p;
  char why[256];

  memset(&p, 0, sizeof(p));
  tn_user_slots(u, &p, prob, slots);
  if (tn_uexpr_eval(&u->work, slots, &v, why, sizeof(why)) != 0)
    return 0.0; /* checked on every problem when the config was read */
  return (double)v;
}

static void plan(const tn_family *f, const tn_params *p,
                 const tn_problem *prob, tn_access_sink *sink)
{
  tn_user_plan(f, p, prob, sink);
}

int tn_user_family_init(tn_user_kernel *u, const char *name)
{
  tn_family *f = &u->family;
  int k;

  memset(f, 0, sizeof(*f));
  tn_strlcpy(u->name, name, sizeof(u->name));
  f->name = u->name;
  f->kernel = u->lowered[0] ? u->lowered : u->kernel;
  for (k = 0; k < u->n_params; k++)
    u->params[k].name = u->param_names[k];
  f->params = u->params;
  f->n_params = u->n_params;
  f->n_dims = u->n_dims;
  f->dim_names = u->dim_list;
  f->prepare = prepare;
  f->launch = launch;
  f->plan = u->has_plan ? plan : NULL;
  f->buffers = tn_user_buffers;
  f->args = tn_user_args;
  f->constants = tn_user_constants;
  f->verify = tn_user_verify;
  f->work = work;
  f->unit = u->unit;
  f->unit_scale = u->unit_scale;
  u->baseline_names[0] = u->base_kind == TN_UBASE_COPY ? "memcpy" : "kernel";
  f->baselines = u->base_kind == TN_UBASE_NONE ? NULL : u->baseline_names;
  f->n_baselines = u->base_kind == TN_UBASE_NONE ? 0 : 1;
  f->baseline = tn_user_baseline;
  f->fixed_inputs = 1;
  f->plain_macros = 1;
  f->impl = u;
  return 0;
}

static void free_launch(tn_ulaunch *l)
{
  int d;
  for (d = 0; d < 3; d++) {
    tn_uexpr_free(&l->grid[d]);
    tn_uexpr_free(&l->block[d]);
  }
  tn_uexpr_free(&l->smem);
}

void tn_user_kernel_free(tn_user_kernel *u)
{
  int i, j;
  free_launch(&u->launch);
  free_launch(&u->reference.launch);
  free_launch(&u->baseline.launch);
  free(u->reference.source);
  free(u->baseline.source);
  free(u->source);
  u->reference.source = u->baseline.source = u->source = NULL;
  for (i = 0; i < u->n_args; i++) {
    tn_uexpr_free(&u->args[i].count);
    tn_uexpr_free(&u->args[i].value);
  }
  for (i = 0; i < u->n_constants; i++)
    tn_uexpr_free(&u->constants[i].count);
  tn_uexpr_free(&u->copy_bytes);
  tn_uexpr_free(&u->work);
  for (i = 0; i < u->n_arrays; i++) {
    tn_uexpr_free(&u->arrays[i].rows);
    tn_uexpr_free(&u->arrays[i].cols);
    tn_uexpr_free(&u->arrays[i].pad);
  }
  for (i = 0; i < u->n_accesses; i++) {
    tn_uaccess *x = &u->accesses[i];
    tn_uexpr_free(&x->row);
    tn_uexpr_free(&x->col);
    tn_uexpr_free(&x->active);
    tn_uexpr_free(&x->warps);
    tn_uexpr_free(&x->times);
    tn_uexpr_free(&x->global);
    for (j = 0; j < x->n_loops; j++)
      tn_uexpr_free(&x->loop_count[j]);
  }
}

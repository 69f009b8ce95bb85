/* user.c -- the family a config describes: the host's side (parameters,
 * the launch, the limits of a point, the rate). */
#include "family/user.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "family/user_eval.h"
#include "family/user_plan.h"
#include "family/user_run.h"

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
    int bits = 8 * tn_elem_bytes(g->type);
    if (g->kind != TN_UARG_SCALAR || g->literal)
      continue;
    if (tn_uexpr_eval(&g->value, slots, &v, why, n) != 0)
      return 1;
    /* an integer argument holds its value, not its low bits */
    if (!tn_elem_is_float(g->type) && bits < 64 &&
        (tn_elem_is_signed(g->type)
             ? v < -(1LL << (bits - 1)) || v >= (1LL << (bits - 1))
             : v < 0 || v >= (1LL << bits))) {
      snprintf(why, n, "%s \"%s\" is %lld, which %s does not hold",
               g->value.what, g->value.text, v, tn_elem_long_name(g->type));
      return 1;
    }
    if (!tn_elem_is_float(g->type) && !tn_elem_is_signed(g->type) && v < 0) {
      snprintf(why, n, "%s \"%s\" is %lld, below %s's 0", g->value.what,
               g->value.text, v, tn_elem_long_name(g->type));
      return 1;
    }
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
    /* xor and the Hopper swizzles take their B, M, S from an array's
     * width and element size; only cute(B,M,S) and none stand alone */
    if (a == u->n_arrays && p->v[k].sw.kind != TN_SWZ_NONE &&
        p->v[k].sw.kind != TN_SWZ_CUTE) {
      char sw[32];
      snprintf(why, n, "%s: \"%s\" needs an array of the plan to resolve "
                       "against (swizzle = \"%s\"; in plan.arrays), or "
                       "cute(B,M,S)",
               u->params[k].name,
               tn_swizzle_name(&p->v[k].sw, sw, sizeof(sw)),
               u->params[k].name);
      return 1;
    }
  }
  if (tn_user_arrays(u, -1, slots, NULL, &v, NULL, why, n) != 0)
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
  /* what the plan declares static: the compile's figure comes later */
  if (tn_user_arrays(u, -1, slots, NULL, NULL, &smem_static, why,
                     sizeof(why)) == 0)
    l->smem_static = (int)smem_static;
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

/* The parameters e reads, bit k for parameter k. */
static unsigned params_read(const tn_uexpr *e, int n_params)
{
  unsigned mask = 0;
  int k;
  for (k = 0; k < n_params; k++)
    if (tn_uexpr_uses(e, TN_USLOT_PARAM0 + k))
      mask |= 1u << k;
  return mask;
}

/* The parameters the model and the time model read: the launch (blocks,
 * threads, shared memory), the arrays (their shapes, offsets and
 * swizzles) and the plan's accesses.  The rate's work reads only the
 * problem. */
static unsigned model_params(const tn_user_kernel *u)
{
  unsigned mask = 0;
  int n = u->n_params, d, a;
  for (d = 0; d < 3; d++)
    mask |= params_read(&u->launch.grid[d], n) |
            params_read(&u->launch.block[d], n);
  mask |= params_read(&u->launch.smem, n);
  for (a = 0; a < u->n_arrays; a++) {
    const tn_uarray *ar = &u->arrays[a];
    mask |= params_read(&ar->rows, n) | params_read(&ar->cols, n) |
            params_read(&ar->pad, n);
    if (ar->swizzle_param >= 0)
      mask |= 1u << ar->swizzle_param;
  }
  for (a = 0; a < u->n_accesses; a++) {
    const tn_uaccess *x = &u->accesses[a];
    mask |= params_read(&x->row, n) | params_read(&x->col, n) |
            params_read(&x->active, n) | params_read(&x->warps, n) |
            params_read(&x->times, n) | params_read(&x->global, n) |
            params_read(&x->width_expr, n);
    for (d = 0; d < x->n_loops; d++)
      mask |= params_read(&x->loop_count[d], n);
  }
  return mask;
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
  /* on the GPU, against the reference's outputs kept there */
  f->verify = tn_user_verify;
  f->verify_device = tn_user_verify;
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
  /* the points that differ in these alone are priced once */
  f->model_ignores = ((1u << u->n_params) - 1) & ~model_params(u);
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
    tn_uexpr_free(&x->width_expr);
    for (j = 0; j < x->n_loops; j++)
      tn_uexpr_free(&x->loop_count[j]);
  }
}

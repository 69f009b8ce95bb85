/* user_plan.c -- the warp accesses a config's shared-memory plan declares.
 *
 * Each declared access runs on `warps` warps of every block, once per
 * combination of its loops' indices, `times` times over: lane l of warp w
 * is thread tid = 32 w + l of the block (x fastest, as CUDA numbers
 * them), and touches (row, col) of its array, laid out as
 * templates/smem_layout.h lays out tiles (padding, then the swizzle). */
#include "family/user_plan.h"

#include <stdio.h>
#include <string.h>

#include "../../templates/smem_layout.h"
#include "family/user_eval.h"
#include "model/access.h"

/* The swizzle array a lays out with on point p. */
static tn_swizzle array_swizzle(const tn_uarray *ar, const tn_params *p)
{
  return ar->swizzle_param >= 0 ? p->v[ar->swizzle_param].sw : ar->swizzle;
}

const char *tn_user_width_problem(int op, long long width)
{
  if (width < 1 || width > 16 || (width & (width - 1)) != 0)
    return "1, 2, 4, 8 or 16 bytes";
  if ((op == TN_OP_CP_ASYNC_CA && width < 4) ||
      (op == TN_OP_CP_ASYNC_CG && width != 16))
    return "cp.async copies 4, 8 or 16 bytes (cp.async.cg: 16)";
  return NULL;
}

/* Fills lane l's part of access x, width bytes a lane, into wa; 0, 1 when
 * the lane sits out, -1 with why. */
static int lane_address(const tn_uaccess *x, int width, const tn_uarray *ar,
                        const tn_swizzle *sw, long long rows, long long cols,
                        long long pad, long long base, long long *slots,
                        tn_warp_access *wa, int l, char *why, size_t n)
{
  long long row, col, act = 1, off;
  if (tn_uexpr_set(&x->active) &&
      tn_uexpr_eval(&x->active, slots, &act, why, n) != 0)
    return -1;
  if (!act)
    return 1;
  if (tn_uexpr_eval(&x->row, slots, &row, why, n) != 0 ||
      tn_uexpr_eval(&x->col, slots, &col, why, n) != 0)
    return -1;
  if (row < 0 || row >= rows || col < 0 ||
      col * ar->elem + (x->op == TN_OP_LDMATRIX || x->op == TN_OP_STMATRIX
                            ? 16
                            : width) >
          (cols + pad) * ar->elem) {
    snprintf(why, n,
             "plan.accesses.%s: lane %d of warp %lld touches (%lld, %lld), "
             "outside array %s (%lld x %lld, padding %lld)",
             x->name, l, slots[TN_USLOT_WARP], row, col, ar->name, rows,
             cols, pad);
    return -1;
  }
  off = tn_smem_offset((int)row, (int)col, (int)cols, (int)pad, sw->b, sw->m,
                       sw->s);
  wa->addr[l] = (uint32_t)(base + off * ar->elem);
  if (x->op == TN_OP_CP_ASYNC_CA || x->op == TN_OP_CP_ASYNC_CG) {
    long long g = (long long)wa->addr[l];
    if (tn_uexpr_set(&x->global) &&
        tn_uexpr_eval(&x->global, slots, &g, why, n) != 0)
      return -1;
    if (g < 0 || g > 0xffffffffLL) {
      snprintf(why, n, "plan.accesses.%s: lane %d's global offset %lld",
               x->name, l, g);
      return -1;
    }
    wa->gaddr[l] = (uint32_t)g;
  }
  wa->active |= 1u << l;
  return 0;
}

/* Steps the loop indices of x (slots) to the next combination; 0 when
 * they wrap round. */
static int next_iteration(const tn_uaccess *x, long long *slots,
                          const long long *count)
{
  int i;
  for (i = x->n_loops - 1; i >= 0; i--) {
    if (++slots[TN_USLOT_LOOP0 + i] < count[i])
      return 1;
    slots[TN_USLOT_LOOP0 + i] = 0;
  }
  return 0;
}

/* The most warp accesses a plan may list per block, a guard against a
 * loop of the problem's size written where `times` was meant. */
#define MAX_WARP_ACCESSES (1 << 20)

int tn_user_plan_access(const tn_family *f, const tn_params *p,
                        const tn_problem *prob, int index,
                        tn_access_sink *sink)
{
  const tn_user_kernel *u = tn_user_of(f);
  const tn_uaccess *x = &u->accesses[index];
  const tn_uarray *ar = &u->arrays[x->array];
  long long slots[TN_USLOT_COUNT], count[TN_USER_MAX_LOOPS];
  long long rows, cols, pad = 0, base, warps, times = 1, blocks, total = 1;
  long long width;
  unsigned grid[3], block[3];
  tn_swizzle sw = array_swizzle(ar, p);
  char *why = sink->why;
  size_t n = sizeof(sink->why);
  int smem, i, w;

  if (sink->failed)
    return -1;
  tn_user_slots(u, p, prob, slots);
  if (tn_user_eval_launch(&u->launch, slots, grid, block, &smem, why, n))
    goto fail;
  slots[TN_USLOT_THREADS] = (long long)block[0] * block[1] * block[2];
  for (i = 0; i < 3; i++)
    slots[TN_USLOT_BLOCK0 + i] = block[i];
  blocks = (long long)grid[0] * grid[1] * grid[2];
  if (tn_uexpr_eval(&ar->rows, slots, &rows, why, n) != 0 ||
      tn_uexpr_eval(&ar->cols, slots, &cols, why, n) != 0 ||
      (tn_uexpr_set(&ar->pad) &&
       tn_uexpr_eval(&ar->pad, slots, &pad, why, n) != 0) ||
      tn_user_arrays(u, x->array, slots, &base, NULL, NULL, why, n) != 0)
    goto fail;
  warps = (slots[TN_USLOT_THREADS] + 31) / 32;
  if ((tn_uexpr_set(&x->warps) &&
       tn_uexpr_eval(&x->warps, slots, &warps, why, n) != 0) ||
      (tn_uexpr_set(&x->times) &&
       tn_uexpr_eval(&x->times, slots, &times, why, n) != 0))
    goto fail;
  if (warps < 0 || warps * 32 > slots[TN_USLOT_THREADS] + 31 || times < 0) {
    snprintf(why, n, "plan.accesses.%s: %lld warps of a %lld-thread block, "
                     "%lld times",
             x->name, warps, slots[TN_USLOT_THREADS], times);
    goto fail;
  }
  for (i = 0; i < x->n_loops; i++) {
    if (tn_uexpr_eval(&x->loop_count[i], slots, &count[i], why, n) != 0)
      goto fail;
    if (count[i] < 0 || count[i] > MAX_WARP_ACCESSES) {
      snprintf(why, n, "plan.accesses.%s: loop %s runs %lld times", x->name,
               x->loop_name[i], count[i]);
      goto fail;
    }
    total *= count[i] > 0 ? count[i] : 1;
    if (count[i] == 0 || total * warps > MAX_WARP_ACCESSES) {
      if (count[i] == 0)
        return 0; /* the loop does not run */
      snprintf(why, n, "plan.accesses.%s lists %lld warp accesses per "
                       "block (at most %d: put repeats of one pattern in "
                       "`times`)",
               x->name, total * warps, MAX_WARP_ACCESSES);
      goto fail;
    }
  }
  if (times == 0 || warps == 0)
    return 0;
  width = x->width;
  if (width == 0) {
    const char *bad;
    if (tn_uexpr_eval(&x->width_expr, slots, &width, why, n) != 0)
      goto fail;
    bad = tn_user_width_problem(x->op, width);
    if (bad) {
      snprintf(why, n, "plan.accesses.%s.width \"%s\" is %lld (%s)",
               x->name, x->width_expr.text, width, bad);
      goto fail;
    }
  }
  for (w = 0; w < warps; w++) {
    slots[TN_USLOT_WARP] = w;
    for (i = 0; i < x->n_loops; i++)
      slots[TN_USLOT_LOOP0 + i] = 0;
    do {
      tn_warp_access wa;
      int l, lanes = 32;
      tn_warp_access_init(&wa, (tn_op)x->op, (int)width);
      wa.matrices = x->matrices;
      wa.trans = x->trans;
      if (x->op == TN_OP_LDMATRIX || x->op == TN_OP_STMATRIX)
        lanes = 8 * x->matrices; /* the lanes that give row addresses */
      for (l = 0; l < lanes; l++) {
        long long tid = 32LL * w + l;
        int rc;
        if (tid >= slots[TN_USLOT_THREADS])
          break;
        slots[TN_USLOT_LANE] = l;
        slots[TN_USLOT_TID] = tid;
        slots[TN_USLOT_TX] = tid % block[0];
        slots[TN_USLOT_TY] = tid / block[0] % block[1];
        slots[TN_USLOT_TZ] = tid / ((long long)block[0] * block[1]);
        rc = lane_address(x, (int)width, ar, &sw, rows, cols, pad, base,
                          slots, &wa, l, why, n);
        if (rc < 0)
          goto fail;
      }
      if (wa.active != 0)
        tn_sink_access(sink, &wa, times * blocks);
    } while (next_iteration(x, slots, count));
  }
  return sink->failed ? -1 : 0;
fail:
  {
    /* the config's line of the access, as every error of a config says */
    char msg[sizeof(sink->why)];
    snprintf(msg, sizeof(msg), "%.400s:%d: %.500s", u->config_path, x->line,
             why);
    snprintf(sink->why, sizeof(sink->why), "%s", msg);
  }
  sink->failed = 1;
  return -1;
}

void tn_user_plan(const tn_family *f, const tn_params *p,
                  const tn_problem *prob, tn_access_sink *sink)
{
  const tn_user_kernel *u = tn_user_of(f);
  int i;
  for (i = 0; i < u->n_accesses && !sink->failed; i++)
    tn_user_plan_access(f, p, prob, i, sink);
}

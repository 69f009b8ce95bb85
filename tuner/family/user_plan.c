/* user_plan.c -- the warp accesses a config's shared-memory plan declares.
 *
 * Each declared access runs on `warps` warps of every block, once per
 * combination of its loops' indices, `times` times over: lane l of warp w
 * is thread tid = 32 w + l of the block (x fastest, as CUDA numbers
 * them), and touches (row, col) of its array, laid out as
 * templates/smem_layout.h lays out tiles (padding, then the swizzle).
 *
 * A space prices this for each of its points, lane by lane: the lane's
 * expressions are specialized to the point's values once, and the lanes
 * of each warp access run at once (base/expr.h), lane by lane only where
 * that cannot be (a condition on a lane's index, or a lane that fails,
 * whose error is then the one a lone run gives). */
#include "family/user_plan.h"

#include <stdio.h>
#include <string.h>

#include "../../templates/smem_layout.h"
#include "base/expr.h"
#include "family/user_eval.h"
#include "model/access.h"

/* What changes from lane to lane: the lane's own indices and the loops'.
 * The rest of a lane's slots are the point's. */
static const unsigned char lane_slots[TN_USLOT_COUNT] = {
    [TN_USLOT_LANE] = 1, [TN_USLOT_WARP] = 1, [TN_USLOT_TID] = 1,
    [TN_USLOT_TX] = 1,   [TN_USLOT_TY] = 1,   [TN_USLOT_TZ] = 1,
    [TN_USLOT_LOOP0] = 1, [TN_USLOT_LOOP0 + 1] = 1,
    [TN_USLOT_LOOP0 + 2] = 1, [TN_USLOT_LOOP0 + 3] = 1};

/* An access's per-lane expressions for one point: each specialized to
 * the point's slots where it can be (base/expr.h), which leaves each
 * lane the part that reads the lane's indices, else the expression
 * itself.  The same values and errors either way. */
enum { LANE_ROW, LANE_COL, LANE_ACTIVE, LANE_GLOBAL, N_LANE_EXPRS };
typedef struct {
  tn_uexpr e[N_LANE_EXPRS];
  int owned[N_LANE_EXPRS]; /* e[i].code is the specialized one, ours */
} lane_code;

static void lane_code_make(const tn_uaccess *x, const long long *slots,
                           lane_code *lc)
{
  const tn_uexpr *from[N_LANE_EXPRS] = {&x->row, &x->col, &x->active,
                                        &x->global};
  int i;
  for (i = 0; i < N_LANE_EXPRS; i++) {
    tn_expr *code = NULL;
    lc->e[i] = *from[i];
    if (from[i]->code != NULL)
      code = tn_expr_specialize(from[i]->code, slots, lane_slots,
                                TN_USLOT_COUNT);
    lc->owned[i] = code != NULL;
    if (code != NULL)
      lc->e[i].code = code;
  }
}

static void lane_code_free(lane_code *lc)
{
  int i;
  for (i = 0; i < N_LANE_EXPRS; i++)
    if (lc->owned[i])
      tn_uexpr_free(&lc->e[i]);
}

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

/* The array an access touches, laid out for one point, and the access's
 * width at that point. */
typedef struct {
  const tn_uarray *ar;
  tn_swizzle sw;
  long long rows, cols, pad, base; /* base: its byte offset */
  int width;                       /* bytes a lane */
} placed_array;

/* The byte address of (row, col) of pa for access x into *addr; -1 when
 * the access leaves the array. */
static int place(const tn_uaccess *x, const placed_array *pa, long long row,
                 long long col, uint32_t *addr)
{
  const tn_uarray *ar = pa->ar;
  int bytes = x->op == TN_OP_LDMATRIX || x->op == TN_OP_STMATRIX
                  ? 16
                  : pa->width;
  long long off;
  if (row < 0 || row >= pa->rows || col < 0 ||
      col * ar->elem + bytes > (pa->cols + pa->pad) * ar->elem)
    return -1;
  off = tn_smem_offset((int)row, (int)col, (int)pa->cols, (int)pa->pad,
                       pa->sw.b, pa->sw.m, pa->sw.s);
  *addr = (uint32_t)(pa->base + off * ar->elem);
  return 0;
}

static int is_async(const tn_uaccess *x)
{
  return x->op == TN_OP_CP_ASYNC_CA || x->op == TN_OP_CP_ASYNC_CG;
}

/* Fills lane l's part of access x into wa, its expressions lc's; 0, 1
 * when the lane sits out, -1 with why. */
static int lane_address(const tn_uaccess *x, const lane_code *lc,
                        const placed_array *pa, long long *slots,
                        tn_warp_access *wa, int l, char *why, size_t n)
{
  long long row, col, act = 1;
  if (tn_uexpr_set(&lc->e[LANE_ACTIVE]) &&
      tn_uexpr_eval(&lc->e[LANE_ACTIVE], slots, &act, why, n) != 0)
    return -1;
  if (!act)
    return 1;
  if (tn_uexpr_eval(&lc->e[LANE_ROW], slots, &row, why, n) != 0 ||
      tn_uexpr_eval(&lc->e[LANE_COL], slots, &col, why, n) != 0)
    return -1;
  if (place(x, pa, row, col, &wa->addr[l]) != 0) {
    snprintf(why, n,
             "plan.accesses.%s: lane %d of warp %lld touches (%lld, %lld), "
             "outside array %s (%lld x %lld, padding %lld)",
             x->name, l, slots[TN_USLOT_WARP], row, col, pa->ar->name,
             pa->rows, pa->cols, pa->pad);
    return -1;
  }
  if (is_async(x)) {
    long long g = (long long)wa->addr[l];
    if (tn_uexpr_set(&lc->e[LANE_GLOBAL]) &&
        tn_uexpr_eval(&lc->e[LANE_GLOBAL], slots, &g, why, n) != 0)
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

/* Lane indices of n lanes from thread tid0 of a block (x fastest, as
 * CUDA numbers a block's threads), into idx: lane, tid, tx, ty, tz. */
enum { IDX_LANE, IDX_TID, IDX_TX, IDX_TY, IDX_TZ, N_IDX };
static void lane_indices(long long tid0, int n, const unsigned block[3],
                         long long idx[N_IDX][TN_EXPR_LANES])
{
  long long tx = tid0 % block[0], ty = tid0 / block[0] % block[1];
  long long tz = tid0 / ((long long)block[0] * block[1]);
  int l;
  for (l = 0; l < n; l++) {
    idx[IDX_LANE][l] = l;
    idx[IDX_TID][l] = tid0 + l;
    idx[IDX_TX][l] = tx;
    idx[IDX_TY][l] = ty;
    idx[IDX_TZ][l] = tz;
    if (++tx == block[0]) {
      tx = 0;
      if (++ty == block[1]) {
        ty = 0;
        tz++;
      }
    }
  }
}

/* The n lanes of a warp access at once (tn_expr_run_lanes): 0 with wa
 * filled, or 1 when they must go one by one, which gives the same
 * addresses or says which lane fails and why: an expression with a
 * condition, or a lane that fails. */
static int warp_by_lanes(const tn_uaccess *x, const lane_code *lc,
                         const placed_array *pa, const long long *slots,
                         long long idx[N_IDX][TN_EXPR_LANES], int n,
                         tn_warp_access *wa)
{
  long long v[N_LANE_EXPRS][TN_EXPR_LANES];
  const long long *lanes[TN_USLOT_COUNT] = {NULL};
  unsigned failed[N_LANE_EXPRS] = {0};
  int i, l;
  lanes[TN_USLOT_LANE] = idx[IDX_LANE];
  lanes[TN_USLOT_TID] = idx[IDX_TID];
  lanes[TN_USLOT_TX] = idx[IDX_TX];
  lanes[TN_USLOT_TY] = idx[IDX_TY];
  lanes[TN_USLOT_TZ] = idx[IDX_TZ];
  for (i = 0; i < N_LANE_EXPRS; i++) {
    if (!tn_uexpr_set(&lc->e[i]) || (i == LANE_GLOBAL && !is_async(x)))
      continue;
    if (lc->e[i].code == NULL ||
        tn_expr_run_lanes(lc->e[i].code, slots, lanes, TN_USLOT_COUNT, n,
                          v[i], &failed[i]) != 0)
      return 1;
  }
  for (l = 0; l < n; l++) {
    unsigned bit = 1u << l;
    long long g;
    if (failed[LANE_ACTIVE] & bit)
      return 1;
    if (tn_uexpr_set(&lc->e[LANE_ACTIVE]) && v[LANE_ACTIVE][l] == 0)
      continue;
    if (((failed[LANE_ROW] | failed[LANE_COL]) & bit) ||
        place(x, pa, v[LANE_ROW][l], v[LANE_COL][l], &wa->addr[l]) != 0)
      return 1;
    if (is_async(x)) {
      if (failed[LANE_GLOBAL] & bit)
        return 1;
      g = tn_uexpr_set(&lc->e[LANE_GLOBAL]) ? v[LANE_GLOBAL][l]
                                            : (long long)wa->addr[l];
      if (g < 0 || g > 0xffffffffLL)
        return 1;
      wa->gaddr[l] = (uint32_t)g;
    }
    wa->active |= bit;
  }
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
  long long slots[TN_USLOT_COUNT], count[TN_USER_MAX_LOOPS];
  long long warps, times = 1, blocks, total = 1, width;
  long long idx[N_IDX][TN_EXPR_LANES];
  unsigned grid[3], block[3];
  placed_array pa;
  char *why = sink->why;
  size_t n = sizeof(sink->why);
  lane_code lc;
  int smem, i, w;

  if (sink->failed)
    return -1;
  memset(&pa, 0, sizeof(pa));
  pa.ar = &u->arrays[x->array];
  pa.sw = array_swizzle(pa.ar, p);
  tn_user_slots(u, p, prob, slots);
  if (tn_user_eval_launch(&u->launch, slots, grid, block, &smem, why, n))
    goto fail;
  slots[TN_USLOT_THREADS] = (long long)block[0] * block[1] * block[2];
  for (i = 0; i < 3; i++)
    slots[TN_USLOT_BLOCK0 + i] = block[i];
  blocks = (long long)grid[0] * grid[1] * grid[2];
  if (tn_uexpr_eval(&pa.ar->rows, slots, &pa.rows, why, n) != 0 ||
      tn_uexpr_eval(&pa.ar->cols, slots, &pa.cols, why, n) != 0 ||
      (tn_uexpr_set(&pa.ar->pad) &&
       tn_uexpr_eval(&pa.ar->pad, slots, &pa.pad, why, n) != 0) ||
      tn_user_arrays(u, x->array, slots, &pa.base, NULL, NULL, why, n) != 0)
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
  pa.width = (int)width;
  lane_code_make(x, slots, &lc);
  for (w = 0; w < warps; w++) {
    long long tid0 = 32LL * w;
    int l, lanes = 32;
    if (x->op == TN_OP_LDMATRIX || x->op == TN_OP_STMATRIX)
      lanes = 8 * x->matrices; /* the lanes that give row addresses */
    /* those that are threads of the block */
    if (lanes > slots[TN_USLOT_THREADS] - tid0)
      lanes = (int)(slots[TN_USLOT_THREADS] - tid0);
    lane_indices(tid0, lanes, block, idx);
    slots[TN_USLOT_WARP] = w;
    for (i = 0; i < x->n_loops; i++)
      slots[TN_USLOT_LOOP0 + i] = 0;
    do {
      tn_warp_access wa;
      tn_warp_access_init(&wa, (tn_op)x->op, pa.width);
      wa.matrices = x->matrices;
      wa.trans = x->trans;
      if (warp_by_lanes(x, &lc, &pa, slots, idx, lanes, &wa) != 0) {
        /* lane by lane: the same addresses, or the error of the first
         * lane that fails */
        tn_warp_access_init(&wa, (tn_op)x->op, pa.width);
        wa.matrices = x->matrices;
        wa.trans = x->trans;
        for (l = 0; l < lanes; l++) {
          slots[TN_USLOT_LANE] = l;
          slots[TN_USLOT_TID] = idx[IDX_TID][l];
          slots[TN_USLOT_TX] = idx[IDX_TX][l];
          slots[TN_USLOT_TY] = idx[IDX_TY][l];
          slots[TN_USLOT_TZ] = idx[IDX_TZ][l];
          if (lane_address(x, &lc, &pa, slots, &wa, l, why, n) < 0) {
            lane_code_free(&lc);
            goto fail;
          }
        }
      }
      if (wa.active != 0)
        tn_sink_access(sink, &wa, times * blocks);
    } while (next_iteration(x, slots, count));
  }
  lane_code_free(&lc);
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

/* user_eval.c -- a described kernel's expressions evaluated on a point. */
#include "family/user_eval.h"

#include <stdio.h>
#include <string.h>

void tn_user_slots(const tn_user_kernel *u, const tn_params *p,
                   const tn_problem *prob, long long *slots)
{
  int k;
  memset(slots, 0, sizeof(long long) * TN_USLOT_COUNT);
  for (k = 0; k < u->n_params; k++)
    slots[TN_USLOT_PARAM0 + k] = p->v[k].i;
  for (k = 0; k < u->n_dims && k < prob->size.n_dims; k++)
    slots[TN_USLOT_DIM0 + k] = prob->size.dims[k];
  /* a block's threads, which the plan and the arguments may read (the
   * block itself reads neither: config_user_run.c refuses that) */
  slots[TN_USLOT_THREADS] = 1;
  for (k = 0; k < 3; k++) {
    long long v = 1;
    char why[256];
    if (tn_uexpr_set(&u->launch.block[k]) &&
        (tn_uexpr_eval(&u->launch.block[k], slots, &v, why, sizeof(why)) != 0
         || v < 1 || v > 1024))
      v = 1; /* prepare() reports it for the point */
    slots[TN_USLOT_BLOCK0 + k] = v;
    slots[TN_USLOT_THREADS] *= v;
  }
}

int tn_user_eval_launch(const tn_ulaunch *l, long long *slots,
                        unsigned grid[3], unsigned block[3], int *smem,
                        char *why, size_t n)
{
  /* the driver's limits on a launch's shape, on every architecture */
  static const long long grid_max[3] = {2147483647LL, 65535, 65535};
  long long v;
  int d;

  for (d = 0; d < 3; d++) {
    block[d] = 1;
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
    slots[TN_USLOT_BLOCK0 + d] = block[d];
  }
  /* the grid and the shared memory may read the block's threads */
  slots[TN_USLOT_THREADS] = (long long)block[0] * block[1] * block[2];
  for (d = 0; d < 3; d++) {
    grid[d] = 1;
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

int tn_user_arrays(const tn_user_kernel *u, int a, const long long *slots,
                   long long *base, long long *total, long long *fixed,
                   char *why, size_t n)
{
  long long at = 0, stat = 0, bytes;
  int i;
  for (i = 0; i < u->n_arrays; i++) {
    const tn_uarray *ar = &u->arrays[i];
    long long rows, cols, pad = 0;
    if (i == a && base)
      *base = at;
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
    /* 128-byte aligned: a whole line of banks, so that an array's own
     * layout decides its conflicts */
    bytes = (rows * (cols + pad) * ar->elem + 127) / 128 * 128;
    at += bytes;
    if (!ar->dynamic)
      stat += bytes;
  }
  if (total)
    *total = at;
  if (fixed)
    *fixed = stat;
  return 0;
}

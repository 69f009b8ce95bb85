/* user_eval.h -- a described kernel's expressions evaluated on a point:
 * the slots of its names, its launch, its arrays' bytes.  What the
 * family's host side (user.c), its plan (user_plan.c) and its worker side
 * (user_run.c) share. */
#ifndef TN_USER_EVAL_H
#define TN_USER_EVAL_H

#include "family/user_kernel.h"

/* The slot values of point p on prob: the parameters, the dimensions and
 * the launch's block and threads.  Swizzle parameters read as their index
 * in the space's list. */
void tn_user_slots(const tn_user_kernel *u, const tn_params *p,
                   const tn_problem *prob, long long *slots);

/* A launch's shape from l on slots: the block first, whose size goes into
 * slots (threads, and the block's x, y, z) for the grid, the shared
 * memory and what the caller evaluates after; for a reference's or a
 * baseline's own launch, its own block's (tn_user_slots gives the
 * kernel's).  0, or -1 with why. */
int tn_user_eval_launch(const tn_ulaunch *l, long long *slots,
                        unsigned grid[3], unsigned block[3], int *smem,
                        char *why, size_t n);

/* The byte offset of array a (the arrays sit one after another, each
 * 128-byte aligned) into *base, the bytes of all arrays into *total and
 * of those not in dynamic shared memory into *fixed (any may be NULL).
 * 0, or -1 with why. */
int tn_user_arrays(const tn_user_kernel *u, int a, const long long *slots,
                   long long *base, long long *total, long long *fixed,
                   char *why, size_t n);

#endif

/* drift.h -- what the drift tests share: the kinds and widths of the
 * shared-memory accesses a plan prices and a CUBIN's SASS holds, and the
 * per-block plan and the trace of an instrumented kernel as multisets of
 * warp accesses.
 *
 * A kind is one of TN_OP_LD, TN_OP_ST, TN_OP_LDMATRIX, TN_OP_STMATRIX: a
 * cp.async (LDGSTS) counts as the store of its shared side, which is how
 * the plans price it (gemm_plan.c). */
#ifndef TN_DRIFT_H
#define TN_DRIFT_H

#include <stdint.h>

#include "family/family.h"
#include "model/model.h"
#include "pipeline/render.h"

/* ---- Kinds and widths. ---- */

#define TN_DRIFT_MAX_KINDS 32

typedef struct {
  int n;
  int op[TN_DRIFT_MAX_KINDS];    /* a tn_op, cp.async folded into ST */
  int width[TN_DRIFT_MAX_KINDS]; /* bytes per lane */
} tn_kind_set;

/* The op a drift test compares: cp.async is its shared-side store. */
int tn_drift_op(int op);
void tn_kind_set_add(tn_kind_set *s, int op, int width);
int tn_kind_set_equal(const tn_kind_set *a, const tn_kind_set *b);
/* "LD.4 LD.16 ST.16" into buf (sorted). */
const char *tn_kind_set_format(const tn_kind_set *s, char *buf, size_t n);

/* Adds to s the kinds of every access f's plan emits for p on prob.
 * Returns 0, or -1 with why if the plan emitted a malformed access. */
int tn_drift_plan_kinds(const tn_family *f, const tn_params *p,
                        const tn_problem *prob, tn_kind_set *s, char *why,
                        size_t n);

/* Parses one line of nvdisasm output.  Returns 1 and sets *op, *width
 * (and the opcode, for messages) if the line is an executable shared
 * memory instruction (LDS, STS, LDSM, STSM, LDGSTS, not predicated on
 * !PT), 2 for an instruction that may touch shared memory through a
 * generic address (LD, ST, ATOM: the tests reject those), else 0. */
int tn_drift_sass_line(const char *line, int *op, int *width, char *opcode,
                       size_t n);

/* ---- Warp accesses of one block. ---- */

typedef struct {
  int warp;
  tn_warp_access a; /* inactive lanes' addresses are 0 */
} tn_block_access;

typedef struct {
  int n, cap;
  tn_block_access *v;
  int failed;      /* an access the plan could not place, kept in why */
  char why[256];
} tn_block_plan;

void tn_block_plan_free(tn_block_plan *bp);
/* Appends one access of warp `warp` (normalised: cp.async as ST, inactive
 * lanes' addresses 0), `times` copies.  Returns 0 or -1 (memory). */
int tn_block_plan_add(tn_block_plan *bp, int warp, const tn_warp_access *a,
                      long long times);

/* The accesses of block 0 of f on prob, which must be a problem of one
 * block (grid 1 x 1 x 1): every access the plan emits, `times` copies of
 * each.  The plan does not say which warp issues an access (a sink sees
 * only the access), so these have warp -1 and the comparison is over the
 * block.  Returns 0, or -1 with why. */
int tn_drift_block_plan(const tn_family *f, const tn_params *p,
                        const tn_problem *prob, tn_block_plan *out,
                        char *why, size_t n);
/* The accesses of every block of f's launch on prob, warp -1 (the
 * host emulation's trace covers the whole grid).  Returns 0, or -1 with
 * why. */
int tn_drift_grid_plan(const tn_family *f, const tn_params *p,
                       const tn_problem *prob, tn_block_plan *out,
                       char *why, size_t n);

/* One record of an instrumented kernel's trace (templates' TN_TRACE). */
typedef struct {
  uint32_t warp, seq, lane, addr, op, width;
} tn_trace_rec;

/* Groups records (per warp and sequence number) into warp accesses. */
int tn_drift_trace_group(const tn_trace_rec *r, long long n,
                         tn_block_plan *out, char *why, size_t len);

/* A problem of one block for p, after base (its options): full, the
 * block's tile exactly (the unchecked paths); ragged, sizes no vector
 * divides inside that one block (the checked paths, partial warps).
 * Returns 0, or -1 with why for a family it does not know. */
int tn_drift_one_block(const tn_family *f, const tn_params *p,
                       const tn_problem *base, int ragged, tn_problem *out,
                       char *why, size_t n);

/* Renders p like tn_render, as the instrumented build (TN_TRACE 1). */
int tn_drift_render_traced(const tn_family *f, const tn_params *p,
                           const tn_problem *prob, const tn_template *t,
                           char **source, tn_err *err);

/* Compares two multisets of warp accesses (op, width, active lanes and
 * their 32 addresses; not their order, not their warp).  Prints up to
 * max_print differences to stderr under the label.  Returns the number of
 * accesses in one and not the other (0: equal). */
long long tn_drift_compare(const tn_block_plan *plan,
                           const tn_block_plan *trace, const char *label,
                           int max_print);

#endif

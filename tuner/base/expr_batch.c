/* expr_batch.c -- an expression run over a warp's lanes at once
 * (tn_expr_run_lanes, expr.h).
 *
 * The stack holds a value per lane; each instruction is decoded once and
 * runs over every lane in a loop, with the operators of expr_code.h, so
 * that a lane gets the value or the failure a run of its own would.  A
 * lane that fails is marked and goes on with 0, its later results
 * unused.  Code with a condition (?: && ||) would send lanes different
 * ways: it is left to the machine that runs one value at a time. */
#include <string.h>

#include "base/expr.h"
#include "base/expr_code.h"

/* Values per lane the stack holds at once; deeper code runs lane by
 * lane. */
#define BATCH_DEPTH 16

/* One operator over the lanes: a[i] op b[i] into a[i]. */
#define BINARY_LANES(name)                                                 \
  case OP_##name:                                                          \
    for (i = 0; i < n; i++)                                                \
      if (tn_expr_binary(OP_##name, a[i], b[i], &a[i]) != TN_EXPR_OK) {    \
        bad |= 1u << i;                                                    \
        a[i] = 0;                                                          \
      }                                                                    \
    break
#define UNARY_LANES(name)                                                  \
  case OP_##name:                                                          \
    for (i = 0; i < n; i++)                                                \
      if (tn_expr_unary(OP_##name, a[i], &a[i]) != TN_EXPR_OK) {           \
        bad |= 1u << i;                                                    \
        a[i] = 0;                                                          \
      }                                                                    \
    break

/* Slot s of every lane into v. */
static void load(long long *v, int n, long long s, const long long *slots,
                 const long long *const *lanes, int n_lanes_slots)
{
  int i;
  if (s < n_lanes_slots && lanes[s] != NULL) {
    memcpy(v, lanes[s], sizeof(*v) * (size_t)n);
    return;
  }
  for (i = 0; i < n; i++)
    v[i] = slots[s];
}

static void fill(long long *v, int n, long long x)
{
  int i;
  for (i = 0; i < n; i++)
    v[i] = x;
}

int tn_expr_run_lanes(const tn_expr *e, const long long *slots,
                      const long long *const *lanes, int n_lane_slots,
                      int n, long long *out, unsigned *failed)
{
  long long stack[BATCH_DEPTH][TN_EXPR_LANES], right[TN_EXPR_LANES];
  const tn_expr_insn *pc = e->code;
  unsigned bad = 0;
  int sp = 0, i;

  if (n < 0 || n > TN_EXPR_LANES)
    return -1;
  for (;; pc++) {
    long long *a, *b = right;
    int op = pc->op, form;
    if (op < OP_FIRST_BINARY) {
      switch (op) {
      case OP_END:
        if (sp < 1)
          return -1;
        memcpy(out, stack[sp - 1], sizeof(*out) * (size_t)n);
        *failed = bad;
        return 0;
      case OP_PUSH:
      case OP_LOAD:
        if (sp == BATCH_DEPTH)
          return -1;
        if (op == OP_PUSH)
          fill(stack[sp], n, pc->arg);
        else
          load(stack[sp], n, pc->arg, slots, lanes, n_lane_slots);
        sp++;
        continue;
      default:
        break;
      }
      if (sp < 1)
        return -1;
      a = stack[sp - 1];
      switch (op) {
        UNARY_LANES(NEG);
        UNARY_LANES(NOT);
        UNARY_LANES(BNOT);
        UNARY_LANES(ABS);
        UNARY_LANES(LOG2);
        UNARY_LANES(IS_POW2);
        UNARY_LANES(BOOL);
      default:
        return -1; /* a jump: lanes may go different ways */
      }
      continue;
    }
    /* a binary operator: its right operand on the stack, in the
     * instruction, or a slot */
    form = TN_EXPR_BINARY_FORM(op);
    if (form == 0) {
      if (sp < 2)
        return -1;
      b = stack[--sp];
    } else if (form == 1) {
      fill(right, n, pc->arg);
    } else {
      load(right, n, pc->arg, slots, lanes, n_lane_slots);
    }
    if (sp < 1)
      return -1;
    a = stack[sp - 1];
    switch (op - form) {
      BINARY_LANES(MUL);
      BINARY_LANES(DIV);
      BINARY_LANES(CEIL_DIV);
      BINARY_LANES(FLOOR_DIV);
      BINARY_LANES(MOD);
      BINARY_LANES(ADD);
      BINARY_LANES(SUB);
      BINARY_LANES(SHL);
      BINARY_LANES(SHR);
      BINARY_LANES(LT);
      BINARY_LANES(LE);
      BINARY_LANES(GT);
      BINARY_LANES(GE);
      BINARY_LANES(EQ);
      BINARY_LANES(NE);
      BINARY_LANES(BAND);
      BINARY_LANES(BXOR);
      BINARY_LANES(BOR);
      BINARY_LANES(MIN);
      BINARY_LANES(MAX);
    default:
      return -1;
    }
  }
}

/* expr_ops.h -- what each operator of the expressions computes, and when
 * it fails: written once, for the machine that runs an expression value
 * by value (expr_code.c) and the one that runs it over a warp's lanes at
 * once (expr_batch.c).  Private to those; expr.h has the language. */
#ifndef TN_EXPR_OPS_H
#define TN_EXPR_OPS_H

#include <limits.h>

#include "base/expr_code.h"

/* Inlined where op is a constant, so that each of the machine's
 * instructions is its own operator's code, no switch. */
#define TN_EXPR_INLINE static inline __attribute__((always_inline))

/* How an operator fails (0: it does not). */
enum {
  TN_EXPR_OK,
  TN_EXPR_OVERFLOW,
  TN_EXPR_DIV_ZERO,
  TN_EXPR_SHIFT,  /* a shift count out of range (<< 0..62, >> 0..63) */
  TN_EXPR_LOG2    /* log2 of a value <= 0 */
};

/* Divisions: by zero and LLONG_MIN / -1 fail; C truncates toward 0, and
 * ceil and floor round the other way where the quotient is inexact and
 * its sign asks for it. */
TN_EXPR_INLINE int
tn_expr_divide(long long l, long long r, int round_up, int round_down,
               long long *t)
{
  if (r == 0)
    return TN_EXPR_DIV_ZERO;
  if (l == LLONG_MIN && r == -1)
    return TN_EXPR_OVERFLOW;
  *t = l / r;
  if (round_up && l % r != 0 && (l < 0) == (r < 0))
    (*t)++;
  else if (round_down && l % r != 0 && (l < 0) != (r < 0))
    (*t)--;
  return TN_EXPR_OK;
}

/* Binary operator op (its stack form, OP_MUL ..) on l and r into *t. */
TN_EXPR_INLINE int
tn_expr_binary(int op, long long l, long long r, long long *t)
{
  switch (op) {
  case OP_MUL:
    return __builtin_mul_overflow(l, r, t) ? TN_EXPR_OVERFLOW : TN_EXPR_OK;
  case OP_DIV:
    return tn_expr_divide(l, r, 0, 0, t);
  case OP_CEIL_DIV:
    return tn_expr_divide(l, r, 1, 0, t);
  case OP_FLOOR_DIV:
    return tn_expr_divide(l, r, 0, 1, t);
  case OP_MOD:
    if (r == 0)
      return TN_EXPR_DIV_ZERO;
    *t = r == -1 ? 0 : l % r; /* LLONG_MIN % -1 is 0 */
    return TN_EXPR_OK;
  case OP_ADD:
    return __builtin_add_overflow(l, r, t) ? TN_EXPR_OVERFLOW : TN_EXPR_OK;
  case OP_SUB:
    return __builtin_sub_overflow(l, r, t) ? TN_EXPR_OVERFLOW : TN_EXPR_OK;
  case OP_SHL:
    if (r < 0 || r > 62)
      return TN_EXPR_SHIFT;
    return __builtin_mul_overflow(l, 1LL << r, t) ? TN_EXPR_OVERFLOW
                                                   : TN_EXPR_OK;
  case OP_SHR:
    /* arithmetic: rounds toward -infinity for a negative value, without
     * C's implementation-defined shift of a negative number */
    if (r < 0 || r > 63)
      return TN_EXPR_SHIFT;
    *t = l >= 0 ? l >> r : ~(~l >> r);
    return TN_EXPR_OK;
  case OP_LT:
    *t = l < r;
    return TN_EXPR_OK;
  case OP_LE:
    *t = l <= r;
    return TN_EXPR_OK;
  case OP_GT:
    *t = l > r;
    return TN_EXPR_OK;
  case OP_GE:
    *t = l >= r;
    return TN_EXPR_OK;
  case OP_EQ:
    *t = l == r;
    return TN_EXPR_OK;
  case OP_NE:
    *t = l != r;
    return TN_EXPR_OK;
  case OP_BAND:
    *t = l & r;
    return TN_EXPR_OK;
  case OP_BXOR:
    *t = l ^ r;
    return TN_EXPR_OK;
  case OP_BOR:
    *t = l | r;
    return TN_EXPR_OK;
  case OP_MIN:
    *t = l < r ? l : r;
    return TN_EXPR_OK;
  case OP_MAX:
    *t = l > r ? l : r;
    return TN_EXPR_OK;
  default:
    return TN_EXPR_OVERFLOW; /* not an operator: never compiled */
  }
}

/* Unary operator op (OP_NEG .. OP_IS_POW2, OP_BOOL) on v into *t. */
TN_EXPR_INLINE int
tn_expr_unary(int op, long long v, long long *t)
{
  switch (op) {
  case OP_NEG:
    if (v == LLONG_MIN)
      return TN_EXPR_OVERFLOW;
    *t = -v;
    return TN_EXPR_OK;
  case OP_NOT:
    *t = !v;
    return TN_EXPR_OK;
  case OP_BNOT:
    *t = ~v;
    return TN_EXPR_OK;
  case OP_ABS:
    if (v == LLONG_MIN)
      return TN_EXPR_OVERFLOW;
    *t = v < 0 ? -v : v;
    return TN_EXPR_OK;
  case OP_LOG2:
    if (v <= 0)
      return TN_EXPR_LOG2;
    *t = 63 - __builtin_clzll((unsigned long long)v);
    return TN_EXPR_OK;
  case OP_IS_POW2:
    *t = v > 0 && (v & (v - 1)) == 0;
    return TN_EXPR_OK;
  case OP_BOOL:
    *t = v != 0;
    return TN_EXPR_OK;
  default:
    return TN_EXPR_OVERFLOW; /* not a unary operator: never compiled */
  }
}

#endif

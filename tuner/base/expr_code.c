/* expr_code.c -- runs the code of compiled expressions (expr_code.h). */
#include "base/expr_code.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

static int run_error(const tn_expr_insn *pc, char *why, size_t why_len,
                     const char *fmt, ...)
{
  char msg[96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (why_len > 0)
    snprintf(why, why_len, "column %d: %s", pc->col, msg);
  return -1;
}

/* The code runs by computed goto (labels as values, a GCC and Clang
 * extension like the overflow builtins): each instruction ends in its own
 * indirect jump, which the branch predictor tells apart; twice as fast as
 * one switch on the expressions of tests/bench_expr.c. */
#define NEXT goto *dispatch[(++pc)->op]
#define JUMP_TO(target)                                                    \
  do {                                                                     \
    pc = code + (target);                                                  \
    goto *dispatch[pc->op];                                                \
  } while (0)
#define LABEL_ONE(name) &&L_##name,
#define LABEL_THREE(name) &&L_##name, &&L_##name##_K, &&L_##name##_S,

/* The three forms of a binary operator: the left operand l, the right r,
 * then the body, which leaves the result in t. */
#define BINARY_CASES(name, ...)                                            \
  L_##name:                                                                \
  l = *--sp;                                                               \
  r = t;                                                                   \
  __VA_ARGS__;                                                             \
  NEXT;                                                                    \
  L_##name##_K:                                                            \
  l = t;                                                                   \
  r = pc->arg;                                                             \
  __VA_ARGS__;                                                             \
  NEXT;                                                                    \
  L_##name##_S:                                                            \
  l = t;                                                                   \
  r = slots[pc->arg];                                                      \
  __VA_ARGS__;                                                             \
  NEXT

/* Divisions: by zero and LLONG_MIN / -1 fail; C truncates toward 0, and
 * ceil and floor round the other way where the quotient is inexact and
 * its sign asks for it. */
#define DIVIDE(round_up, round_down)                                       \
  if (r == 0)                                                              \
    return run_error(pc, why, why_len, "division by zero");                \
  if (l == LLONG_MIN && r == -1)                                           \
    return run_error(pc, why, why_len, "overflow");                        \
  t = l / r;                                                               \
  if ((round_up) && l % r != 0 && (l < 0) == (r < 0))                      \
    t++;                                                                   \
  else if ((round_down) && l % r != 0 && (l < 0) != (r < 0))               \
    t--

/* The top of the stack is kept in t; below it, stack[0 .. sp).  The first
 * push stores a dummy value, so TN_EXPR_STACK_MAX bounds the deepest
 * expression. */
int tn_expr_code_run(const tn_expr_insn *code, const long long *slots,
                     long long *out, char *why, size_t why_len)
{
  static const void *const dispatch[] = {TN_EXPR_OTHER_OPS(LABEL_ONE)
                                             TN_EXPR_BINARY_OPS(LABEL_THREE)};
  long long stack[TN_EXPR_STACK_MAX];
  long long *sp = stack;
  long long t = 0, l, r;
  const tn_expr_insn *pc = code;

  goto *dispatch[pc->op];
L_END:
  *out = t;
  return 0;
L_PUSH:
  *sp++ = t;
  t = pc->arg;
  NEXT;
L_LOAD:
  *sp++ = t;
  t = slots[pc->arg];
  NEXT;
L_NEG:
  if (t == LLONG_MIN)
    return run_error(pc, why, why_len, "overflow");
  t = -t;
  NEXT;
L_NOT:
  t = !t;
  NEXT;
L_BNOT:
  t = ~t;
  NEXT;
L_ABS:
  if (t == LLONG_MIN)
    return run_error(pc, why, why_len, "overflow");
  t = t < 0 ? -t : t;
  NEXT;
L_LOG2:
  if (t <= 0)
    return run_error(pc, why, why_len,
                     "log2 of %lld: the argument must be positive", t);
  t = 63 - __builtin_clzll((unsigned long long)t);
  NEXT;
L_IS_POW2:
  t = t > 0 && (t & (t - 1)) == 0;
  NEXT;
L_AND_JUMP:
  if (t == 0)
    JUMP_TO(pc->arg);
  t = *--sp;
  NEXT;
L_OR_JUMP:
  if (t != 0) {
    t = 1;
    JUMP_TO(pc->arg);
  }
  t = *--sp;
  NEXT;
L_BOOL:
  t = t != 0;
  NEXT;
L_JUMP_ZERO:
  l = t;
  t = *--sp;
  if (l == 0)
    JUMP_TO(pc->arg);
  NEXT;
L_JUMP:
  JUMP_TO(pc->arg);
  BINARY_CASES(MUL, if (__builtin_mul_overflow(l, r, &t))
                      return run_error(pc, why, why_len, "overflow"));
  BINARY_CASES(DIV, DIVIDE(0, 0));
  BINARY_CASES(CEIL_DIV, DIVIDE(1, 0));
  BINARY_CASES(FLOOR_DIV, DIVIDE(0, 1));
  BINARY_CASES(MOD,
               if (r == 0)
                 return run_error(pc, why, why_len, "division by zero");
               t = r == -1 ? 0 : l % r); /* LLONG_MIN % -1 is 0 */
  BINARY_CASES(ADD, if (__builtin_add_overflow(l, r, &t))
                      return run_error(pc, why, why_len, "overflow"));
  BINARY_CASES(SUB, if (__builtin_sub_overflow(l, r, &t))
                      return run_error(pc, why, why_len, "overflow"));
  BINARY_CASES(SHL,
               if (r < 0 || r > 62)
                 return run_error(pc, why, why_len,
                                  "shift count %lld is out of range 0..62", r);
               if (__builtin_mul_overflow(l, 1LL << r, &t))
                 return run_error(pc, why, why_len, "overflow"));
  /* arithmetic: rounds toward -infinity for a negative value, without C's
   * implementation-defined shift of a negative number */
  BINARY_CASES(SHR,
               if (r < 0 || r > 63)
                 return run_error(pc, why, why_len,
                                  "shift count %lld is out of range 0..63", r);
               t = l >= 0 ? l >> r : ~(~l >> r));
  BINARY_CASES(LT, t = l < r);
  BINARY_CASES(LE, t = l <= r);
  BINARY_CASES(GT, t = l > r);
  BINARY_CASES(GE, t = l >= r);
  BINARY_CASES(EQ, t = l == r);
  BINARY_CASES(NE, t = l != r);
  BINARY_CASES(BAND, t = l & r);
  BINARY_CASES(BXOR, t = l ^ r);
  BINARY_CASES(BOR, t = l | r);
  BINARY_CASES(MIN, t = l < r ? l : r);
  BINARY_CASES(MAX, t = l > r ? l : r);
}

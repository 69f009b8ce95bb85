/* expr_code.c -- makes and runs the code of compiled expressions
 * (expr_code.h). */
#include "base/expr_code.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reads_slot(int op)
{
  return op == OP_LOAD ||
         (op >= OP_FIRST_BINARY && TN_EXPR_BINARY_FORM(op) == 2);
}

static int compare_ints(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

tn_expr *tn_expr_code_make(const tn_expr_insn *code, int n)
{
  tn_expr *e;
  int i, n_loads = 0, n_slots = 0;
  for (i = 0; i < n; i++)
    n_loads += reads_slot(code[i].op);
  e = malloc(sizeof(*e) + (size_t)n * sizeof(tn_expr_insn) +
             (size_t)n_loads * sizeof(int));
  if (e == NULL)
    return NULL;
  memcpy(e->code, code, (size_t)n * sizeof(tn_expr_insn));
  e->slots = (int *)(e->code + n);
  for (i = 0; i < n; i++)
    if (reads_slot(code[i].op))
      e->slots[n_slots++] = (int)code[i].arg;
  qsort(e->slots, (size_t)n_slots, sizeof(int), compare_ints);
  e->n_slots = 0;
  for (i = 0; i < n_slots; i++)
    if (i == 0 || e->slots[i] != e->slots[i - 1])
      e->slots[e->n_slots++] = e->slots[i];
  return e;
}

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

/* A failure of kind `failed` (expr_code.h) at pc; v is the count of a
 * shift, the argument of log2. */
static int op_error(const tn_expr_insn *pc, int failed, long long v,
                    char *why, size_t why_len)
{
  switch (failed) {
  case TN_EXPR_DIV_ZERO:
    return run_error(pc, why, why_len, "division by zero");
  case TN_EXPR_SHIFT:
    return run_error(pc, why, why_len,
                     "shift count %lld is out of range 0..%d", v,
                     pc->op - TN_EXPR_BINARY_FORM(pc->op) == OP_SHL ? 62
                                                                    : 63);
  case TN_EXPR_LOG2:
    return run_error(pc, why, why_len,
                     "log2 of %lld: the argument must be positive", v);
  default:
    return run_error(pc, why, why_len, "overflow");
  }
}

/* Operator name on l and r (a unary one on t) into t (expr_code.h). */
#define BINARY(name)                                                       \
  failed = tn_expr_binary(OP_##name, l, r, &t);                            \
  if (failed)                                                              \
    return op_error(pc, failed, r, why, why_len)
#define UNARY(name)                                                        \
  failed = tn_expr_unary(OP_##name, t, &t);                                \
  if (failed)                                                              \
    return op_error(pc, failed, t, why, why_len);                          \
  NEXT

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
  int failed;

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
  UNARY(NEG);
L_NOT:
  UNARY(NOT);
L_BNOT:
  UNARY(BNOT);
L_ABS:
  UNARY(ABS);
L_LOG2:
  UNARY(LOG2);
L_IS_POW2:
  UNARY(IS_POW2);
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
  UNARY(BOOL);
L_JUMP_ZERO:
  l = t;
  t = *--sp;
  if (l == 0)
    JUMP_TO(pc->arg);
  NEXT;
L_JUMP:
  JUMP_TO(pc->arg);
  BINARY_CASES(MUL, BINARY(MUL));
  BINARY_CASES(DIV, BINARY(DIV));
  BINARY_CASES(CEIL_DIV, BINARY(CEIL_DIV));
  BINARY_CASES(FLOOR_DIV, BINARY(FLOOR_DIV));
  BINARY_CASES(MOD, BINARY(MOD));
  BINARY_CASES(ADD, BINARY(ADD));
  BINARY_CASES(SUB, BINARY(SUB));
  BINARY_CASES(SHL, BINARY(SHL));
  BINARY_CASES(SHR, BINARY(SHR));
  BINARY_CASES(LT, BINARY(LT));
  BINARY_CASES(LE, BINARY(LE));
  BINARY_CASES(GT, BINARY(GT));
  BINARY_CASES(GE, BINARY(GE));
  BINARY_CASES(EQ, BINARY(EQ));
  BINARY_CASES(NE, BINARY(NE));
  BINARY_CASES(BAND, BINARY(BAND));
  BINARY_CASES(BXOR, BINARY(BXOR));
  BINARY_CASES(BOR, BINARY(BOR));
  BINARY_CASES(MIN, BINARY(MIN));
  BINARY_CASES(MAX, BINARY(MAX));
}

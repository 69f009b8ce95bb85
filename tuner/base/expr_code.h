/* expr_code.h -- the code that expressions compile to, and the machine
 * that runs it: a stack machine whose binary operators may take their
 * right operand from the instruction.  Private to expr.c, which compiles,
 * expr_code.c, which runs, and expr_fold.c, which specializes; expr.h has
 * the language. */
#ifndef TN_EXPR_CODE_H
#define TN_EXPR_CODE_H

#include <stddef.h>

#include "base/expr.h"

/* Values a run holds at once; the compiler refuses deeper code. */
#define TN_EXPR_STACK_MAX 512

/* The instructions other than binary operators; arg is the value of
 * PUSH, the slot of LOAD, and where the jumps go:
 *   AND_JUMP   &&: a 0 on top stays and jumps; else it is popped
 *   OR_JUMP    ||: a non-zero top becomes 1 and jumps; else it is popped
 *   BOOL       the top becomes 0 or 1
 *   JUMP_ZERO  ?: pops the condition, and jumps if it was 0 */
#define TN_EXPR_OTHER_OPS(X)                                             \
  X(END) X(PUSH) X(LOAD) X(NEG) X(NOT) X(BNOT) X(ABS) X(LOG2) X(IS_POW2) \
  X(AND_JUMP) X(OR_JUMP) X(BOOL) X(JUMP_ZERO) X(JUMP)
/* The binary operators.  Each has three forms: both operands on the
 * stack, or the right one a constant (_K) or a slot (_S) in arg, so that
 * "x * 32" or "x / block_x" is one instruction, not two. */
#define TN_EXPR_BINARY_OPS(X)                                            \
  X(MUL) X(DIV) X(MOD) X(ADD) X(SUB) X(SHL) X(SHR) X(LT) X(LE) X(GT)     \
  X(GE) X(EQ) X(NE) X(BAND) X(BXOR) X(BOR) X(MIN) X(MAX) X(CEIL_DIV)     \
  X(FLOOR_DIV)
#define OP_ONE(name) OP_##name,
#define OP_THREE(name) OP_##name, OP_##name##_K, OP_##name##_S,

enum tn_expr_op {
  TN_EXPR_OTHER_OPS(OP_ONE)
  TN_EXPR_BINARY_OPS(OP_THREE)
  OP_FIRST_BINARY = OP_MUL
};
#undef OP_ONE
#undef OP_THREE

/* The form of a binary operator: 0 on the stack, 1 constant, 2 slot. */
#define TN_EXPR_BINARY_FORM(op) (((op) - OP_FIRST_BINARY) % 3)

typedef struct {
  int op;
  int col;       /* the column reported when this instruction fails */
  long long arg; /* see TN_EXPR_OTHER_OPS, _BINARY_OPS */
} tn_expr_insn;

/* A compiled expression of the n instructions of code (ending in
 * OP_END), with the slots they read; NULL when out of memory. */
tn_expr *tn_expr_code_make(const tn_expr_insn *code, int n);
/* The code of e. */
const tn_expr_insn *tn_expr_code_of(const tn_expr *e);

/* Runs code (which ends in OP_END) over slots.  Returns 0 and sets *out,
 * or -1 with why naming the column of the instruction that failed.
 * Allocates nothing. */
int tn_expr_code_run(const tn_expr_insn *code, const long long *slots,
                     long long *out, char *why, size_t why_len);

#endif

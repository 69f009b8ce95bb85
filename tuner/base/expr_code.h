/* expr_code.h -- the code that expressions compile to, what each
 * operator computes, and the machine that runs it: a stack machine whose
 * binary operators may take their right operand from the instruction.
 * Private to expr.c, which compiles, expr_code.c, which runs,
 * expr_batch.c, which runs over a warp's lanes at once, and expr_fold.c,
 * which specializes; expr.h has the language. */
#ifndef TN_EXPR_CODE_H
#define TN_EXPR_CODE_H

#include <limits.h>
#include <stddef.h>

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

/* A compiled expression (expr.h's tn_expr): its code and the slots it
 * reads. */
typedef struct tn_expr tn_expr;
struct tn_expr {
  int n_slots;
  int *slots; /* the slots read, sorted; they follow code in the block */
  tn_expr_insn code[];
};

/* An expression of the n instructions of code (ending in OP_END), with
 * the slots they read; NULL when out of memory. */
tn_expr *tn_expr_code_make(const tn_expr_insn *code, int n);

/* Runs code (which ends in OP_END) over slots.  Returns 0 and sets *out,
 * or -1 with why naming the column of the instruction that failed.
 * Allocates nothing. */
int tn_expr_code_run(const tn_expr_insn *code, const long long *slots,
                     long long *out, char *why, size_t why_len);

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

/* expr_fold.c -- an expression specialized to the values of some of its
 * slots (tn_expr_specialize, expr.h).
 *
 * The code is walked once with a model of the stack: an entry is known
 * (its value computed here) or not (the code that computes it is in the
 * output).  An instruction on known operands is run here, through the
 * machine itself (tn_expr_code_run on a snippet), so it gives the values
 * and the errors a run would; one that reads an unknown operand goes to
 * the output, a known right operand folded into its argument.  A known
 * entry is pushed in the output only when unknown code goes above it:
 * so a known entry in the output always has an unknown one above it,
 * and two known operands of one instruction are never in the output.
 * A condition (?: && ||) on a known value follows its branch; on an
 * unknown one, or a failure in the known part, the specialization is
 * given up and the caller runs the expression whole. */
#include <stdlib.h>
#include <string.h>

#include "base/expr.h"
#include "base/expr_code.h"

typedef struct {
  int known;      /* its value is v, computed here */
  int in_output;  /* a known entry pushed in the output */
  long long v;
} entry;

typedef struct {
  const long long *slots;
  const unsigned char *varying;
  int n_slots;
  entry stack[TN_EXPR_STACK_MAX];
  int sp;
  tn_expr_insn *out;
  int n, cap;
} folder;

static int is_varying(const folder *f, long long slot)
{
  return slot < 0 || slot >= f->n_slots || f->varying[slot];
}

static int put(folder *f, int op, int col, long long arg)
{
  if (f->n == f->cap) {
    int cap = f->cap ? 2 * f->cap : 32;
    tn_expr_insn *out = realloc(f->out, sizeof(*out) * (size_t)cap);
    if (out == NULL)
      return -1;
    f->out = out;
    f->cap = cap;
  }
  f->out[f->n].op = op;
  f->out[f->n].col = col;
  f->out[f->n].arg = arg;
  f->n++;
  return 0;
}

static int push(folder *f, int known, long long v)
{
  if (f->sp >= TN_EXPR_STACK_MAX)
    return -1;
  f->stack[f->sp].known = known;
  f->stack[f->sp].in_output = 0;
  f->stack[f->sp].v = v;
  f->sp++;
  return 0;
}

/* Before unknown code goes on the stack: the known entries at its top
 * (those above the last unknown one) are pushed in the output. */
static int materialize(folder *f, int col)
{
  int i = f->sp;
  while (i > 0 && f->stack[i - 1].known && !f->stack[i - 1].in_output)
    i--;
  for (; i < f->sp; i++) {
    if (put(f, OP_PUSH, col, f->stack[i].v) != 0)
      return -1;
    f->stack[i].in_output = 1;
  }
  return 0;
}

/* Runs op on known operands as the machine would: a unary op on l, or
 * a binary one (its stack form) on l and r.  0 and *out, or -1 where the
 * run fails. */
static int fold(int op, int col, long long l, long long r, long long *out)
{
  tn_expr_insn snippet[3] = {{OP_PUSH, 0, 0}, {0, 0, 0}, {OP_END, 0, 0}};
  char why[1];
  snippet[0].arg = l;
  /* a binary operator's _K form takes r from the instruction */
  snippet[1].op = op >= OP_FIRST_BINARY ? op + 1 : op;
  snippet[1].col = col;
  snippet[1].arg = r;
  return tn_expr_code_run(snippet, NULL, out, why, 0);
}

/* A binary operator whose right operand is r (known, or not: then its
 * code is in the output and the left one under it). */
static int binary(folder *f, const tn_expr_insn *pc, int r_known,
                  long long r)
{
  int base = pc->op - TN_EXPR_BINARY_FORM(pc->op);
  entry l = f->stack[--f->sp];
  long long v;
  if (l.known && r_known) {
    if (fold(base, pc->col, l.v, r, &v) != 0)
      return -1;
    return push(f, 1, v);
  }
  if (!r_known) /* l is in the output below r (known or not) */
    return put(f, base, pc->col, 0) == 0 ? push(f, 0, 0) : -1;
  /* l unknown, r known: one instruction with r as its argument */
  return put(f, base + 1, pc->col, r) == 0 ? push(f, 0, 0) : -1;
}

/* Walks code from pc; 0 when its END is in the output, -1 to give up. */
static int walk(folder *f, const tn_expr_insn *code)
{
  const tn_expr_insn *pc = code;
  long long v;
  for (;;) {
    entry *top = f->sp > 0 ? &f->stack[f->sp - 1] : NULL;
    if (pc->op >= OP_FIRST_BINARY) {
      int form = TN_EXPR_BINARY_FORM(pc->op), rc;
      if (form == 0) {
        entry r = f->stack[--f->sp];
        rc = binary(f, pc, r.known, r.v);
      } else if (form == 1) {
        rc = binary(f, pc, 1, pc->arg);
      } else if (!is_varying(f, pc->arg)) {
        rc = binary(f, pc, 1, f->slots[pc->arg]);
      } else if (top->known) {
        /* the left operand goes in the output, the slot on it */
        rc = materialize(f, pc->col);
        if (rc == 0)
          rc = put(f, pc->op, pc->col, pc->arg);
        f->sp--;
        if (rc == 0)
          rc = push(f, 0, 0);
      } else {
        f->sp--;
        rc = put(f, pc->op, pc->col, pc->arg);
        if (rc == 0)
          rc = push(f, 0, 0);
      }
      if (rc != 0)
        return -1;
      pc++;
      continue;
    }
    switch (pc->op) {
    case OP_END:
      if (top->known && !top->in_output &&
          put(f, OP_PUSH, pc->col, top->v) != 0)
        return -1;
      return put(f, OP_END, pc->col, 0);
    case OP_PUSH:
      if (push(f, 1, pc->arg) != 0)
        return -1;
      break;
    case OP_LOAD:
      if (!is_varying(f, pc->arg)) {
        if (push(f, 1, f->slots[pc->arg]) != 0)
          return -1;
      } else if (materialize(f, pc->col) != 0 ||
                 put(f, OP_LOAD, pc->col, pc->arg) != 0 ||
                 push(f, 0, 0) != 0) {
        return -1;
      }
      break;
    case OP_NEG:
    case OP_NOT:
    case OP_BNOT:
    case OP_ABS:
    case OP_LOG2:
    case OP_IS_POW2:
    case OP_BOOL:
      if (top->known) {
        if (fold(pc->op, pc->col, top->v, 0, &v) != 0)
          return -1;
        top->v = v;
      } else if (put(f, pc->op, pc->col, 0) != 0) {
        return -1;
      }
      break;
    case OP_AND_JUMP:
    case OP_OR_JUMP:
    case OP_JUMP_ZERO:
      if (!top->known)
        return -1; /* which side runs differs from run to run */
      if (pc->op == OP_JUMP_ZERO) {
        f->sp--;
        if (top->v == 0) {
          pc = code + pc->arg;
          continue;
        }
      } else if ((pc->op == OP_AND_JUMP) == (top->v == 0)) {
        top->v = pc->op == OP_OR_JUMP ? 1 : 0; /* stays, and decides */
        pc = code + pc->arg;
        continue;
      } else {
        f->sp--;
      }
      break;
    case OP_JUMP:
      pc = code + pc->arg;
      continue;
    default:
      return -1;
    }
    pc++;
  }
}

tn_expr *tn_expr_specialize(const tn_expr *e, const long long *slots,
                            const unsigned char *varying, int n_slots)
{
  folder f;
  tn_expr *out = NULL;
  memset(&f, 0, sizeof(f));
  f.slots = slots;
  f.varying = varying;
  f.n_slots = n_slots;
  if (walk(&f, e->code) == 0)
    out = tn_expr_code_make(f.out, f.n);
  free(f.out);
  return out;
}

/* expr.c -- integer expressions in configs.
 * A recursive-descent parser compiles the text to code for a small stack
 * machine (expr_code.h); evaluating runs that code.  One-off evaluation compiles with the
 * names' values as constants into a buffer on the stack, so both forms give
 * the same results and the same errors.  Nesting is bounded so hostile
 * input cannot exhaust the stack. */
#include "base/expr.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/expr_code.h"

#define MAX_DEPTH 64   /* nested parentheses, unary operators, ?: */
#define MAX_IDENT 64   /* longest name, with its terminating NUL */
#define LOCAL_CODE 128 /* instructions compiled on the stack for one-off use */


/* ---- Tokens ---- */

enum tok {
  T_END, T_NUM, T_NAME, T_LPAREN, T_RPAREN, T_COMMA, T_QUESTION, T_COLON,
  T_OROR, T_ANDAND, T_OR, T_XOR, T_AND, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
  T_SHL, T_SHR, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_NOT, T_TILDE
};

typedef struct {
  const char *text;
  const char *p;     /* just after the current token */
  int tok;           /* the current token */
  int col;           /* its column, from 1 */
  long long num;     /* its value, for T_NUM */
  char name[MAX_IDENT]; /* its text, for T_NAME */

  tn_expr_lookup lookup; /* names become constants, or with resolve */
  tn_expr_resolve resolve; /* ... slots */
  void *ctx;

  tn_expr_insn *code;
  int n, cap;
  int on_heap;   /* code was allocated, not the caller's buffer */
  int depth;     /* nesting, against MAX_DEPTH */
  int sp, max_sp; /* values on the stack at this point of the code */
  int failed;
  char *why;
  size_t why_len;
} parser;

static void fail(parser *ps, int col, const char *fmt, ...)
{
  char msg[MAX_IDENT + 160];
  va_list ap;
  if (ps->failed)
    return; /* the first error is the one to report */
  ps->failed = 1;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (ps->why_len > 0)
    snprintf(ps->why, ps->why_len, "column %d: %s", col, msg);
}

static int column(const parser *ps, const char *at)
{
  size_t off = (size_t)(at - ps->text);
  return off < INT_MAX ? (int)off + 1 : INT_MAX;
}

static int digit_value(int c, int base)
{
  int v = isdigit(c) ? c - '0'
          : isxdigit(c) ? tolower(c) - 'a' + 10 : base;
  return v < base ? v : -1;
}

static void lex_number(parser *ps)
{
  const char *s = ps->p;
  int base = 10, d;
  long long v = 0;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
      digit_value((unsigned char)s[2], 16) >= 0) {
    base = 16;
    s += 2;
  }
  for (d = digit_value((unsigned char)*s, base); d >= 0;
       d = digit_value((unsigned char)*++s, base)) {
    if (__builtin_mul_overflow(v, base, &v) ||
        __builtin_add_overflow(v, d, &v)) {
      fail(ps, ps->col, "number too large for 64 bits");
      return;
    }
  }
  if (isalnum((unsigned char)*s) || *s == '_') {
    fail(ps, ps->col, "malformed number");
    return;
  }
  ps->p = s;
  ps->num = v;
  ps->tok = T_NUM;
}

static void lex_name(parser *ps)
{
  const char *s = ps->p;
  size_t n = 0;
  while (isalnum((unsigned char)*s) || *s == '_') {
    if (n + 1 >= sizeof(ps->name)) {
      fail(ps, ps->col, "name longer than %d characters", MAX_IDENT - 1);
      return;
    }
    ps->name[n++] = *s++;
  }
  ps->name[n] = '\0';
  ps->p = s;
  ps->tok = T_NAME;
}

/* Reads the next token.  After an error the token is T_END, so that every
 * loop of the parser ends. */
static void lex(parser *ps)
{
  /* the longer operators first: "<=" is not "<" then "=" */
  static const struct {
    char first, second;
    int tok;
  } pairs[] = {
      {'|', '|', T_OROR}, {'&', '&', T_ANDAND}, {'=', '=', T_EQ},
      {'!', '=', T_NE},   {'<', '=', T_LE},     {'>', '=', T_GE},
      {'<', '<', T_SHL},  {'>', '>', T_SHR},
  };
  static const char singles[] = "(),?:|^&<>+-*/%!~";
  static const int single_toks[] = {
      T_LPAREN, T_RPAREN, T_COMMA, T_QUESTION, T_COLON, T_OR,
      T_XOR,    T_AND,    T_LT,    T_GT,       T_PLUS,  T_MINUS,
      T_STAR,   T_SLASH,  T_PERCENT, T_NOT,    T_TILDE,
  };
  unsigned char c;
  const char *single;
  size_t i;

  ps->tok = T_END;
  if (ps->failed)
    return;
  while (isspace((unsigned char)*ps->p))
    ps->p++;
  ps->col = column(ps, ps->p);
  c = (unsigned char)*ps->p;
  if (c == '\0')
    return;
  if (isdigit(c)) {
    lex_number(ps);
    return;
  }
  if (isalpha(c) || c == '_') {
    lex_name(ps);
    return;
  }
  for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
    if (pairs[i].first == ps->p[0] && pairs[i].second == ps->p[1]) {
      ps->tok = pairs[i].tok;
      ps->p += 2;
      return;
    }
  }
  single = strchr(singles, c);
  if (single != NULL) {
    ps->tok = single_toks[single - singles];
    ps->p++;
    return;
  }
  if (c == '=')
    fail(ps, ps->col, "'=' is not an operator (equality is '==')");
  else if (isprint(c))
    fail(ps, ps->col, "unexpected character '%c'", c);
  else
    fail(ps, ps->col, "unexpected byte 0x%02x", c);
}

/* ---- Compiling ---- */

/* What a parse function compiled: a division at the top level (its
 * instruction is the last one emitted), which ceil() and floor() need. */
enum { NODE_OTHER, NODE_DIV };

/* How an instruction changes the number of values on the stack (for the
 * jumps that pop on one side only, that side). */
static int stack_effect(int op)
{
  if (op >= OP_FIRST_BINARY)
    return TN_EXPR_BINARY_FORM(op) == 0 ? -1 : 0;
  switch (op) {
  case OP_PUSH:
  case OP_LOAD:
    return 1;
  case OP_AND_JUMP:
  case OP_OR_JUMP:
  case OP_JUMP_ZERO:
    return -1;
  default:
    return 0;
  }
}

/* Appends an instruction; returns its index (-1 after an error). */
static int emit(parser *ps, int op, int col, long long arg)
{
  if (ps->failed)
    return -1;
  if (ps->n == ps->cap) {
    tn_expr_insn *code = NULL;
    if (ps->cap <= INT_MAX / 2 &&
        (size_t)ps->cap < SIZE_MAX / 2 / sizeof(tn_expr_insn))
      code = malloc((size_t)ps->cap * 2 * sizeof(tn_expr_insn));
    if (code == NULL) {
      fail(ps, col, "out of memory");
      return -1;
    }
    memcpy(code, ps->code, (size_t)ps->n * sizeof(tn_expr_insn));
    if (ps->on_heap)
      free(ps->code);
    ps->code = code;
    ps->cap *= 2;
    ps->on_heap = 1;
  }
  ps->code[ps->n].op = op;
  ps->code[ps->n].col = col;
  ps->code[ps->n].arg = arg;
  ps->sp += stack_effect(op);
  if (ps->sp > ps->max_sp)
    ps->max_sp = ps->sp;
  if (ps->max_sp >= TN_EXPR_STACK_MAX)
    fail(ps, col, "expression too complex");
  return ps->n++;
}

static void patch_jump(parser *ps, int at)
{
  if (!ps->failed)
    ps->code[at].arg = ps->n;
}

/* Emits binary operator op (its stack form) whose right operand was
 * compiled from rhs: an operand that is a single constant or name becomes
 * the operator's own. */
static void emit_binary(parser *ps, int op, int col, int rhs)
{
  if (!ps->failed && ps->n - rhs == 1 &&
      (ps->code[rhs].op == OP_PUSH || ps->code[rhs].op == OP_LOAD)) {
    long long arg = ps->code[rhs].arg;
    int form = ps->code[rhs].op == OP_PUSH ? 1 : 2;
    ps->n--;
    ps->sp--;
    emit(ps, op + form, col, arg);
  } else {
    emit(ps, op, col, 0);
  }
}

static int expect(parser *ps, int tok, const char *what)
{
  if (ps->tok != tok) {
    if (ps->tok == T_END && !ps->failed)
      fail(ps, ps->col, "expected %s before the end", what);
    else
      fail(ps, ps->col, "expected %s", what);
    return -1;
  }
  lex(ps);
  return 0;
}

static int parse_conditional(parser *ps);

/* How a function compiles: one instruction per argument after the first
 * (min and max of many, keeping the stack shallow), one after all its
 * arguments, or a change of the division that is its argument. */
enum { FN_PAIRWISE, FN_FIXED, FN_DIVISION };

static const struct {
  const char *name;
  int op, how, n_args; /* n_args: the least for FN_PAIRWISE */
} functions[] = {
    {"min", OP_MIN, FN_PAIRWISE, 2},
    {"max", OP_MAX, FN_PAIRWISE, 2},
    {"ceil_div", OP_CEIL_DIV, FN_FIXED, 2},
    {"abs", OP_ABS, FN_FIXED, 1},
    {"log2", OP_LOG2, FN_FIXED, 1},
    {"is_pow2", OP_IS_POW2, FN_FIXED, 1},
    {"ceil", OP_CEIL_DIV, FN_DIVISION, 1},
    {"floor", OP_FLOOR_DIV, FN_DIVISION, 1},
};
#define N_FUNCTIONS (sizeof(functions) / sizeof(functions[0]))
#define FUNCTION_NAMES \
  "min, max, ceil_div, abs, log2, is_pow2, ceil, floor"

/* name( has been read; compiles the arguments and the call. */
static void parse_call(parser *ps, const char *name, int col)
{
  size_t f;
  int n_args = 0, node = NODE_OTHER, how, arg = 0;

  for (f = 0; f < N_FUNCTIONS; f++)
    if (strcmp(functions[f].name, name) == 0)
      break;
  if (f == N_FUNCTIONS) {
    fail(ps, col, "'%s' is not a function (functions: %s)", name,
         FUNCTION_NAMES);
    return;
  }
  how = functions[f].how;
  lex(ps); /* the token after ( */
  if (ps->tok != T_RPAREN) {
    for (;;) {
      arg = ps->n; /* where the last argument's code starts */
      node = parse_conditional(ps);
      n_args++;
      if (how == FN_PAIRWISE && n_args >= 2)
        emit_binary(ps, functions[f].op, col, arg);
      if (ps->tok != T_COMMA)
        break;
      lex(ps);
    }
  }
  if (expect(ps, T_RPAREN, "')' or ','") != 0)
    return;
  if (how == FN_PAIRWISE && n_args < functions[f].n_args) {
    fail(ps, col, "%s() takes %d or more arguments", name,
         functions[f].n_args);
  } else if (how != FN_PAIRWISE && n_args != functions[f].n_args) {
    fail(ps, col, "%s() takes %d argument%s", name, functions[f].n_args,
         functions[f].n_args == 1 ? "" : "s");
  } else if (how == FN_FIXED && n_args == 2) {
    emit_binary(ps, functions[f].op, col, arg);
  } else if (how == FN_FIXED) {
    emit(ps, functions[f].op, col, 0);
  } else if (how == FN_DIVISION) {
    /* ceil(a / b): the division at the top of the argument, the last
     * instruction, in whichever form, rounds up instead */
    if (node != NODE_DIV)
      fail(ps, col, "%s() takes a division: %s(a / b)", name, name);
    else if (!ps->failed)
      ps->code[ps->n - 1].op =
          functions[f].op + TN_EXPR_BINARY_FORM(ps->code[ps->n - 1].op);
  }
}

static void compile_name(parser *ps, const char *name, int col)
{
  if (ps->resolve) {
    int slot = ps->resolve(ps->ctx, name);
    if (slot >= 0) {
      emit(ps, OP_LOAD, col, slot);
      return;
    }
  } else {
    long long v;
    if (ps->lookup(ps->ctx, name, &v) == 0) {
      emit(ps, OP_PUSH, col, v);
      return;
    }
  }
  fail(ps, col, "unknown name '%s'", name);
}

static int parse_primary(parser *ps)
{
  int col = ps->col, node;
  char name[MAX_IDENT];

  switch (ps->tok) {
  case T_NUM:
    emit(ps, OP_PUSH, col, ps->num);
    lex(ps);
    return NODE_OTHER;
  case T_LPAREN:
    lex(ps);
    node = parse_conditional(ps);
    expect(ps, T_RPAREN, "')'");
    return node; /* (a / b) is still a division */
  case T_NAME:
    /* a function's name not followed by ( is an ordinary name; the name
     * is resolved before the next token is read, so that errors come in
     * the order of the text */
    memcpy(name, ps->name, sizeof(name));
    while (isspace((unsigned char)*ps->p))
      ps->p++;
    if (*ps->p == '(') {
      lex(ps);
      parse_call(ps, name, col);
    } else {
      compile_name(ps, name, col);
      lex(ps);
    }
    return NODE_OTHER;
  case T_END:
    fail(ps, col, "unexpected end of expression");
    return NODE_OTHER;
  default:
    fail(ps, col, "expected a number, a name or '('");
    return NODE_OTHER;
  }
}

static int parse_unary(parser *ps)
{
  int node = NODE_OTHER, col = ps->col, op;
  if (++ps->depth > MAX_DEPTH) {
    fail(ps, col, "expression nested too deeply");
    return NODE_OTHER;
  }
  op = ps->tok == T_MINUS ? OP_NEG
       : ps->tok == T_NOT ? OP_NOT
       : ps->tok == T_TILDE ? OP_BNOT : OP_END;
  if (op != OP_END) {
    lex(ps);
    parse_unary(ps);
    emit(ps, op, col, 0);
  } else {
    node = parse_primary(ps);
  }
  ps->depth--;
  return node;
}

/* Binary operators by precedence, loosest first (C's order). */
enum {
  PREC_OROR = 1, PREC_ANDAND, PREC_OR, PREC_XOR, PREC_AND, PREC_EQUALITY,
  PREC_RELATION, PREC_SHIFT, PREC_ADD, PREC_MUL
};

static const struct {
  int tok, prec, op;
} binary_ops[] = {
    {T_OROR, PREC_OROR, OP_OR_JUMP},   {T_ANDAND, PREC_ANDAND, OP_AND_JUMP},
    {T_OR, PREC_OR, OP_BOR},           {T_XOR, PREC_XOR, OP_BXOR},
    {T_AND, PREC_AND, OP_BAND},        {T_EQ, PREC_EQUALITY, OP_EQ},
    {T_NE, PREC_EQUALITY, OP_NE},      {T_LT, PREC_RELATION, OP_LT},
    {T_LE, PREC_RELATION, OP_LE},      {T_GT, PREC_RELATION, OP_GT},
    {T_GE, PREC_RELATION, OP_GE},      {T_SHL, PREC_SHIFT, OP_SHL},
    {T_SHR, PREC_SHIFT, OP_SHR},       {T_PLUS, PREC_ADD, OP_ADD},
    {T_MINUS, PREC_ADD, OP_SUB},       {T_STAR, PREC_MUL, OP_MUL},
    {T_SLASH, PREC_MUL, OP_DIV},       {T_PERCENT, PREC_MUL, OP_MOD},
};

/* Precedence climbing: operands joined by operators of at least
 * min_prec, left-associative. */
static int parse_binary(parser *ps, int min_prec)
{
  int node = parse_unary(ps);
  int last_prec = 0;
  for (;;) {
    size_t i;
    int col = ps->col, prec, op, jump, rhs;
    for (i = 0; i < sizeof(binary_ops) / sizeof(binary_ops[0]); i++)
      if (binary_ops[i].tok == ps->tok)
        break;
    if (ps->failed || i == sizeof(binary_ops) / sizeof(binary_ops[0]) ||
        binary_ops[i].prec < min_prec)
      return node;
    prec = binary_ops[i].prec;
    op = binary_ops[i].op;
    /* a < b < c means (a < b) < c in C, which is seldom what was meant */
    if (prec == last_prec && (prec == PREC_EQUALITY || prec == PREC_RELATION)) {
      fail(ps, col, "comparisons do not chain: join them with && or use "
                    "parentheses");
      return NODE_OTHER;
    }
    lex(ps);
    if (op == OP_AND_JUMP || op == OP_OR_JUMP) {
      /* the right side runs only where the left does not decide */
      jump = emit(ps, op, col, 0);
      parse_binary(ps, prec + 1);
      emit(ps, OP_BOOL, col, 0);
      patch_jump(ps, jump);
    } else {
      rhs = ps->n;
      parse_binary(ps, prec + 1);
      emit_binary(ps, op, col, rhs);
    }
    node = op == OP_DIV ? NODE_DIV : NODE_OTHER;
    last_prec = prec;
  }
}

/* c ? a : b, right-associative; only the chosen side runs. */
static int parse_conditional(parser *ps)
{
  int node, col, jump_else, jump_end;
  if (++ps->depth > MAX_DEPTH) {
    fail(ps, ps->col, "expression nested too deeply");
    return NODE_OTHER;
  }
  node = parse_binary(ps, PREC_OROR);
  if (ps->tok == T_QUESTION) {
    col = ps->col;
    lex(ps);
    jump_else = emit(ps, OP_JUMP_ZERO, col, 0);
    parse_conditional(ps);
    if (expect(ps, T_COLON, "':' of '?'") == 0) {
      jump_end = emit(ps, OP_JUMP, col, 0);
      ps->sp--; /* the other side starts from the stack before the first */
      patch_jump(ps, jump_else);
      parse_conditional(ps);
      patch_jump(ps, jump_end);
    }
    node = NODE_OTHER;
  }
  ps->depth--;
  return node;
}

/* Compiles text into ps->code (the buffer ps starts with, or the heap).
 * Returns 0, or -1 with ps->why. */
static int compile(parser *ps, const char *text)
{
  ps->text = ps->p = text;
  lex(ps);
  parse_conditional(ps);
  if (!ps->failed && ps->tok != T_END)
    fail(ps, ps->col, "unexpected text after the expression");
  emit(ps, OP_END, ps->col, 0);
  return ps->failed ? -1 : 0;
}

static void parser_init(parser *ps, tn_expr_insn *buf, int cap, char *why,
                        size_t why_len)
{
  memset(ps, 0, sizeof(*ps));
  ps->code = buf;
  ps->cap = cap;
  ps->why = why;
  ps->why_len = why_len;
}

static void parser_free(parser *ps)
{
  if (ps->on_heap)
    free(ps->code);
}

/* ---- The interface ---- */

static int one_off(const char *text, tn_expr_lookup lookup, void *ctx,
                   long long *out, char *why, size_t why_len)
{
  tn_expr_insn buf[LOCAL_CODE];
  parser ps;
  int rc;

  parser_init(&ps, buf, LOCAL_CODE, why, why_len);
  ps.lookup = lookup;
  ps.ctx = ctx;
  rc = compile(&ps, text);
  if (rc == 0 && out)
    rc = tn_expr_code_run(ps.code, NULL, out, why, why_len);
  parser_free(&ps);
  return rc;
}

int tn_expr_eval(const char *text, tn_expr_lookup lookup, void *ctx,
                 long long *out, char *why, size_t why_len)
{
  return one_off(text, lookup, ctx, out, why, why_len);
}

int tn_expr_check(const char *text, tn_expr_lookup lookup, void *ctx,
                  char *why, size_t why_len)
{
  return one_off(text, lookup, ctx, NULL, why, why_len);
}

int tn_expr_compile(const char *text, tn_expr_resolve resolve, void *ctx,
                    tn_expr **out, char *why, size_t why_len)
{
  tn_expr_insn buf[LOCAL_CODE];
  parser ps;
  tn_expr *e;

  *out = NULL;
  parser_init(&ps, buf, LOCAL_CODE, why, why_len);
  ps.resolve = resolve;
  ps.ctx = ctx;
  if (compile(&ps, text) != 0) {
    parser_free(&ps);
    return -1;
  }
  e = tn_expr_code_make(ps.code, ps.n);
  parser_free(&ps);
  if (e == NULL) {
    fail(&ps, 1, "out of memory");
    return -1;
  }
  *out = e;
  return 0;
}

int tn_expr_run(const tn_expr *e, const long long *slots, long long *out,
                char *why, size_t why_len)
{
  return tn_expr_code_run(e->code, slots, out, why, why_len);
}

int tn_expr_uses(const tn_expr *e, int slot)
{
  int i;
  for (i = 0; i < e->n_slots; i++)
    if (e->slots[i] == slot)
      return 1;
  return 0;
}

int tn_expr_slots(const tn_expr *e, const int **slots)
{
  *slots = e->slots;
  return e->n_slots;
}

int tn_expr_constant(const tn_expr *e, long long *value)
{
  char why[1];
  return e->n_slots == 0 && tn_expr_code_run(e->code, NULL, value, why, 0) == 0;
}

void tn_expr_free(tn_expr *e)
{
  free(e);
}

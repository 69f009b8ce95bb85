/* expr.c -- integer expressions for constraints in configs.
 * A recursive-descent parser that evaluates as it parses; depth is bounded
 * so hostile input cannot exhaust the stack.  && and || short-circuit as in
 * C: the side not evaluated is parsed (names must exist) but its arithmetic
 * errors (a division by zero) are not errors. */
#include "base/expr.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 64
#define MAX_IDENT 64

typedef struct {
  const char *text, *p;
  tn_expr_lookup lookup;
  void *ctx;
  int depth;
  int failed;
  int syntax_only; /* arithmetic errors are not errors: check syntax */
  int skipping;    /* > 0 inside the side of && or || not evaluated */
  char *why;
  size_t why_len;
} parser;

static long long fail(parser *ps, const char *msg)
{
  if (!ps->failed)
    snprintf(ps->why, ps->why_len, "column %d: %s",
             (int)(ps->p - ps->text) + 1, msg);
  ps->failed = 1;
  return 0;
}

/* An arithmetic error: fatal when evaluating, ignored when only checking
 * syntax.  Returns 1 if the caller must stop. */
static int arith_error(parser *ps, const char *msg)
{
  if (ps->syntax_only || ps->skipping > 0)
    return 0;
  fail(ps, msg);
  return 1;
}

static void skip_space(parser *ps)
{
  while (isspace((unsigned char)*ps->p))
    ps->p++;
}

/* Consumes tok if it comes next (after spaces). */
static int accept(parser *ps, const char *tok)
{
  size_t n = strlen(tok);
  skip_space(ps);
  if (strncmp(ps->p, tok, n) != 0)
    return 0;
  /* "<" must not eat the start of "<=", nor "=" of "==" etc. */
  if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!') &&
      ps->p[1] == '=')
    return 0;
  ps->p += n;
  return 1;
}

static long long parse_or(parser *ps);

static long long parse_primary(parser *ps)
{
  skip_space(ps);
  if (ps->failed)
    return 0;
  if (*ps->p == '(') {
    long long v;
    ps->p++;
    v = parse_or(ps);
    if (!accept(ps, ")"))
      return fail(ps, "expected ')'");
    return v;
  }
  if (isdigit((unsigned char)*ps->p)) {
    long long v = 0;
    while (isdigit((unsigned char)*ps->p)) {
      if (__builtin_mul_overflow(v, 10, &v) ||
          __builtin_add_overflow(v, *ps->p - '0', &v))
        return fail(ps, "number too large");
      ps->p++;
    }
    return v;
  }
  if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
    char name[MAX_IDENT];
    size_t n = 0;
    long long v;
    const char *start = ps->p;
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_') {
      if (n + 1 >= sizeof(name))
        return fail(ps, "name too long");
      name[n++] = *ps->p++;
    }
    name[n] = '\0';
    if (ps->lookup(ps->ctx, name, &v) != 0) {
      char msg[MAX_IDENT + 32];
      ps->p = start;
      snprintf(msg, sizeof(msg), "unknown name '%s'", name);
      return fail(ps, msg);
    }
    return v;
  }
  if (*ps->p == '\0')
    return fail(ps, "unexpected end of expression");
  return fail(ps, "unexpected character");
}

static long long parse_unary(parser *ps)
{
  long long v;
  if (++ps->depth > MAX_DEPTH)
    return fail(ps, "expression nested too deeply");
  if (accept(ps, "-")) {
    v = parse_unary(ps);
    if (v == (-9223372036854775807LL - 1))
      v = arith_error(ps, "overflow") ? 0 : v;
    else
      v = -v;
  } else if (accept(ps, "!")) {
    v = !parse_unary(ps);
  } else {
    v = parse_primary(ps);
  }
  ps->depth--;
  return v;
}

static long long parse_mul(parser *ps)
{
  long long v = parse_unary(ps);
  for (;;) {
    int op;
    long long r;
    if (accept(ps, "*"))
      op = '*';
    else if (accept(ps, "/"))
      op = '/';
    else if (accept(ps, "%"))
      op = '%';
    else
      return v;
    r = parse_unary(ps);
    if (ps->failed)
      return 0;
    if (op == '*') {
      if (__builtin_mul_overflow(v, r, &v) && arith_error(ps, "overflow"))
        return 0;
    } else if (r == 0) {
      if (arith_error(ps, "division by zero"))
        return 0;
      v = 0;
    } else if (v == (-9223372036854775807LL - 1) && r == -1) {
      if (arith_error(ps, "overflow"))
        return 0;
      v = 0;
    } else {
      v = op == '/' ? v / r : v % r;
    }
  }
}

static long long parse_add(parser *ps)
{
  long long v = parse_mul(ps);
  for (;;) {
    int add;
    long long r;
    if (accept(ps, "+"))
      add = 1;
    else if (accept(ps, "-"))
      add = 0;
    else
      return v;
    r = parse_mul(ps);
    if (ps->failed)
      return 0;
    if ((add ? __builtin_add_overflow(v, r, &v)
             : __builtin_sub_overflow(v, r, &v)) &&
        arith_error(ps, "overflow"))
      return 0;
  }
}

static long long parse_cmp(parser *ps)
{
  long long v = parse_add(ps);
  static const char *ops[] = {"==", "!=", "<=", ">=", "<", ">"};
  int i;
  for (i = 0; i < 6; i++) {
    if (accept(ps, ops[i])) {
      long long r = parse_add(ps);
      switch (i) {
      case 0:
        return v == r;
      case 1:
        return v != r;
      case 2:
        return v <= r;
      case 3:
        return v >= r;
      case 4:
        return v < r;
      default:
        return v > r;
      }
    }
  }
  return v;
}

static long long parse_and(parser *ps)
{
  long long v = parse_cmp(ps);
  while (accept(ps, "&&")) {
    long long r;
    int skip = !v; /* false && ...: the right side is not evaluated */
    ps->skipping += skip;
    r = parse_cmp(ps);
    ps->skipping -= skip;
    v = v && r;
  }
  return v;
}

static long long parse_or(parser *ps)
{
  long long v;
  if (++ps->depth > MAX_DEPTH)
    return fail(ps, "expression nested too deeply");
  v = parse_and(ps);
  while (accept(ps, "||")) {
    long long r;
    int skip = v != 0; /* true || ...: the right side is not evaluated */
    ps->skipping += skip;
    r = parse_and(ps);
    ps->skipping -= skip;
    v = v || r;
  }
  ps->depth--;
  return v;
}

static int run(const char *text, tn_expr_lookup lookup, void *ctx,
               int syntax_only, long long *out, char *why, size_t why_len)
{
  parser ps;
  long long v;

  memset(&ps, 0, sizeof(ps));
  ps.syntax_only = syntax_only;
  ps.text = ps.p = text;
  ps.lookup = lookup;
  ps.ctx = ctx;
  ps.why = why;
  ps.why_len = why_len;
  v = parse_or(&ps);
  skip_space(&ps);
  if (!ps.failed && *ps.p != '\0')
    fail(&ps, "unexpected text after the expression");
  if (ps.failed)
    return -1;
  *out = v;
  return 0;
}

int tn_expr_eval(const char *text, tn_expr_lookup lookup, void *ctx,
                 long long *out, char *why, size_t why_len)
{
  return run(text, lookup, ctx, 0, out, why, why_len);
}

int tn_expr_check(const char *text, tn_expr_lookup lookup, void *ctx,
                  char *why, size_t why_len)
{
  long long v;
  return run(text, lookup, ctx, 1, &v, why, why_len);
}

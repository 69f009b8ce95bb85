/* test_expr.c -- the expression language: values, precedence, errors with
 * their columns, the compiled form against one-off evaluation, random
 * expressions against a reference evaluator, and hostile input. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/expr.h"
#include "test_util.h"

/* ---- Names: the same values by lookup (one-off) and by slot ---- */

typedef struct {
  int n;
  const char *const *names;
  const long long *values;
} names;

static int find(const names *nm, const char *name)
{
  int i;
  for (i = 0; i < nm->n; i++)
    if (strcmp(nm->names[i], name) == 0)
      return i;
  return -1;
}

static int lookup(void *ctx, const char *name, long long *v)
{
  int i = find(ctx, name);
  if (i < 0)
    return -1;
  *v = ((const names *)ctx)->values[i];
  return 0;
}

static int resolve(void *ctx, const char *name)
{
  return find(ctx, name);
}

static const char *const fixed_names[] = {"tile", "rows", "neg", "zero",
                                          "big", "min", "lane"};
static const long long fixed_values[] = {32, 4, -7, 0, LLONG_MAX, 5, 3};
static names fixed = {7, fixed_names, fixed_values};

/* Evaluates text both ways and checks that they agree: the return code,
 * and the value or the message.  Returns the one-off form's code. */
static int eval_both(const names *nm, const char *text, long long *v,
                     char *why, size_t why_len)
{
  char why2[256] = "";
  long long v2 = -999;
  tn_expr *e;
  int rc, rc2;

  *v = -999;
  why[0] = '\0';
  rc = tn_expr_eval(text, lookup, (void *)nm, v, why, why_len);
  rc2 = tn_expr_compile(text, resolve, (void *)nm, &e, why2, sizeof(why2));
  if (rc2 == 0) {
    rc2 = tn_expr_run(e, nm->values, &v2, why2, sizeof(why2));
    tn_expr_free(e);
  } else {
    CHECK(e == NULL);
  }
  if (rc != rc2 || (rc == 0 && *v != v2) ||
      (rc != 0 && strcmp(why, why2) != 0)) {
    fprintf(stderr, "'%s': one-off %d %lld '%s', compiled %d %lld '%s'\n",
            text, rc, *v, why, rc2, v2, why2);
    CHECK(!"the two forms agree");
  }
  return rc;
}

/* ---- Tables ---- */

static void test_values(void)
{
  static const struct {
    const char *text;
    long long want;
  } good[] = {
      /* operands */
      {"42", 42}, {"  tile  ", 32}, {"0x10", 16}, {"0XfF", 255},
      {"0x7fffffffffffffff", LLONG_MAX}, {"9223372036854775807", LLONG_MAX},
      {"-9223372036854775807 - 1", LLONG_MIN}, {"(((tile)))", 32},
      /* each operator */
      {"7 * -3", -21}, {"-7 / 2", -3}, {"7 / -2", -3}, {"-7 % 2", -1},
      {"7 % -2", 1}, {"(-9223372036854775807 - 1) % -1", 0},
      {"tile + neg", 25}, {"neg - tile", -39}, {"1 << 62", 1LL << 62},
      {"-1 << 62", -(1LL << 62)}, {"neg << 3", -56}, {"tile >> 2", 8},
      {"-8 >> 1", -4}, {"-7 >> 1", -4}, {"neg >> 63", -1}, {"-1 >> 1", -1},
      {"big >> 62", 1}, {"big >> 63", 0}, {"5 << 0", 5},
      {"2 < 3", 1}, {"3 < 3", 0}, {"3 <= 3", 1}, {"4 <= 3", 0},
      {"3 > 2", 1}, {"3 > 3", 0}, {"3 >= 3", 1}, {"2 >= 3", 0},
      {"3 == 3", 1}, {"3 == 4", 0}, {"3 != 4", 1}, {"3 != 3", 0},
      {"12 & 10", 8}, {"12 | 10", 14}, {"12 ^ 10", 6}, {"neg & 0xff", 249},
      {"~0", -1}, {"~5 & 0xff", 250}, {"-~0", 1}, {"!7", 0}, {"!zero", 1},
      {"!!7", 1}, {"- -3", 3}, {"--3", 3}, {"-zero", 0},
      {"2 && 3", 1}, {"2 && 0", 0}, {"0 || 0", 0}, {"0 || -4", 1},
      {"1 ? 7 : 9", 7}, {"zero ? 7 : 9", 9},
      /* precedence, C's */
      {"1 + 2 * 3", 7}, {"(1 + 2) * 3", 9}, {"1 << 2 + 1", 8},
      {"1 + 2 << 1", 6}, {"16 >> 1 + 1", 4}, {"1 < 2 == 1", 1},
      {"2 == 2 < 3", 0}, {"6 & 3 == 3", 0}, {"1 | 2 ^ 3 & 5", 3},
      {"5 ^ 3 | 8", 14}, {"12 & 10 ^ 6", 14}, {"0 | 1 && 2", 1},
      {"1 && 0 | 2", 1}, {"1 || 0 && 0", 1}, {"0 && 0 || 1", 1},
      {"0 || 1 ? 5 : 6", 5}, {"1 ? 2 : 3 + 10", 2}, {"0 ? 2 : 3 + 10", 13},
      {"-2 * 3", -6}, {"!0 + 1", 2}, {"~1 + 1", -1}, {"-tile + 40", 8},
      {"2 < 3 & 4 > 3", 1}, {"1 << 3 < 9", 1}, {"tile % rows == 0", 1},
      {"tile * tile / rows <= 1024", 1}, {"!0 && 3 > 2 || 0", 1},
      {"2 >= 2 && 2 <= 2 && 1 < 2", 1}, {"(1 < 2) < 3", 1},
      {"(3 == 3) == 1", 1},
      /* associativity */
      {"7 - 2 - 1", 4}, {"100 / 10 / 5", 2}, {"2 << 1 << 2", 16},
      {"256 >> 2 >> 1", 32}, {"100 % 7 % 3", 2}, {"20 / 3 * 3", 18},
      {"100 / 7 % 3", 2}, {"0 ? 1 : 2 ? 3 : 4", 3}, {"1 ? 2 : 3 ? 4 : 5", 2},
      {"1 ? 0 ? 7 : 8 : 9", 8}, {"0 ? 0 : 0 ? 1 : 0 ? 2 : 3", 3},
      /* functions */
      {"min(3, 1, 2)", 1}, {"max(3, 1, 2)", 3}, {"min(-1, -5)", -5},
      {"max(4, 4)", 4}, {"min (2, 1)", 1}, {"max(neg, zero, -9)", 0},
      {"ceil_div(7, 2)", 4}, {"ceil_div(-7, 2)", -3}, {"ceil_div(7, -2)", -3},
      {"ceil_div(-7, -2)", 4}, {"ceil_div(6, 3)", 2}, {"ceil_div(-6, 3)", -2},
      {"ceil_div(0, 5)", 0}, {"ceil_div(big, 2)", 1LL << 62},
      {"ceil(7 / 2)", 4}, {"ceil(-7 / 2)", -3}, {"ceil(7 / -2)", -3},
      {"ceil(-7 / -2)", 4}, {"floor(7 / 2)", 3}, {"floor(-7 / 2)", -4},
      {"floor(7 / -2)", -4}, {"floor(-7 / -2)", 3}, {"floor(-6 / 3)", -2},
      {"ceil((1 + 6) / 2)", 4}, {"ceil((7 / 2))", 4},
      {"ceil(tile / (rows * 3))", 3}, {"floor(-tile / 5)", -7},
      {"ceil(-tile / 5)", -6}, {"ceil(big / 2)", 1LL << 62},
      {"floor((-9223372036854775807 - 1) / 3)", LLONG_MIN / 3 - 1},
      {"ceil(tile / rows * 2 / 3)", 6}, {"abs(-5)", 5}, {"abs(0)", 0},
      {"abs(5)", 5}, {"abs(-big)", LLONG_MAX}, {"log2(1)", 0},
      {"log2(2)", 1}, {"log2(3)", 1}, {"log2(1024)", 10}, {"log2(big)", 62},
      {"is_pow2(0)", 0}, {"is_pow2(1)", 1}, {"is_pow2(64)", 1},
      {"is_pow2(96)", 0}, {"is_pow2(-4)", 0}, {"is_pow2(1 << 62)", 1},
      {"is_pow2(-9223372036854775807 - 1)", 0},
      /* a function's name not followed by ( is a name */
      {"min + 1", 6}, {"min * max(1, 2)", 10}, {"min(min, 2)", 2},
      /* the side not evaluated of && || ?: may fail */
      {"rows == 4 || tile / 0 >= 16", 1}, {"rows != 4 && tile / 0 >= 16", 0},
      {"rows == 4 || tile % 0", 1}, {"0 && 9223372036854775807 + 1", 0},
      {"1 || 0 && tile / 0", 1}, {"(0 && tile / 0) || rows == 4", 1},
      {"rows != 4 && (1 || tile / 0)", 0}, {"1 || (0 || tile / 0)", 1},
      {"0 ? tile / 0 : 1", 1}, {"1 ? 2 : tile / 0", 2},
      {"1 ? 2 : log2(0)", 2}, {"zero ? 1 << 99 : 3", 3},
      {"0 && abs(-9223372036854775807 - 1)", 0},
      {"1 ? 2 : 0 ? 3 : ceil(1 / 0)", 2}, {"rows ? tile : 1 / 0", 32},
  };
  char why[256];
  long long v;
  size_t i;
  for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
    int rc = eval_both(&fixed, good[i].text, &v, why, sizeof(why));
    if (rc != 0 || v != good[i].want)
      fprintf(stderr, "'%s' gave %lld (%s), expected %lld\n", good[i].text,
              v, rc ? why : "ok", good[i].want);
    CHECK(rc == 0 && v == good[i].want);
  }
}

static void test_errors(void)
{
  static const struct {
    const char *text, *why;
  } bad[] = {
      /* arithmetic, at the operator */
      {"tile / 0", "column 6: division by zero"},
      {"tile % (rows - 4)", "column 6: division by zero"},
      {"tile / (rows - 4)", "column 6: division by zero"},
      {"9223372036854775807 + 1", "column 21: overflow"},
      {"-9223372036854775807 - 2", "column 22: overflow"},
      {"3037000500 * 3037000500", "column 12: overflow"},
      {"(-9223372036854775807 - 1) / -1", "column 28: overflow"},
      {"-(-9223372036854775807 - 1)", "column 1: overflow"},
      {"1 << 63", "column 3: shift count 63 is out of range 0..62"},
      {"1 << -1", "column 3: shift count -1 is out of range 0..62"},
      {"1 >> 64", "column 3: shift count 64 is out of range 0..63"},
      {"tile - 16 >> 99", "column 11: shift count 99 is out of range 0..63"},
      {"3 << 62", "column 3: overflow"},
      {"abs(-9223372036854775807 - 1)", "column 1: overflow"},
      {"log2(0)", "column 1: log2 of 0: the argument must be positive"},
      {"log2(neg)", "column 1: log2 of -7: the argument must be positive"},
      {"ceil_div(5, 0)", "column 1: division by zero"},
      {"ceil_div(-9223372036854775807 - 1, -1)", "column 1: overflow"},
      {"ceil(5 / 0)", "column 8: division by zero"},
      {"floor((-9223372036854775807 - 1) / -1)", "column 34: overflow"},
      {"min(1, 2 + ceil(9 / 0))", "column 19: division by zero"},
      /* the side evaluated still fails */
      {"rows == 4 && tile / 0", "column 19: division by zero"},
      {"0 ? 2 : 3 / 0 + 1", "column 11: division by zero"},
      {"0 ? 1 : 3 / (rows - 4)", "column 11: division by zero"},
      {"rows != 4 || tile / 0 >= 16", "column 19: division by zero"},
      {"0 || tile % 0", "column 11: division by zero"},
      {"1 && 9223372036854775807 + 1", "column 26: overflow"},
      {"0 && 1 || tile / 0", "column 16: division by zero"},
      {"(1 || tile / 0) && tile / 0", "column 25: division by zero"},
      /* syntax and names, before any arithmetic */
      {"", "column 1: unexpected end of expression"},
      {"   ", "column 4: unexpected end of expression"},
      {"1 +", "column 4: unexpected end of expression"},
      {"(1 + 2", "column 7: expected ')' before the end"},
      {"1 2", "column 3: unexpected text after the expression"},
      {")", "column 1: expected a number, a name or '('"},
      {"1 +* 2", "column 4: expected a number, a name or '('"},
      {"unknown > 1", "column 1: unknown name 'unknown'"},
      {"tile + nope", "column 8: unknown name 'nope'"},
      {"1 / 0 + nope", "column 9: unknown name 'nope'"},
      {"1 || nope", "column 6: unknown name 'nope'"},
      {"0 && nope", "column 6: unknown name 'nope'"},
      {"1 ? 2 : nope", "column 9: unknown name 'nope'"},
      {"a = 1", "column 1: unknown name 'a'"},
      {"tile = 1", "column 6: '=' is not an operator (equality is '==')"},
      {"1 $ 2", "column 3: unexpected character '$'"},
      {"1 \x01 2", "column 3: unexpected byte 0x01"},
      {"99999999999999999999", "column 1: number too large for 64 bits"},
      {"9223372036854775808", "column 1: number too large for 64 bits"},
      {"0 && 99999999999999999999", "column 6: number too large for 64 bits"},
      {"0x10000000000000000", "column 1: number too large for 64 bits"},
      {"12abc", "column 1: malformed number"},
      {"0x", "column 1: malformed number"},
      {"1 < 2 < 3", "column 7: comparisons do not chain: join them with && "
                    "or use parentheses"},
      {"1 == 1 != 0", "column 8: comparisons do not chain: join them with "
                      "&& or use parentheses"},
      {"1 ? 2", "column 6: expected ':' of '?' before the end"},
      {"1 ? 2 , 3", "column 7: expected ':' of '?'"},
      {"min(1, 2", "column 9: expected ')' or ',' before the end"},
      {"min(1)", "column 1: min() takes 2 or more arguments"},
      {"max()", "column 1: max() takes 2 or more arguments"},
      {"abs(1, 2)", "column 1: abs() takes 1 argument"},
      {"log2()", "column 1: log2() takes 1 argument"},
      {"ceil_div(1)", "column 1: ceil_div() takes 2 arguments"},
      {"ceil(7)", "column 1: ceil() takes a division: ceil(a / b)"},
      {"ceil(7 / 2 + 1)", "column 1: ceil() takes a division: ceil(a / b)"},
      {"ceil(7 + 2 / 1)", "column 1: ceil() takes a division: ceil(a / b)"},
      {"ceil(7 % 2)", "column 1: ceil() takes a division: ceil(a / b)"},
      {"ceil(-(7 / 2))", "column 1: ceil() takes a division: ceil(a / b)"},
      {"ceil(ceil(7 / 2))",
       "column 1: ceil() takes a division: ceil(a / b)"},
      {"ceil(1 ? 4 / 2 : 6 / 3)",
       "column 1: ceil() takes a division: ceil(a / b)"},
      {"1 + floor(7)", "column 5: floor() takes a division: floor(a / b)"},
      {"tile(3)", "column 1: 'tile' is not a function (functions: min, "
                  "max, ceil_div, abs, log2, is_pow2, ceil, floor)"},
      {"a_name_of_sixty_four_characters_is_one_too_long_for_expressions_",
       "column 1: name longer than 63 characters"},
      {"((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))",
       "column 33: expression nested too deeply"},
  };
  char why[256];
  long long v;
  size_t i;
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    int rc = eval_both(&fixed, bad[i].text, &v, why, sizeof(why));
    if (rc == 0 || strcmp(why, bad[i].why) != 0)
      fprintf(stderr, "'%s' gave %d '%s' (%lld), expected '%s'\n",
              bad[i].text, rc, why, v, bad[i].why);
    CHECK(rc != 0 && strcmp(why, bad[i].why) == 0);
  }
  /* a 63-character name is allowed (and unknown here) */
  CHECK(eval_both(&fixed,
                  "a_name_of_sixty_three_characters_is_the_longest_allowed__"
                  "xxxxxx", &v, why, sizeof(why)) != 0);
  CHECK(strstr(why, "unknown name") != NULL);
}

/* tn_expr_check: names and syntax, whatever the values. */
static void test_check(void)
{
  static const char *fine[] = {"tile / (rows - 4)", "1 << 99", "log2(0)",
                               "ceil(1 / 0)", "abs(-9223372036854775807 - 1)",
                               "9223372036854775807 + 1"};
  static const char *wrong[] = {"tile / nope", "ceil(7)", "1 < 2 < 3",
                                "min(1)", "(1", "1 ? 2"};
  char why[256];
  size_t i;
  for (i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
    CHECK(tn_expr_check(fine[i], lookup, &fixed, why, sizeof(why)) == 0);
  for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++)
    CHECK(tn_expr_check(wrong[i], lookup, &fixed, why, sizeof(why)) != 0);
  CHECK(tn_expr_check("tile / nope", lookup, &fixed, why, sizeof(why)) != 0);
  CHECK(strcmp(why, "column 8: unknown name 'nope'") == 0);
}

/* The compiled form's own functions: slots used, constants, reuse. */
static void test_compiled(void)
{
  static const char *const plan_names[] = {"warp", "lane", "block_x",
                                           "i", "block_y", "unused"};
  static const names plan = {6, plan_names, NULL};
  tn_expr *e;
  const int *slots;
  long long v, values[6] = {0, 0, 32, 0, 2, 0};
  char why[256];
  int warp, lane, n;

  CHECK(tn_expr_compile("(warp * 32 + lane) / block_x + i * block_y",
                        resolve, (void *)&plan, &e, why, sizeof(why)) == 0);
  CHECK(tn_expr_uses(e, 0) && tn_expr_uses(e, 1) && tn_expr_uses(e, 4));
  CHECK(!tn_expr_uses(e, 5) && !tn_expr_uses(e, 6) && !tn_expr_uses(e, -1));
  n = tn_expr_slots(e, &slots);
  CHECK_EQ_INT(n, 5);
  CHECK(n == 5 && slots[0] == 0 && slots[1] == 1 && slots[2] == 2 &&
        slots[3] == 3 && slots[4] == 4);
  CHECK(tn_expr_constant(e, &v) == 0);
  /* the same code over changing values */
  for (warp = 0; warp < 4; warp++) {
    for (lane = 0; lane < 32; lane++) {
      values[0] = warp;
      values[1] = lane;
      values[3] = lane % 3;
      CHECK(tn_expr_run(e, values, &v, why, sizeof(why)) == 0);
      CHECK_EQ_INT(v, (warp * 32 + lane) / 32 + lane % 3 * 2);
    }
  }
  values[2] = 0;
  CHECK(tn_expr_run(e, values, &v, why, sizeof(why)) != 0);
  CHECK(strcmp(why, "column 20: division by zero") == 0);
  tn_expr_free(e);

  /* both sides of ?: are read, each name once */
  CHECK(tn_expr_compile("lane ? block_y + lane : warp * lane", resolve,
                        (void *)&plan, &e, why, sizeof(why)) == 0);
  n = tn_expr_slots(e, &slots);
  CHECK(n == 3 && slots[0] == 0 && slots[1] == 1 && slots[2] == 4);
  tn_expr_free(e);

  /* constants */
  CHECK(tn_expr_compile("ceil(100 / 7) * 2", resolve, (void *)&plan, &e,
                        why, sizeof(why)) == 0);
  CHECK(tn_expr_slots(e, &slots) == 0);
  CHECK(tn_expr_constant(e, &v) == 1 && v == 30);
  tn_expr_free(e);
  CHECK(tn_expr_compile("1 / 0", resolve, (void *)&plan, &e, why,
                        sizeof(why)) == 0);
  CHECK(tn_expr_constant(e, &v) == 0);
  tn_expr_free(e);

  /* compile errors leave nothing to free */
  e = (tn_expr *)&plan;
  CHECK(tn_expr_compile("lane +", resolve, (void *)&plan, &e, why,
                        sizeof(why)) != 0 && e == NULL);
  CHECK(tn_expr_compile("nope", resolve, (void *)&plan, &e, why,
                        sizeof(why)) != 0 && e == NULL);
  CHECK(strcmp(why, "column 1: unknown name 'nope'") == 0);
}

/* ---- Random expressions against a reference evaluator ----
 * The generator builds a tree, prints it with the parentheses C's
 * precedence needs (and some it does not), and evaluates it with 128-bit
 * arithmetic, recording the column of the first operator that fails. */

enum { N_LEAF, N_VAR, N_UNARY, N_BINARY, N_COND, N_CALL };
enum { F_MIN, F_MAX, F_CEIL_DIV, F_ABS, F_LOG2, F_IS_POW2, F_CEIL, F_FLOOR,
       N_FN };

typedef struct node {
  int kind, op, n_kids, col;
  long long value; /* a literal, or the variable's index */
  struct node *kid[4];
} node;

#define N_VARS 6
static const char *const var_names[N_VARS] = {"v0", "v1", "lane", "x_2",
                                              "min", "ceil"};
static const char *const fn_names[N_FN] = {
    "min", "max", "ceil_div", "abs", "log2", "is_pow2", "ceil", "floor"};
static const char *const binary_text[] = {
    "||", "&&", "|", "^", "&", "==", "!=", "<", "<=", ">", ">=", "<<", ">>",
    "+",  "-",  "*", "/", "%"};
static const int binary_prec[] = {1, 2, 3, 4, 5, 6, 6, 7, 7, 7,
                                  7, 8, 8, 9, 9, 10, 10, 10};
enum { B_OROR, B_ANDAND, B_OR, B_XOR, B_AND, B_EQ, B_NE, B_LT, B_LE, B_GT,
       B_GE, B_SHL, B_SHR, B_ADD, B_SUB, B_MUL, B_DIV, B_MOD, N_BINARY_OPS };

static unsigned long long rng_state = 0x2545f4914f6cdd1dULL;

static unsigned long long rng(void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ULL;
}

static int below(int n)
{
  return (int)(rng() % (unsigned)n);
}

/* Values that reach every branch: small, powers of two, extremes. */
static long long random_value(int negative)
{
  int r = below(100);
  long long v;
  if (r < 45)
    v = below(17) - 8;
  else if (r < 60)
    v = below(71);
  else if (r < 75)
    v = 1LL << below(63);
  else if (r < 85)
    v = LLONG_MAX - below(3);
  else if (r < 92)
    v = (long long)(rng() >> 1);
  else
    v = below(2001) - 1000;
  if (negative && below(4) == 0)
    v = -v - below(2);
  return v;
}

static node pool[4096];
static int pool_used;

static node *new_node(int kind)
{
  node *n = &pool[pool_used++];
  memset(n, 0, sizeof(*n));
  n->kind = kind;
  return n;
}

static node *gen(int depth);

static node *gen_binary(int depth, int op)
{
  node *n = new_node(N_BINARY);
  n->op = op;
  n->n_kids = 2;
  n->kid[0] = gen(depth - 1);
  if ((op == B_SHL || op == B_SHR) && below(10) < 7) {
    n->kid[1] = new_node(N_LEAF); /* mostly in range */
    n->kid[1]->value = below(64);
  } else {
    n->kid[1] = gen(depth - 1);
  }
  return n;
}

static node *gen(int depth)
{
  node *n;
  int r = below(100), i;
  if (depth <= 0 || r < 20 || pool_used > 4000) {
    n = new_node(below(2) ? N_VAR : N_LEAF);
    n->value = n->kind == N_VAR ? below(N_VARS) : random_value(0);
    if (n->value < 0)
      n->value = -n->value; /* a literal: - is an operator */
    return n;
  }
  if (r < 60)
    return gen_binary(depth, below(N_BINARY_OPS));
  if (r < 70) {
    n = new_node(N_UNARY);
    n->op = "-!~"[below(3)];
    n->n_kids = 1;
    n->kid[0] = gen(depth - 1);
    return n;
  }
  if (r < 80) {
    n = new_node(N_COND);
    n->n_kids = 3;
    for (i = 0; i < 3; i++)
      n->kid[i] = gen(depth - 1);
    return n;
  }
  n = new_node(N_CALL);
  n->op = below(N_FN);
  n->n_kids = n->op == F_MIN || n->op == F_MAX ? 2 + below(3)
              : n->op == F_CEIL_DIV ? 2 : 1;
  if (n->op == F_CEIL || n->op == F_FLOOR)
    n->kid[0] = gen_binary(depth - 1, B_DIV);
  else
    for (i = 0; i < n->n_kids; i++)
      n->kid[i] = gen(depth - 1);
  return n;
}

/* Precedence as printed: ?: 0, binary 1..10, unary 11, atoms 12. */
static int prec(const node *n)
{
  switch (n->kind) {
  case N_COND:
    return 0;
  case N_BINARY:
    return binary_prec[n->op];
  case N_UNARY:
    return 11;
  default:
    return 12;
  }
}

typedef struct {
  char text[16384];
  size_t len;
} printer;

static void put(printer *p, const char *s)
{
  size_t n = strlen(s);
  if (p->len + n < sizeof(p->text)) {
    memcpy(p->text + p->len, s, n + 1);
    p->len += n;
  }
}

static void print_node(printer *p, node *n);

static void print_kid(printer *p, node *kid, int parens)
{
  if (!parens && below(12) == 0)
    parens = 1; /* parentheses that change nothing */
  if (parens)
    put(p, "(");
  print_node(p, kid);
  if (parens)
    put(p, ")");
}

static void put_op(printer *p, node *n, const char *op)
{
  int spaced = below(4) != 0;
  if (spaced)
    put(p, " ");
  n->col = (int)p->len + 1;
  put(p, op);
  if (spaced)
    put(p, " ");
}

static void print_node(printer *p, node *n)
{
  char buf[32];
  int i, pr = prec(n);
  switch (n->kind) {
  case N_LEAF:
    snprintf(buf, sizeof(buf), below(5) == 0 ? "%#llx" : "%lld",
             (unsigned long long)n->value);
    if (n->value == 0)
      snprintf(buf, sizeof(buf), "0");
    put(p, buf);
    break;
  case N_VAR:
    put(p, var_names[n->value]);
    break;
  case N_UNARY:
    n->col = (int)p->len + 1;
    buf[0] = (char)n->op;
    buf[1] = '\0';
    put(p, buf);
    print_kid(p, n->kid[0], prec(n->kid[0]) < 11);
    break;
  case N_BINARY:
    /* left-associative; comparisons of one level do not chain */
    print_kid(p, n->kid[0],
              prec(n->kid[0]) < pr ||
                  (prec(n->kid[0]) == pr && (pr == 6 || pr == 7)));
    put_op(p, n, binary_text[n->op]);
    print_kid(p, n->kid[1], prec(n->kid[1]) <= pr);
    break;
  case N_COND:
    print_kid(p, n->kid[0], prec(n->kid[0]) == 0);
    put_op(p, n, "?");
    print_kid(p, n->kid[1], 0);
    put(p, " : ");
    print_kid(p, n->kid[2], 0);
    break;
  case N_CALL:
    n->col = (int)p->len + 1;
    put(p, fn_names[n->op]);
    put(p, "(");
    for (i = 0; i < n->n_kids; i++) {
      if (i > 0)
        put(p, ", ");
      if (n->op == F_CEIL || n->op == F_FLOOR)
        print_node(p, n->kid[i]); /* the division itself */
      else
        print_kid(p, n->kid[i], 0);
    }
    put(p, ")");
    break;
  }
}

typedef struct {
  int failed;
  long long value;
  char why[128];
} outcome;

static int ref_fail(outcome *o, int col, const char *msg, long long arg)
{
  char text[96];
  snprintf(text, sizeof(text), msg, arg);
  snprintf(o->why, sizeof(o->why), "column %d: %s", col, text);
  o->failed = 1;
  return -1;
}

static int fits(__int128 x)
{
  return x >= LLONG_MIN && x <= LLONG_MAX;
}

/* floor(a / b) for b != 0, from positive divisions only */
static __int128 floor_div(__int128 a, __int128 b)
{
  if (b < 0) {
    a = -a;
    b = -b;
  }
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int ref_eval(const node *n, const long long *vars, outcome *o,
                    long long *out);

/* Evaluates a division node's operands and divides with the rounding
 * asked for: 't' truncates, 'c' rounds up, 'f' down. */
static int ref_divide(const node *n, const long long *vars, outcome *o,
                      int rounding, long long *out)
{
  long long a, b;
  __int128 q;
  if (ref_eval(n->kid[0], vars, o, &a) || ref_eval(n->kid[1], vars, o, &b))
    return -1;
  if (b == 0)
    return ref_fail(o, n->col, "division by zero", 0);
  q = rounding == 't' ? (__int128)a / b
      : rounding == 'f' ? floor_div(a, b) : -floor_div(-(__int128)a, b);
  if (!fits(q))
    return ref_fail(o, n->col, "overflow", 0);
  *out = (long long)q;
  return 0;
}

static int ref_binary(const node *n, const long long *vars, outcome *o,
                      long long *out)
{
  long long a, b;
  __int128 r;
  if (n->op == B_DIV)
    return ref_divide(n, vars, o, 't', out);
  if (ref_eval(n->kid[0], vars, o, &a))
    return -1;
  if (n->op == B_OROR || n->op == B_ANDAND) {
    if ((n->op == B_OROR) == (a != 0)) {
      *out = a != 0;
      return 0;
    }
    if (ref_eval(n->kid[1], vars, o, &b))
      return -1;
    *out = b != 0;
    return 0;
  }
  if (ref_eval(n->kid[1], vars, o, &b))
    return -1;
  switch (n->op) {
  case B_OR: r = a | b; break;
  case B_XOR: r = a ^ b; break;
  case B_AND: r = a & b; break;
  case B_EQ: r = a == b; break;
  case B_NE: r = a != b; break;
  case B_LT: r = a < b; break;
  case B_LE: r = a <= b; break;
  case B_GT: r = a > b; break;
  case B_GE: r = a >= b; break;
  case B_SHL:
    if (b < 0 || b > 62)
      return ref_fail(o, n->col, "shift count %lld is out of range 0..62", b);
    r = (__int128)a * ((__int128)1 << b);
    break;
  case B_SHR:
    if (b < 0 || b > 63)
      return ref_fail(o, n->col, "shift count %lld is out of range 0..63", b);
    r = floor_div(a, (__int128)1 << b);
    break;
  case B_ADD: r = (__int128)a + b; break;
  case B_SUB: r = (__int128)a - b; break;
  case B_MUL: r = (__int128)a * b; break;
  default: /* B_MOD */
    if (b == 0)
      return ref_fail(o, n->col, "division by zero", 0);
    r = (__int128)a % b;
    break;
  }
  if (!fits(r))
    return ref_fail(o, n->col, "overflow", 0);
  *out = (long long)r;
  return 0;
}

static int ref_eval(const node *n, const long long *vars, outcome *o,
                    long long *out)
{
  long long a, b = 0;
  int i;
  switch (n->kind) {
  case N_LEAF:
    *out = n->value;
    return 0;
  case N_VAR:
    *out = vars[n->value];
    return 0;
  case N_UNARY:
    if (ref_eval(n->kid[0], vars, o, &a))
      return -1;
    if (n->op == '-' && !fits(-(__int128)a))
      return ref_fail(o, n->col, "overflow", 0);
    *out = n->op == '-' ? -a : n->op == '!' ? !a : ~a;
    return 0;
  case N_BINARY:
    return ref_binary(n, vars, o, out);
  case N_COND:
    if (ref_eval(n->kid[0], vars, o, &a))
      return -1;
    return ref_eval(n->kid[a ? 1 : 2], vars, o, out);
  default: /* N_CALL */
    if (n->op == F_CEIL || n->op == F_FLOOR)
      return ref_divide(n->kid[0], vars, o, n->op == F_CEIL ? 'c' : 'f',
                        out);
    if (ref_eval(n->kid[0], vars, o, &a))
      return -1;
    for (i = 1; i < n->n_kids; i++) {
      if (ref_eval(n->kid[i], vars, o, &b))
        return -1;
      if (n->op == F_MIN ? b < a : n->op == F_MAX ? b > a : 0)
        a = b;
    }
    if (n->op == F_CEIL_DIV) {
      if (b == 0)
        return ref_fail(o, n->col, "division by zero", 0);
      if (!fits(-floor_div(-(__int128)a, b)))
        return ref_fail(o, n->col, "overflow", 0);
      a = (long long)-floor_div(-(__int128)a, b);
    } else if (n->op == F_ABS) {
      if (!fits(a < 0 ? -(__int128)a : a))
        return ref_fail(o, n->col, "overflow", 0);
      a = a < 0 ? -a : a;
    } else if (n->op == F_LOG2) {
      int k = 0;
      if (a <= 0)
        return ref_fail(o, n->col,
                        "log2 of %lld: the argument must be positive", a);
      while (a > 1) {
        a /= 2;
        k++;
      }
      a = k;
    } else if (n->op == F_IS_POW2) {
      int bits = 0;
      for (i = 0; i < 64; i++)
        bits += a > 0 && ((unsigned long long)a >> i & 1);
      a = bits == 1;
    }
    *out = a;
    return 0;
  }
}

static void mark_vars(const node *n, int *used)
{
  int i;
  if (n->kind == N_VAR)
    used[n->value] = 1;
  for (i = 0; i < n->n_kids; i++)
    mark_vars(n->kid[i], used);
}

/* e specialized to vals with a random half of the variables fixed gives
 * what e gives, value or error, over new values of the others; returns 1
 * if it could be specialized. */
static int check_specialized(const tn_expr *e, const char *text,
                             const long long *vals)
{
  unsigned char varying[N_VARS];
  tn_expr *s;
  int i, round;
  for (i = 0; i < N_VARS; i++)
    varying[i] = (unsigned char)below(2);
  s = tn_expr_specialize(e, vals, varying, N_VARS);
  if (s == NULL)
    return 0;
  for (round = 0; round < 3; round++) {
    long long now[N_VARS], a = -999, b = -999;
    char wa[256] = "", wb[256] = "";
    int ra, rb;
    for (i = 0; i < N_VARS; i++)
      now[i] = varying[i] && round > 0 ? random_value(1) : vals[i];
    ra = tn_expr_run(e, now, &a, wa, sizeof(wa));
    rb = tn_expr_run(s, now, &b, wb, sizeof(wb));
    if (ra != rb || (ra == 0 && a != b) || (ra != 0 && strcmp(wa, wb))) {
      fprintf(stderr, "'%s' specialized, over", text);
      for (i = 0; i < N_VARS; i++)
        fprintf(stderr, " %s=%lld%s", var_names[i], now[i],
                varying[i] ? "" : " (fixed)");
      fprintf(stderr, ": %d %lld '%s', whole %d %lld '%s'\n", rb, b, wb, ra,
              a, wa);
      CHECK(!"a specialized expression runs as the whole one");
    }
  }
  for (i = 0; i < N_VARS; i++)
    if (!varying[i])
      CHECK(!tn_expr_uses(s, i)); /* a fixed slot is read no more */
  tn_expr_free(s);
  return 1;
}

/* e run over 32 lanes at once, v0 and lane differing from lane to lane
 * and the others shared, gives each lane the value or the failure of
 * its own run; returns 1 if it could run so. */
static int check_lanes(const tn_expr *e, const char *text,
                       const long long *vals)
{
  long long v0[TN_EXPR_LANES], lane[TN_EXPR_LANES], out[TN_EXPR_LANES];
  const long long *lanes[N_VARS] = {v0, NULL, lane, NULL, NULL, NULL};
  unsigned failed = 0;
  int l, i;
  for (l = 0; l < TN_EXPR_LANES; l++) {
    v0[l] = l < 4 ? vals[0] : random_value(1);
    lane[l] = l < 8 ? l : random_value(1);
  }
  if (tn_expr_run_lanes(e, vals, lanes, N_VARS, TN_EXPR_LANES, out,
                        &failed) != 0)
    return 0;
  for (l = 0; l < TN_EXPR_LANES; l++) {
    long long now[N_VARS], want = -999;
    char why[256];
    int rc;
    for (i = 0; i < N_VARS; i++)
      now[i] = lanes[i] ? lanes[i][l] : vals[i];
    rc = tn_expr_run(e, now, &want, why, sizeof(why));
    if ((rc != 0) != ((failed >> l) & 1) || (rc == 0 && want != out[l])) {
      fprintf(stderr, "'%s' lane %d (v0=%lld lane=%lld): lanes %s %lld, "
                      "alone %d %lld '%s'\n",
              text, l, v0[l], lane[l],
              (failed >> l) & 1 ? "failed" : "gave", out[l], rc, want,
              rc ? why : "");
      CHECK(!"a lane of a batch runs as it runs alone");
    }
  }
  return 1;
}

static void test_random(void)
{
  static const names vars_names = {N_VARS, var_names, NULL};
  static printer p;
  int expr, round, errors = 0, values = 0, kinds[5] = {0};
  int specialized = 0, tried = 0, batched = 0;
  static const char *const kind_text[5] = {
      "overflow", "division by zero", "shift count", "log2 of", "column"};

  for (expr = 0; expr < 400; expr++) {
    node *root;
    tn_expr *e;
    char why[256];
    const int *slots;
    int used[N_VARS] = {0}, n, i, k;
    long long constant;

    pool_used = 0;
    root = gen(1 + below(5));
    p.len = 0;
    p.text[0] = '\0';
    print_node(&p, root);
    if (tn_expr_compile(p.text, resolve, (void *)&vars_names, &e, why,
                        sizeof(why)) != 0) {
      fprintf(stderr, "'%s' did not compile: %s\n", p.text, why);
      CHECK(!"a random expression compiles");
      continue;
    }
    /* the slots it reads are the variables anywhere in it */
    mark_vars(root, used);
    n = tn_expr_slots(e, &slots);
    for (i = 0, k = 0; i < N_VARS; i++) {
      CHECK_EQ_INT(tn_expr_uses(e, i), used[i]);
      if (used[i])
        CHECK(k < n && slots[k++] == i);
    }
    CHECK_EQ_INT(k, n);
    for (round = 0; round < 4; round++) {
      long long vals[N_VARS], got = -999, v1 = -999, want = -999;
      char why1[256] = "";
      outcome o = {0, 0, ""};
      int rc, rc1;
      names with = {N_VARS, var_names, vals};
      for (i = 0; i < N_VARS; i++)
        vals[i] = random_value(1);
      why[0] = '\0';
      rc = tn_expr_run(e, vals, &got, why, sizeof(why));
      rc1 = tn_expr_eval(p.text, lookup, &with, &v1, why1, sizeof(why1));
      ref_eval(root, vals, &o, &want);
      if (rc != rc1 || (rc == 0 && got != v1) ||
          (rc != 0 && strcmp(why, why1) != 0) || (rc != 0) != o.failed ||
          (rc == 0 && got != want) || (rc != 0 && strcmp(why, o.why) != 0)) {
        fprintf(stderr, "'%s' over", p.text);
        for (i = 0; i < N_VARS; i++)
          fprintf(stderr, " %s=%lld", var_names[i], vals[i]);
        fprintf(stderr, ": compiled %d %lld '%s', one-off %d %lld '%s', "
                        "reference %lld '%s'\n",
                rc, got, why, rc1, v1, why1, want, o.why);
        CHECK(!"compiled, one-off and reference agree");
      }
      if (rc == 0) {
        values++;
      } else {
        errors++;
        for (i = 0; i < 4 && strstr(why, kind_text[i]) == NULL; i++)
          ;
        kinds[i]++;
      }
      if (n == 0) {
        CHECK_EQ_INT(tn_expr_constant(e, &constant), rc == 0);
        CHECK(rc != 0 || constant == got);
      }
      specialized += check_specialized(e, p.text, vals);
      batched += check_lanes(e, p.text, vals);
      tried++;
    }
    tn_expr_free(e);
  }
  printf("specialized: %d of %d; run by lanes %d\n", specialized, tried,
         batched);
  /* the expressions without a condition run by lanes */
  CHECK(batched > tried / 4);
  /* most have no condition on a varying slot, nor a failing fixed part */
  CHECK(specialized > tried / 3);
  printf("random: %d values, %d errors (overflow %d, division by zero %d, "
         "shift %d, log2 %d, other %d)\n",
         values, errors, kinds[0], kinds[1], kinds[2], kinds[3], kinds[4]);
  /* the table reaches values and every kind of error */
  CHECK(values > 400 && kinds[0] > 10 && kinds[1] > 10 && kinds[2] > 10 &&
        kinds[3] > 10 && kinds[4] == 0);
}

/* ---- Hostile input: errors, never a crash ---- */

/* head, then n copies of unit, then tail, in a new string. */
static char *repeat(const char *head, const char *unit, int n,
                    const char *tail)
{
  size_t lh = strlen(head), lu = strlen(unit), lt = strlen(tail);
  char *s = malloc(lh + lu * (size_t)n + lt + 1), *at;
  int i;
  if (s == NULL)
    abort();
  memcpy(s, head, lh);
  at = s + lh;
  for (i = 0; i < n; i++, at += lu)
    memcpy(at, unit, lu);
  memcpy(at, tail, lt + 1);
  return s;
}

static void expect_error(const char *text, const char *want)
{
  char why[256];
  long long v;
  int rc = eval_both(&fixed, text, &v, why, sizeof(why));
  if (rc == 0 || strstr(why, want) == NULL)
    fprintf(stderr, "'%.60s...' gave %d '%s', expected '%s'\n", text, rc,
            why, want);
  CHECK(rc != 0 && strstr(why, want) != NULL);
}

static void expect_value(const char *text, long long want)
{
  char why[256];
  long long v;
  int rc = eval_both(&fixed, text, &v, why, sizeof(why));
  if (rc != 0 || v != want)
    fprintf(stderr, "'%.60s...' gave %d %lld '%s', expected %lld\n", text,
            rc, v, why, want);
  CHECK(rc == 0 && v == want);
}

static void test_hostile(void)
{
  static const char alphabet[] = "()?:,|&^<>=!~+-*/% 0123456789xabmin_l";
  char *s, *t, text[48], why[256], tiny[8];
  long long v;
  int i, j, n;

  /* nesting of every kind stops at a limit */
  s = repeat("", "(", 10000, "1");
  expect_error(s, "nested too deeply");
  free(s);
  s = repeat("", "-", 10000, "1");
  expect_error(s, "nested too deeply");
  free(s);
  s = repeat("", "1 ? ", 10000, "1");
  expect_error(s, "nested too deeply");
  free(s);
  s = repeat("", "min(1, ", 10000, "1");
  expect_error(s, "nested too deeply");
  free(s);
  /* the deepest stack: every binary level pending in each parenthesis */
  s = repeat("", "1 | 1 ^ 1 & 1 == 1 < 1 << 1 + 1 * (", 31, "1");
  t = repeat(s, ")", 31, "");
  expect_value(t, 1);
  free(t);
  free(s);
  /* long and wide, but shallow, is fine */
  s = repeat("1", " + 1", 99999, "");
  expect_value(s, 100000);
  free(s);
  s = repeat("min(7", ", 7", 9999, ", -1)");
  expect_value(s, -1);
  free(s);
  s = repeat("0", " || 0", 20000, " || tile");
  expect_value(s, 1);
  free(s);
  /* long names and numbers */
  s = repeat("", "n", 10000, "");
  expect_error(s, "column 1: name longer than 63 characters");
  free(s);
  s = repeat("1 + ", "9", 1000, "");
  expect_error(s, "column 5: number too large for 64 bits");
  free(s);
  s = repeat("0x", "f", 1000, "");
  expect_error(s, "number too large for 64 bits");
  free(s);
  s = repeat("", "0", 1000, "42");
  expect_value(s, 42);
  free(s);
  /* every byte, alone and between operands */
  for (i = 1; i < 256; i++) {
    snprintf(text, sizeof(text), "%c", i);
    eval_both(&fixed, text, &v, why, sizeof(why));
    CHECK(why[0] != '\0' || (i >= '0' && i <= '9'));
    snprintf(text, sizeof(text), "1 %c 2", i);
    if (eval_both(&fixed, text, &v, why, sizeof(why)) != 0)
      CHECK(strncmp(why, "column ", 7) == 0);
  }
  /* random strings of the language's characters: both forms agree */
  for (i = 0; i < 20000; i++) {
    n = below((int)sizeof(text) - 1);
    for (j = 0; j < n; j++)
      text[j] = alphabet[below((int)sizeof(alphabet) - 1)];
    text[n] = '\0';
    eval_both(&fixed, text, &v, why, sizeof(why));
  }
  /* a message buffer too small, or none, is not overrun */
  CHECK(tn_expr_eval("tile / 0", lookup, &fixed, &v, tiny, sizeof(tiny)) !=
        0);
  CHECK(strcmp(tiny, "column ") == 0);
  CHECK(tn_expr_eval("tile +", lookup, &fixed, &v, NULL, 0) != 0);
}

/* A plan's lane expression specialized to a point: the parameters fixed,
 * the lane's index varying. */
static void test_specialize(void)
{
  /* slots: v0 = block_x, v1 = tile_x, lane varies, x_2 = k */
  static const names vars_names = {N_VARS, var_names, NULL};
  long long vals[N_VARS] = {64, 3, 0, 2, 0, 0}, got, want;
  unsigned char varying[N_VARS] = {0, 0, 1, 1, 0, 0};
  tn_expr *e, *s;
  char why[256];
  int lane;
  if (tn_expr_compile("(lane + x_2 * v0) / (v0 * v1 + 16)", resolve,
                      (void *)&vars_names, &e, why, sizeof(why)) != 0) {
    CHECK(!"compiles");
    return;
  }
  s = tn_expr_specialize(e, vals, varying, N_VARS);
  CHECK(s != NULL);
  if (s != NULL) {
    CHECK(!tn_expr_uses(s, 0) && !tn_expr_uses(s, 1));
    CHECK(tn_expr_uses(s, 2) && tn_expr_uses(s, 3));
    for (lane = 0; lane < 300; lane += 7) {
      vals[2] = lane;
      CHECK_EQ_INT(tn_expr_run(s, vals, &got, why, sizeof(why)), 0);
      CHECK_EQ_INT(tn_expr_run(e, vals, &want, why, sizeof(why)), 0);
      CHECK_EQ_INT(got, want);
    }
    tn_expr_free(s);
  }
  tn_expr_free(e);
  /* a fixed part that fails is the whole run's to report */
  vals[0] = 0;
  tn_expr_compile("lane / v0", resolve, (void *)&vars_names, &e, why,
                  sizeof(why));
  {
    tn_expr *lanes_only = tn_expr_specialize(e, vals, varying, N_VARS);
    CHECK(lanes_only == NULL ||
          tn_expr_run(lanes_only, vals, &got, why, sizeof(why)) != 0);
    tn_expr_free(lanes_only);
  }
  tn_expr_free(e);
  tn_expr_compile("1 / v0 + lane", resolve, (void *)&vars_names, &e, why,
                  sizeof(why));
  CHECK(tn_expr_specialize(e, vals, varying, N_VARS) == NULL);
  tn_expr_free(e);
  /* a condition on the lane: not specialized; on a parameter: its side */
  tn_expr_compile("lane < 4 ? v1 : 2", resolve, (void *)&vars_names, &e,
                  why, sizeof(why));
  CHECK(tn_expr_specialize(e, vals, varying, N_VARS) == NULL);
  {
    long long out[TN_EXPR_LANES], lane_values[TN_EXPR_LANES] = {0};
    const long long *lanes[N_VARS] = {NULL, NULL, lane_values};
    unsigned failed;
    /* lanes that would go different ways run one by one */
    CHECK(tn_expr_run_lanes(e, vals, lanes, N_VARS, TN_EXPR_LANES, out,
                            &failed) == -1);
  }
  tn_expr_free(e);
  /* the side not taken is left out, its division by zero too */
  tn_expr_compile("v1 < 2 && 1 / v0 > lane || lane + v1", resolve,
                  (void *)&vars_names, &e, why, sizeof(why));
  s = tn_expr_specialize(e, vals, varying, N_VARS);
  CHECK(s != NULL);
  if (s != NULL) {
    vals[2] = 5;
    CHECK(tn_expr_run(s, vals, &got, why, sizeof(why)) == 0 && got == 1);
    CHECK(!tn_expr_uses(s, 0));
    tn_expr_free(s);
  }
  tn_expr_free(e);
}

int main(void)
{
  test_specialize();
  test_values();
  test_errors();
  test_check();
  test_compiled();
  test_random();
  test_hostile();
  TEST_DONE();
}

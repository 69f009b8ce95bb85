/* test_expr.c -- constraint expressions: values, precedence, errors. */
#include <string.h>

#include "base/expr.h"
#include "test_util.h"

static int lookup(void *ctx, const char *name, long long *v)
{
  (void)ctx;
  if (strcmp(name, "tile") == 0) {
    *v = 32;
    return 0;
  }
  if (strcmp(name, "rows") == 0) {
    *v = 4;
    return 0;
  }
  return -1;
}

static long long eval(const char *text, int *ok)
{
  char why[128];
  long long v = -999;
  *ok = tn_expr_eval(text, lookup, NULL, &v, why, sizeof(why)) == 0;
  return v;
}

int main(void)
{
  static const struct {
    const char *text;
    long long want;
  } good[] = {
      {"1 + 2 * 3", 7},          {"(1 + 2) * 3", 9},
      {"tile / rows", 8},        {"tile % rows == 0", 1},
      {"tile * tile / rows <= 1024", 1}, {"-tile + 40", 8},
      {"!0 && 3 > 2 || 0", 1},   {"tile != 32", 0},
      {"7 - 2 - 1", 4},          {"2 >= 2 && 2 <= 2 && 1 < 2", 1},
      {"  tile  ", 32},          {"100 / 7 % 3", 2},
      /* && and || short-circuit as in C: the side not evaluated may divide
       * by zero or overflow */
      {"rows == 4 || tile / 0 >= 16", 1},
      {"rows != 4 && tile / 0 >= 16", 0},
      {"rows == 4 || tile % 0", 1},
      {"0 && 9223372036854775807 + 1", 0},
      {"1 || 0 && tile / 0", 1},
      {"(0 && tile / 0) || rows == 4", 1},
      {"rows != 4 && (1 || tile / 0)", 0},
      {"1 || (0 || tile / 0)", 1},
  };
  static const char *bad[] = {
      "",           "1 +",         "(1 + 2",       "tile / 0",
      "unknown > 1", "1 2",        "tile & rows",  "9223372036854775807 + 1",
      "99999999999999999999",      "tile ==",      ")",
      "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))"
      "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
      /* the side that is evaluated still fails */
      "rows != 4 || tile / 0 >= 16", "rows == 4 && tile / 0 >= 16",
      "0 || tile % 0", "1 && 9223372036854775807 + 1",
      "0 && 1 || tile / 0", "(1 || tile / 0) && tile / 0",
      /* names are checked on both sides */
      "1 || nope", "0 && nope",
      /* literals too large for 64 bits */
      "9223372036854775808", "0 && 99999999999999999999",
  };
  char why[128];
  long long got;
  size_t i;
  int ok;

  for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
    long long v = eval(good[i].text, &ok);
    if (!ok || v != good[i].want)
      fprintf(stderr, "'%s' gave %lld (ok %d), expected %lld\n", good[i].text,
              v, ok, good[i].want);
    CHECK(ok && v == good[i].want);
  }
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    eval(bad[i], &ok);
    if (ok)
      fprintf(stderr, "'%s' was accepted\n", bad[i]);
    CHECK(!ok);
  }
  /* syntax-only checks accept arithmetic errors, not unknown names */
  CHECK(tn_expr_check("tile / (rows - 4)", lookup, NULL, why, sizeof(why)) ==
        0);
  CHECK(tn_expr_check("tile / nope", lookup, NULL, why, sizeof(why)) != 0);
  CHECK(strstr(why, "nope") != NULL);
  /* what the evaluated side says */
  CHECK(tn_expr_eval("rows == 4 && tile / 0", lookup, NULL, &got, why,
                     sizeof(why)) != 0);
  CHECK(strstr(why, "division by zero") != NULL);
  TEST_DONE();
}

/* bench_expr.c -- the cost of expressions: typical launch and plan
 * expressions compiled once and run 10 million times over changing lanes
 * and parameters, and constraints evaluated one-off (parsed every time, as
 * the space does for each point).  Prints ns per evaluation.  Built, not
 * run by ctest: a benchmark, not a timed test.
 * Usage: bench_expr [runs]   (runs per expression, default 10000000) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/expr.h"

enum { WARP, LANE, BLOCK_X, BLOCK_Y, I, TID, TILE_X, COLS, N_SLOTS };
static const char *const slot_names[N_SLOTS] = {
    "warp", "lane", "block_x", "block_y", "i", "tid", "tile_x", "cols"};

static int resolve(void *ctx, const char *name)
{
  int k;
  (void)ctx;
  for (k = 0; k < N_SLOTS; k++)
    if (strcmp(slot_names[k], name) == 0)
      return k;
  return -1;
}

static int lookup(void *ctx, const char *name, long long *value)
{
  int k = resolve(NULL, name);
  if (k < 0)
    return -1;
  *value = ((const long long *)ctx)[k];
  return 0;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The values of run r: a lane and warp that change every run, parameters
 * that change every 256 runs, as when a plan is priced point by point. */
static void set_slots(long long *s, long r)
{
  s[LANE] = r & 31;
  s[WARP] = (r >> 5) & 7;
  s[TID] = r & 255;
  s[BLOCK_X] = 8 << ((r >> 8) & 3);
  s[BLOCK_Y] = 1 + ((r >> 10) & 7);
  s[I] = (r >> 8) & 3;
  s[TILE_X] = 1 << ((r >> 12) & 3);
  s[COLS] = 4096 + (r & 1023);
}

int main(int argc, char **argv)
{
  static const char *const compiled[] = {
      "(warp * 32 + lane) / block_x + i * block_y",
      "ceil(cols / (block_x * tile_x))",
      "tid % tile_x ^ (tid / tile_x) & 31",
      "lane < 16 ? lane * 2 : (lane - 16) * 2 + 1",
      "min(block_x * tile_x, 128) * max(block_y, 2)",
  };
  static const char *const one_off[] = {
      "block_x * block_y <= 1024 && cols % (block_x * tile_x) == 0",
      "tile_x % 4 == 0",
  };
  long runs = argc > 1 ? atol(argv[1]) : 10000000L;
  long long slots[N_SLOTS], v, sum;
  char why[256];
  size_t k;
  long r;

  if (runs <= 0) {
    fprintf(stderr, "usage: bench_expr [runs]\n");
    return 2;
  }
  printf("%-62s %8s\n", "compiled, tn_expr_run", "ns/eval");
  for (k = 0; k < sizeof(compiled) / sizeof(compiled[0]); k++) {
    tn_expr *e;
    double t0, t1;
    if (tn_expr_compile(compiled[k], resolve, NULL, &e, why, sizeof(why))) {
      fprintf(stderr, "%s: %s\n", compiled[k], why);
      return 1;
    }
    sum = 0;
    t0 = now();
    for (r = 0; r < runs; r++) {
      set_slots(slots, r);
      if (tn_expr_run(e, slots, &v, why, sizeof(why)) != 0) {
        fprintf(stderr, "%s: %s\n", compiled[k], why);
        return 1;
      }
      sum += v;
    }
    t1 = now();
    printf("%-62s %8.1f  (sum %lld)\n", compiled[k], (t1 - t0) * 1e9 / runs,
           sum);
    tn_expr_free(e);
  }
  /* setting the slots alone, for what the loop costs without running */
  {
    double t0 = now(), t1;
    volatile long long sink = 0;
    for (r = 0; r < runs; r++) {
      set_slots(slots, r);
      sink += slots[LANE] + slots[COLS];
    }
    t1 = now();
    printf("%-62s %8.1f\n", "(the loop and its values alone)",
           (t1 - t0) * 1e9 / runs);
  }
  printf("%-62s %8s\n", "one-off, tn_expr_eval (parsed every time)",
         "ns/eval");
  for (k = 0; k < sizeof(one_off) / sizeof(one_off[0]); k++) {
    long n = runs / 10 > 0 ? runs / 10 : 1;
    double t0, t1;
    sum = 0;
    t0 = now();
    for (r = 0; r < n; r++) {
      set_slots(slots, r);
      if (tn_expr_eval(one_off[k], lookup, slots, &v, why, sizeof(why))) {
        fprintf(stderr, "%s: %s\n", one_off[k], why);
        return 1;
      }
      sum += v;
    }
    t1 = now();
    printf("%-62s %8.1f  (sum %lld)\n", one_off[k], (t1 - t0) * 1e9 / n,
           sum);
  }
  return 0;
}

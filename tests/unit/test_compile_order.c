/* test_compile_order.c -- the order compiles take (tn_compile_order): a
 * caller's order is kept as given, a bad one refused; without one, a
 * family with a compile weight goes heaviest first, and the GEMM
 * families' weights put their biggest unrolled loops (the longest NVRTC
 * runs) before their smallest.
 * Usage: test_compile_order SRC_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/compile.h"
#include "pipeline/config.h"
#include "pipeline/space.h"
#include "test_util.h"

static void check_config(const char *src, const char *name)
{
  static tn_job job;
  char path[4096];
  tn_space space;
  tn_err err = {{0}};
  const tn_arch *arch = tn_arch_find("sm_90");
  const tn_family *f;
  int *order, *given, i, n;

  snprintf(path, sizeof(path), "%s/configs/%s", src, name);
  if (tn_config_load(path, &job, &err) != 0 ||
      tn_space_build(&job, arch, &space, &err) != 0) {
    fprintf(stderr, "%s: %s\n", name, err.msg);
    tn_test_failures++;
    return;
  }
  f = job.family;
  n = space.n;
  CHECK(n > 1);
  CHECK(f->compile_weight != NULL);
  order = malloc(sizeof(int) * (size_t)n);
  given = malloc(sizeof(int) * (size_t)n);
  CHECK_EQ_INT(tn_compile_order(f, &space, NULL, order), 0);
  for (i = 1; i < n; i++) /* heaviest first, ties by index */
    if (f->compile_weight(f, &space.c[order[i - 1]].params) <
            f->compile_weight(f, &space.c[order[i]].params) ||
        (f->compile_weight(f, &space.c[order[i - 1]].params) ==
             f->compile_weight(f, &space.c[order[i]].params) &&
         order[i - 1] > order[i])) {
      fprintf(stderr, "%s: places %d and %d out of order\n", name, i - 1, i);
      tn_test_failures++;
      break;
    }
  /* the weights separate the space: the first is heavier than the last */
  CHECK(f->compile_weight(f, &space.c[order[0]].params) >
        f->compile_weight(f, &space.c[order[n - 1]].params));
  for (i = 0; i < n; i++) /* a caller's order: reversed index order */
    given[i] = n - 1 - i;
  CHECK_EQ_INT(tn_compile_order(f, &space, given, order), 0);
  CHECK(memcmp(order, given, sizeof(int) * (size_t)n) == 0);
  given[1] = given[0]; /* not a permutation */
  CHECK_EQ_INT(tn_compile_order(f, &space, given, order), -1);
  given[1] = n; /* out of range */
  CHECK_EQ_INT(tn_compile_order(f, &space, given, order), -1);
  free(order);
  free(given);
  tn_space_free(&space);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_compile_order SRC_DIR\n");
    return 2;
  }
  check_config(argv[1], "gemm.cfg");
  check_config(argv[1], "gemm-bf16.cfg");
  TEST_DONE();
}

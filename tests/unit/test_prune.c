/* test_prune.c -- the time model's pruning across sibling groups takes a
 * group whole or not at all (tuner/pipeline/space.c): within a group the
 * model's order of layouts is not reliable, so a group keeps every layout
 * the sibling rules kept unless all of them cannot win.  Within a group, a
 * layout goes when its lo is above the least hi, or when it is predicted
 * TN_PRUNE_SIBLING_RATIO times the least or more, and stays below that.
 *
 *   test_prune CONFIG   (tests/fixtures/configs/cpu-prune.cfg: four groups
 *                        of four layouts, one size; wavefronts set here) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/time.h"
#include "pipeline/space.h"
#include "profile_util.h"
#include "space_util.h"
#include "test_util.h"

int main(int argc, char **argv)
{
  /* shared-memory bound (10^9 wavefronts a unit): group 0 at 1 (the
   * space's best), group 1 at 1.2 with one layout at 1.33 (more than the
   * model's margins behind the best, 1.108 times its sibling's, below the
   * ratio), group 2 at 2 with one layout at 3.2 (cut by the lo-hi sibling
   * rule; the rest all out), group 3 at 1 with one layout at 1.2 (its lo
   * below its siblings' hi, but 1.2 times theirs: cut by the ratio) */
  static const double units[4][4] = {
      {1, 1, 1, 1}, {1.2, 1.33, 1.2, 1.2}, {2, 3.2, 2, 2}, {1, 1, 1, 1.2}};
  tn_job job;
  tn_space space;
  tn_err err = {{0}};
  int i, seen[4] = {0}, pruned[4] = {0}, across = 0, by_sibling = 0, n;
  int by_ratio = 0;
  tn_profile p;
  double least_hi = -1;

  if (argc != 2 || tn_config_load(argv[1], &job, &err) != 0) {
    fprintf(stderr, "usage: test_prune CONFIG (%s)\n", err.msg);
    return 1;
  }
  memset(&space, 0, sizeof(space));
  if (tn_space_build(&job, tn_arch_find("sm_90"), &space, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  for (i = 0; i < space.n; i++) {
    tn_candidate *c = &space.c[i];
    int g = tn_test_group(&job, c);
    if (c->status != TN_ST_PENDING)
      continue;
    c->model[0].ld_wavefronts =
        (long long)(units[g][seen[g]++ % 4] * 1e9);
    c->model[0].st_wavefronts = 0;
    c->model_total = c->model[0].ld_wavefronts;
  }
  CHECK(seen[0] == 4 && seen[1] == 4 && seen[2] == 4 && seen[3] == 4);
  /* an H200-like profile of the test's own (quartiles 1% either side),
   * not whatever results/devices holds */
  tn_test_profile(&p, 0.01);
  tn_space_predict(&job, &p, &space);
  n = tn_space_prune(&job, &space);
  for (i = 0; i < space.n; i++) {
    const tn_candidate *c = &space.c[i];
    if (least_hi < 0 || c->pred[0].hi_ms < least_hi)
      least_hi = c->pred[0].hi_ms;
  }
  for (i = 0; i < space.n; i++) {
    const tn_candidate *c = &space.c[i];
    int g = tn_test_group(&job, c);
    if (c->status != TN_ST_PRUNED)
      continue;
    CHECK(c->pruned_by == TN_BY_TIME_MODEL);
    CHECK(strstr(c->reason, "predicted") != NULL);
    pruned[g]++;
    if (strstr(c->reason, "whole group") != NULL)
      across++;
    else if (strstr(c->reason, "times the least predicted sibling") != NULL)
      by_ratio++;
    else if (strstr(c->reason, "sibling") != NULL)
      by_sibling++;
  }
  /* group 2 goes whole: its layout at 3.2 by the sibling rule, the other
   * three across groups; group 0 keeps all */
  CHECK_EQ_INT(pruned[2], 4);
  CHECK_EQ_INT(by_sibling, 1);
  CHECK_EQ_INT(across, 3);
  CHECK_EQ_INT(pruned[0], 0);
  /* group 3 loses its layout at 1.2 to the ratio alone */
  CHECK_EQ_INT(pruned[3], 1);
  CHECK_EQ_INT(by_ratio, 1);
  CHECK(1.2 >= TN_PRUNE_SIBLING_RATIO && 1.33 / 1.2 < TN_PRUNE_SIBLING_RATIO);
  for (i = 0; i < space.n; i++) {
    const tn_candidate *c = &space.c[i], *least = NULL;
    char text[64];
    int j;
    if (tn_test_group(&job, c) != 3 || c->status != TN_ST_PRUNED)
      continue;
    CHECK_EQ_INT((int)c->model[0].ld_wavefronts, (int)(1.2 * 1e9));
    for (j = 0; j < space.n; j++)
      if (tn_test_group(&job, &space.c[j]) == 3 &&
          (least == NULL || space.c[j].pred[0].ms < least->pred[0].ms))
        least = &space.c[j];
    /* the reason gives the ratio (1.2 less the launch's share) */
    snprintf(text, sizeof(text), "%.3f here", c->pred[0].ms / least->pred[0].ms);
    CHECK(strstr(c->reason, text) != NULL);
    CHECK(c->pred[0].ms / least->pred[0].ms >= TN_PRUNE_SIBLING_RATIO);
  }
  /* group 1's layout at 1.33 cannot win against the space's best (its lo
   * is above the least hi), but its siblings can: it stays */
  CHECK_EQ_INT(pruned[1], 0);
  for (i = 0; i < space.n; i++) {
    const tn_candidate *c = &space.c[i];
    if (tn_test_group(&job, c) == 1 &&
        c->model[0].ld_wavefronts == (long long)(1.33 * 1e9))
      CHECK(c->pred[0].lo_ms > least_hi);
  }
  CHECK_EQ_INT(n, 5);
  tn_space_free(&space);
  TEST_DONE();
}

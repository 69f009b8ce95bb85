/* test_measured.c -- the rules that prune by what the run has measured
 * (tuner/pipeline/measured.h) and the benchmark's order they rely on
 * (select.h): groups whole, the group of least predicted time first, a
 * candidate without a prediction never first.
 *
 *   test_measured CONFIG   (tests/fixtures/configs/cpu-measured.cfg: four
 *                           groups of four layouts, two sizes; predictions and
 *                           medians set here) */
#include <stdio.h>
#include <string.h>

#include "pipeline/measured.h"
#include "pipeline/select.h"
#include "pipeline/space.h"
#include "space_util.h"
#include "test_util.h"

#define NOISE 0.01 /* the selection's min_noise; no spread in the medians */

/* the layout: pad 0 or 1, swizzle none or xor (0 plain, 3 pad and xor) */
static int layout(const tn_job *job, const tn_candidate *c)
{
  int j, sw = 0;
  for (j = 0; j < job->family->n_params; j++)
    if (strcmp(job->family->params[j].name, "swizzle") == 0)
      sw = c->params.v[j].sw.kind != TN_SWZ_NONE;
  return (int)tn_test_value(job, c, "pad") * 2 + sw;
}

/* predicted ms of group g's layout l at size k */
static double pred_ms[4][4][2];

static void predict(const tn_job *job, tn_space *space)
{
  int i, k;
  for (i = 0; i < space->n; i++) {
    tn_candidate *c = &space->c[i];
    if (c->status != TN_ST_PENDING)
      continue;
    c->status = TN_ST_COMPILED;
    c->pred_total.ms = 0;
    for (k = 0; k < 2; k++) {
      c->pred[k].ms = pred_ms[tn_test_group(job, c)][layout(job, c)][k];
      c->pred_total.ms += c->pred[k].ms;
    }
  }
}

/* as if timed: medians ms[l][k] for group g's layouts */
static void timed(const tn_job *job, tn_space *space, int g,
                  const double ms[4][2])
{
  int i, k;
  for (i = 0; i < space->n; i++) {
    tn_candidate *c = &space->c[i];
    if (tn_test_group(job, c) != g || c->status == TN_ST_PRUNED)
      continue;
    c->status = TN_ST_OK;
    c->total_ms = 0;
    for (k = 0; k < 2; k++) {
      tn_timing *t = &c->timing[k];
      t->median_ms = t->q1_ms = t->q3_ms = t->min_ms = t->max_ms =
          ms[layout(job, c)][k];
      t->repetitions = 10;
      c->total_ms += t->median_ms;
    }
  }
}

static void untime(const tn_job *job, tn_space *space, int g)
{
  int i;
  for (i = 0; i < space->n; i++) {
    tn_candidate *c = &space->c[i];
    if (tn_test_group(job, c) == g && c->status == TN_ST_OK) {
      c->status = TN_ST_COMPILED;
      memset(c->timing, 0, sizeof(*c->timing) * (size_t)c->n_problems);
      c->total_ms = 0;
    }
  }
}

/* The verdicts on group g (its span in order); returns how many go, and
 * which layouts in *which (bit l). */
static int decide(const tn_job *job, const tn_space *space, const int *order,
                  int g, int *which, char *reason, size_t n)
{
  tn_measured_verdict v[4];
  int s, e, j, pruned;
  for (s = 0; s < space->n && tn_test_group(job, &space->c[order[s]]) != g; s++)
    ;
  CHECK(s < space->n);
  e = tn_measured_group_end(job->family, space, order, space->n, s);
  CHECK_EQ_INT(e - s, 4);
  pruned = tn_measured_decide(job->family, space, order, space->n, s, e, 2,
                              NOISE, v);
  *which = 0;
  reason[0] = '\0';
  for (j = s; j < e; j++)
    if (v[j - s].prune) {
      *which |= 1 << layout(job, &space->c[order[j]]);
      tn_strlcpy(reason, v[j - s].reason, n);
    }
  return pruned;
}

int main(int argc, char **argv)
{
  tn_job job;
  tn_space space;
  tn_err err = {{0}};
  int order[16], i, g, l, which, seen[4] = {0};
  char why[TN_REASON_LEN];
  /* groups 0 and 1 timed: 0.8 of the prediction in group 0 (the least
   * error), 0.9 in group 1; layout 3 (pad and xor) 10% ahead of the plain
   * layout 0 in both, layouts 1 and 2 in between */
  static const double ms0[4][2] = {
      {0.88, 0.088}, {0.84, 0.084}, {0.84, 0.084}, {0.80, 0.080}};
  static const double ms1[4][2] = {
      {1.089, 0.1089}, {1.05, 0.105}, {1.05, 0.105}, {0.99, 0.099}};
  double least, bound;

  if (argc != 2 || tn_config_load(argv[1], &job, &err) != 0) {
    fprintf(stderr, "usage: test_measured CONFIG (%s)\n", err.msg);
    return 1;
  }
  memset(&space, 0, sizeof(space));
  if (tn_space_build(&job, tn_arch_find("sm_90"), &space, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  CHECK_EQ_INT(space.n, 16);
  /* group 0 predicted fastest (1.0 and 0.1), then 3 (1.03), 1 (1.1),
   * 2 (1.3); within a group layout 0 first */
  for (l = 0; l < 4; l++) {
    static const double base[4] = {1.0, 1.1, 1.3, 1.03};
    for (g = 0; g < 4; g++) {
      pred_ms[g][l][0] = base[g] * (1 + 0.001 * l);
      pred_ms[g][l][1] = base[g] * (1 + 0.001 * l) / 10;
    }
  }
  predict(&job, &space);

  /* the order: whole groups, by their least prediction */
  CHECK_EQ_INT(tn_select_order(job.family, &space, order), 0);
  for (i = 0; i < 16; i++) {
    static const int want[4] = {0, 3, 1, 2};
    const tn_candidate *c = &space.c[order[i]];
    CHECK_EQ_INT(tn_test_group(&job, c), want[i / 4]);
    CHECK_EQ_INT(layout(&job, c), i % 4);
    seen[tn_test_group(&job, c)]++;
  }
  CHECK(seen[0] == 4 && seen[1] == 4 && seen[2] == 4 && seen[3] == 4);
  /* a candidate without a prediction (pruned by the space) goes after
   * every predicted one of its group, and does not lead the group: the
   * slowest group stays last */
  for (i = 0; i < 16; i++) {
    tn_candidate *c = &space.c[order[i]];
    if (tn_test_group(&job, c) == 2 && layout(&job, c) == 0) {
      c->status = TN_ST_PRUNED;
      c->pruned_by = TN_BY_CONSTRAINT;
      c->pred_total.ms = 0;
    }
  }
  CHECK_EQ_INT(tn_select_order(job.family, &space, order), 0);
  CHECK_EQ_INT(tn_test_group(&job, &space.c[order[12]]), 2);
  CHECK_EQ_INT(layout(&job, &space.c[order[12]]), 1);
  CHECK_EQ_INT(layout(&job, &space.c[order[15]]), 0);
  CHECK_EQ_INT(tn_test_group(&job, &space.c[order[0]]), 0);
  for (i = 0; i < 16; i++) {
    tn_candidate *c = &space.c[i];
    if (c->status == TN_ST_PRUNED) {
      c->status = TN_ST_COMPILED;
      c->pruned_by = TN_BY_NONE;
      c->pred_total.ms = c->pred[0].ms + c->pred[1].ms;
    }
  }

  /* one group timed: too few to bound or to order layouts */
  timed(&job, &space, 0, ms0);
  CHECK_EQ_INT(decide(&job, &space, order, 2, &which, why, sizeof(why)), 0);
  CHECK_EQ_INT(decide(&job, &space, order, 3, &which, why, sizeof(why)), 0);

  /* two timed: group 2 (predicted 1.3 at 0.8 less the margin) is above
   * the fastest (0.8 + 1%) at both sizes and goes whole */
  timed(&job, &space, 1, ms1);
  least = 0.8 * (1 - TN_MEASURED_MARGIN);
  CHECK(1.3 * least > 0.8 * (1 + NOISE));
  CHECK_EQ_INT(decide(&job, &space, order, 2, &which, why, sizeof(why)), 4);
  CHECK_EQ_INT(which, 15);
  CHECK(strstr(why, "measured bound") != NULL);
  CHECK(strstr(why, "2 groups timed") != NULL);
  /* group 3 (1.03) is within the bound: every layout stays, though its
   * plain layout ran 10% behind pad-and-xor in both groups timed (the
   * layouts' order in other groups is no evidence: measured.h) */
  CHECK(!(1.03 * least > 0.8 * (1 + NOISE)));
  CHECK_EQ_INT(decide(&job, &space, order, 3, &which, why, sizeof(why)), 0);

  /* the bound holds at every size or not at all: at the second size
   * group 2 predicted as fast as group 0, so no size-2 winner is lost */
  for (i = 0; i < space.n; i++)
    if (tn_test_group(&job, &space.c[i]) == 2)
      space.c[i].pred[1].ms = 0.1;
  CHECK_EQ_INT(decide(&job, &space, order, 2, &which, why, sizeof(why)), 0);

  /* the margin: a group predicted just past the bound goes, one just
   * inside stays (group 2 back at one prediction at both sizes) */
  for (bound = 0.8 * (1 + NOISE) / least, l = 0; l < 2; l++) {
    double p = bound * (l == 0 ? 1.002 : 0.998);
    for (i = 0; i < space.n; i++)
      if (tn_test_group(&job, &space.c[i]) == 2) {
        space.c[i].pred[0].ms = p;
        space.c[i].pred[1].ms = p / 10;
      }
    decide(&job, &space, order, 2, &which, why, sizeof(why));
    CHECK_EQ_INT(which, l == 0 ? 15 : 0);
  }

  /* the least error bounds: group 2 predicted at 1.06 goes while the
   * least error is group 0's 0.8, and stays once group 1 ran at 0.75 of
   * its prediction (the fastest still group 0's 0.8) */
  for (i = 0; i < space.n; i++)
    if (tn_test_group(&job, &space.c[i]) == 2) {
      space.c[i].pred[0].ms = 1.06;
      space.c[i].pred[1].ms = 0.106;
    }
  CHECK(1.06 * least > 0.8 * (1 + NOISE));
  CHECK_EQ_INT(decide(&job, &space, order, 2, &which, why, sizeof(why)), 4);
  untime(&job, &space, 1);
  {
    double ms1b[4][2];
    for (l = 0; l < 4; l++) {
      ms1b[l][0] = 0.75 * 1.1 * (1 + 0.001 * l);
      ms1b[l][1] = ms1b[l][0] / 10;
    }
    timed(&job, &space, 1, ms1b);
  }
  CHECK(!(1.06 * 0.75 * (1 - TN_MEASURED_MARGIN) > 0.8 * (1 + NOISE)));
  CHECK_EQ_INT(decide(&job, &space, order, 2, &which, why, sizeof(why)), 0);
  for (i = 0; i < space.n; i++)
    if (tn_test_group(&job, &space.c[i]) == 2) {
      space.c[i].pred[0].ms = 1.3;
      space.c[i].pred[1].ms = 0.13;
    }
  /* and the fastest's noise widens the margin: group 1 back at 0.9, the
   * fastest (group 0's layout 3) with quartiles 30% apart */
  untime(&job, &space, 1);
  timed(&job, &space, 1, ms1);
  for (i = 0; i < space.n; i++) {
    tn_candidate *c = &space.c[i];
    if (tn_test_group(&job, c) == 0 && layout(&job, c) == 3)
      for (l = 0; l < 2; l++) {
        c->timing[l].q1_ms = c->timing[l].median_ms * 0.85;
        c->timing[l].q3_ms = c->timing[l].median_ms * 1.15;
      }
  }
  CHECK(!(1.3 * least > 0.8 * 1.3));
  CHECK_EQ_INT(decide(&job, &space, order, 2, &which, why, sizeof(why)), 0);
  for (i = 0; i < space.n; i++) {
    tn_candidate *c = &space.c[i];
    if (tn_test_group(&job, c) == 0 && layout(&job, c) == 3)
      for (l = 0; l < 2; l++)
        c->timing[l].q1_ms = c->timing[l].q3_ms = c->timing[l].median_ms;
  }
  CHECK_EQ_INT(decide(&job, &space, order, 2, &which, why, sizeof(why)), 4);

  /* a group timed in part (a resumed run) is never bounded whole */
  for (i = 0; i < space.n; i++) {
    tn_candidate *c = &space.c[i];
    if (tn_test_group(&job, c) == 2 && layout(&job, c) == 3) {
      c->status = TN_ST_OK;
      c->timing[0].median_ms = c->timing[0].q1_ms = c->timing[0].q3_ms = 2;
      c->timing[1].median_ms = c->timing[1].q1_ms = c->timing[1].q3_ms = .2;
      c->timing[0].repetitions = c->timing[1].repetitions = 10;
      c->total_ms = 2.2;
    }
  }
  CHECK_EQ_INT(decide(&job, &space, order, 2, &which, why, sizeof(why)), 0);
  tn_space_free(&space);
  TEST_DONE();
}

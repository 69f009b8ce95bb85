/* select.c -- choose the winner among candidates that can be told apart. */
#include "pipeline/select.h"

#include <stdlib.h>
#include <string.h>

/* Relative interquartile range of a candidate's timings (the largest over
 * its problems). */
static double spread(const tn_candidate *c, int n_problems)
{
  double worst = 0.0;
  int k;
  for (k = 0; k < n_problems; k++) {
    const tn_timing *t = &c->timing[k];
    if (t->median_ms > 0) {
      double s = (t->q3_ms - t->q1_ms) / t->median_ms;
      if (s > worst)
        worst = s;
    }
  }
  return worst;
}

static int n_problems_of(const tn_candidate *c)
{
  int k = 0;
  while (k < TN_MAX_SIZES && c->timing[k].repetitions > 0)
    k++;
  return k;
}

/* 1 if a is preferred to b among ties. */
static int preferred(const tn_candidate *a, const tn_candidate *b)
{
  int sa = tn_launch_smem(&a->launch), sb = tn_launch_smem(&b->launch);
  if (sa != sb)
    return sa < sb;
  if (a->regs != b->regs)
    return a->regs < b->regs;
  if (a->model_total != b->model_total)
    return a->model_total < b->model_total;
  return a->total_ms < b->total_ms;
}

int tn_select(const tn_space *space, double min_noise, tn_selection *sel)
{
  const tn_candidate *f;
  int i;

  memset(sel, 0, sizeof(*sel));
  sel->best = sel->fastest = -1;
  for (i = 0; i < space->n; i++) {
    const tn_candidate *c = &space->c[i];
    if (c->status != TN_ST_OK || !(c->total_ms > 0))
      continue;
    if (sel->fastest < 0 || c->total_ms < space->c[sel->fastest].total_ms)
      sel->fastest = i;
  }
  if (sel->fastest < 0)
    return 0;
  f = &space->c[sel->fastest];
  sel->noise = spread(f, n_problems_of(f));
  if (sel->noise < min_noise)
    sel->noise = min_noise;
  sel->ties = malloc(sizeof(int) * (size_t)space->n);
  if (sel->ties == NULL) {
    sel->best = sel->fastest;
    return 0;
  }
  sel->best = sel->fastest;
  for (i = 0; i < space->n; i++) {
    const tn_candidate *c = &space->c[i];
    if (c->status != TN_ST_OK || !(c->total_ms > 0) ||
        c->total_ms > f->total_ms * (1.0 + sel->noise))
      continue;
    sel->ties[sel->n_ties++] = i;
    if (preferred(c, &space->c[sel->best]))
      sel->best = i;
  }
  return 0;
}

void tn_selection_free(tn_selection *sel)
{
  free(sel->ties);
  sel->ties = NULL;
}

/* select.c -- choose the winner among candidates that can be told apart. */
#include "pipeline/select.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

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

double tn_select_noise(const tn_candidate *c, double min_noise)
{
  double s = spread(c, n_problems_of(c));
  return s < min_noise ? min_noise : s;
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

/* ---- racing ---- */

static const tn_family *order_family;
static const tn_space *order_space;
static int *order_rank;

/* By the non-layout parameters (groups together), then the model, id. */
static int cmp_group(const void *pa, const void *pb)
{
  const tn_candidate *a = &order_space->c[*(const int *)pa];
  const tn_candidate *b = &order_space->c[*(const int *)pb];
  int k;
  for (k = 0; k < order_family->n_params; k++) {
    long long x = a->params.v[k].i, y = b->params.v[k].i;
    if (order_family->params[k].is_layout || x == y)
      continue;
    return x < y ? -1 : 1;
  }
  if (a->model_total != b->model_total)
    return a->model_total < b->model_total ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

static int cmp_rank(const void *pa, const void *pb)
{
  int a = *(const int *)pa, b = *(const int *)pb;
  if (order_rank[a] != order_rank[b])
    return order_rank[a] < order_rank[b] ? -1 : 1;
  return (a > b) - (a < b);
}

int tn_select_order(const tn_family *f, const tn_space *space, int *order)
{
  int *rank = malloc(sizeof(int) * (size_t)(space->n > 0 ? space->n : 1));
  int i;
  if (rank == NULL)
    return TN_ETOOL;
  for (i = 0; i < space->n; i++)
    order[i] = i;
  order_family = f;
  order_space = space;
  order_rank = rank;
  qsort(order, (size_t)space->n, sizeof(int), cmp_group);
  for (i = 0; i < space->n; i++) {
    const tn_candidate *a = i > 0 ? &space->c[order[i - 1]] : NULL;
    const tn_candidate *b = &space->c[order[i]];
    int k, sibling = a != NULL;
    for (k = 0; sibling && k < f->n_params; k++)
      if (!f->params[k].is_layout && a->params.v[k].i != b->params.v[k].i)
        sibling = 0;
    rank[order[i]] = sibling ? rank[order[i - 1]] + 1 : 0;
  }
  qsort(order, (size_t)space->n, sizeof(int), cmp_rank);
  free(rank);
  return 0;
}

int tn_select_leader(const tn_space *space)
{
  int i, best = -1;
  for (i = 0; i < space->n; i++) {
    const tn_candidate *c = &space->c[i];
    if (c->status == TN_ST_OK && c->total_ms > 0 &&
        (best < 0 || c->total_ms < space->c[best].total_ms))
      best = i;
  }
  return best;
}

double tn_select_stop_ms(const tn_space *space, int leader, double min_noise,
                         const tn_candidate *c, int k)
{
  const tn_candidate *l = &space->c[leader];
  double stop = l->total_ms * (1.0 + tn_select_noise(l, min_noise));
  int j;
  for (j = 0; j < k; j++)
    stop -= c->timing[j].median_ms;
  return stop;
}

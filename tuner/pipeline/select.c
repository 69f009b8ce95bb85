/* select.c -- choose the winner among candidates that can be told apart. */
#include "pipeline/select.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Size k's numbers of a candidate, or with k < 0 those of the whole job
 * (the sum of the medians, the model's total). */
static double ms_at(const tn_candidate *c, int k)
{
  return k < 0 ? c->total_ms : c->timing[k].median_ms;
}

static long long model_at(const tn_candidate *c, int k)
{
  return k < 0 ? c->model_total
               : c->model[k].ld_wavefronts + c->model[k].st_wavefronts;
}

static double spread_one(const tn_timing *t)
{
  return t->median_ms > 0 ? (t->q3_ms - t->q1_ms) / t->median_ms : 0.0;
}

/* Relative interquartile range of timings (n problems) at size k, or
 * with k < 0 the largest over the problems timed (those before the first
 * without repetitions). */
static double spread(const tn_timing *timing, int n, int k)
{
  double worst = 0.0;
  int j;
  if (k >= 0)
    return spread_one(&timing[k]);
  for (j = 0; j < n && timing[j].repetitions > 0; j++)
    if (spread_one(&timing[j]) > worst)
      worst = spread_one(&timing[j]);
  return worst;
}

/* 1 if a is preferred to b among ties (at size k, or over all: k < 0). */
static int preferred(const tn_candidate *a, const tn_candidate *b, int k)
{
  int sa = tn_launch_smem(&a->launch), sb = tn_launch_smem(&b->launch);
  if (sa != sb)
    return sa < sb;
  if (a->regs != b->regs)
    return a->regs < b->regs;
  if (model_at(a, k) != model_at(b, k))
    return model_at(a, k) < model_at(b, k);
  return ms_at(a, k) < ms_at(b, k);
}

static int timed(const tn_candidate *c, int k)
{
  return c->status == TN_ST_OK && c->total_ms > 0 && ms_at(c, k) > 0;
}

double tn_select_noise_of(const tn_timing *timing, int n_problems, int k,
                          double min_noise)
{
  double s = spread(timing, n_problems, k);
  return s < min_noise ? min_noise : s;
}

double tn_select_noise(const tn_candidate *c, int k, double min_noise)
{
  return tn_select_noise_of(c->timing, c->n_problems, k, min_noise);
}

int tn_select_size(const tn_space *space, int k, double min_noise,
                   tn_selection *sel)
{
  const tn_candidate *f;
  int i;

  memset(sel, 0, sizeof(*sel));
  sel->best = sel->fastest = -1;
  sel->size = k;
  for (i = 0; i < space->n; i++) {
    const tn_candidate *c = &space->c[i];
    if (!timed(c, k))
      continue;
    if (sel->fastest < 0 || ms_at(c, k) < ms_at(&space->c[sel->fastest], k))
      sel->fastest = i;
  }
  if (sel->fastest < 0)
    return 0;
  f = &space->c[sel->fastest];
  sel->noise = tn_select_noise(f, k, min_noise);
  sel->ties = malloc(sizeof(int) * (size_t)space->n);
  sel->best = sel->fastest;
  if (sel->ties == NULL)
    return 0;
  for (i = 0; i < space->n; i++) {
    const tn_candidate *c = &space->c[i];
    if (!timed(c, k) || ms_at(c, k) > ms_at(f, k) * (1.0 + sel->noise))
      continue;
    sel->ties[sel->n_ties++] = i;
    if (preferred(c, &space->c[sel->best], k))
      sel->best = i;
  }
  return 0;
}

int tn_select(const tn_space *space, double min_noise, tn_selection *sel)
{
  return tn_select_size(space, -1, min_noise, sel);
}

void tn_selection_free(tn_selection *sel)
{
  free(sel->ties);
  sel->ties = NULL;
}

/* ---- racing ---- */

/* qsort has no context pointer: the order's, one a thread (with
 * --device all each GPU's thread orders its own space at once) */
static _Thread_local const tn_family *order_family;
static _Thread_local const tn_space *order_space;
static _Thread_local const int *order_space_sorted; /* cmp_group's order,
                                                       for cmp_first */

/* The time model's prediction of c, or 0 if it has none. */
static double predicted(const tn_candidate *c)
{
  return c->pred_total.ms;
}

/* Likely winners first: by the prediction, then the wavefronts, then id;
 * a candidate without a prediction (pruned by the space: no model) after
 * every one with, so that it never leads its group. */
static int cmp_likely(const tn_candidate *a, const tn_candidate *b)
{
  if ((predicted(a) > 0) != (predicted(b) > 0))
    return predicted(a) > 0 ? -1 : 1;
  if (predicted(a) != predicted(b))
    return predicted(a) < predicted(b) ? -1 : 1;
  if (a->model_total != b->model_total)
    return a->model_total < b->model_total ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

/* By the non-layout parameters (groups together), then likely first. */
static int cmp_group(const void *pa, const void *pb)
{
  const tn_candidate *a = &order_space->c[*(const int *)pa];
  const tn_candidate *b = &order_space->c[*(const int *)pb];
  int g = tn_space_cmp_group(order_family, a, b);
  return g != 0 ? g : cmp_likely(a, b);
}

/* Groups by their likeliest member (the first of each, after cmp_group). */
static int cmp_first(const void *pa, const void *pb)
{
  const int *a = pa, *b = pb; /* {start, length} in the sorted order */
  return cmp_likely(&order_space->c[order_space_sorted[a[0]]],
                    &order_space->c[order_space_sorted[b[0]]]);
}
int tn_select_order(const tn_family *f, const tn_space *space, int *order)
{
  int *sorted = malloc(sizeof(int) * (size_t)(space->n > 0 ? space->n : 1));
  int *spans = malloc(sizeof(int) * 2 * (size_t)(space->n > 0 ? space->n : 1));
  int i, g, n_groups = 0, out = 0;
  if (sorted == NULL || spans == NULL) {
    free(sorted);
    free(spans);
    return TN_ETOOL;
  }
  for (i = 0; i < space->n; i++)
    sorted[i] = i;
  order_family = f;
  order_space = space;
  order_space_sorted = sorted;
  qsort(sorted, (size_t)space->n, sizeof(int), cmp_group);
  for (i = 0; i < space->n; i++) {
    if (i == 0 || !tn_space_siblings(f, &space->c[sorted[i - 1]],
                                      &space->c[sorted[i]])) {
      spans[2 * n_groups] = i;
      spans[2 * n_groups + 1] = 0;
      n_groups++;
    }
    spans[2 * n_groups - 1]++;
  }
  qsort(spans, (size_t)n_groups, 2 * sizeof(int), cmp_first);
  for (g = 0; g < n_groups; g++)
    for (i = 0; i < spans[2 * g + 1]; i++)
      order[out++] = sorted[spans[2 * g] + i];
  free(sorted);
  free(spans);
  return 0;
}

int tn_select_leader(const tn_space *space, int k)
{
  int i, best = -1;
  for (i = 0; i < space->n; i++) {
    const tn_candidate *c = &space->c[i];
    if (timed(c, k) && (best < 0 || ms_at(c, k) < ms_at(&space->c[best], k)))
      best = i;
  }
  return best;
}

double tn_select_stop_ms(const tn_space *space, int leader, int k,
                         double min_noise)
{
  const tn_candidate *l = &space->c[leader];
  return ms_at(l, k) * (1.0 + tn_select_noise(l, k, min_noise));
}

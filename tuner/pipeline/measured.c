/* measured.c -- pruning by what the run has measured so far (measured.h). */
#include "pipeline/measured.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "pipeline/select.h"

int tn_measured_group_end(const tn_family *f, const tn_space *space,
                          const int *order, int n, int start)
{
  int i = start + 1;
  while (i < n && tn_space_siblings(f, &space->c[order[start]],
                                     &space->c[order[i]]))
    i++;
  return i;
}

static int timed(const tn_candidate *c)
{
  return c->status == TN_ST_OK && c->total_ms > 0;
}

/* The groups timed outside order[start..end): their spans in order, as
 * {first, end} pairs in spans; returns how many. */
static int timed_groups(const tn_family *f, const tn_space *space,
                        const int *order, int n, int start, int end,
                        int *spans)
{
  int g = 0, i = 0;
  while (i < n) {
    int e = tn_measured_group_end(f, space, order, n, i), j, any = 0;
    for (j = i; j < e && !any; j++)
      any = timed(&space->c[order[j]]);
    if (any && (e <= start || i >= end)) {
      spans[2 * g] = i;
      spans[2 * g + 1] = e;
      g++;
    }
    i = e;
  }
  return g;
}

/* The group bound (measured.h) on the members of order[start..end) that
 * are still to be timed: 1 and the reason if it prunes them. */
static int group_bound(const tn_space *space, const int *order, int start,
                       int end, const int *spans, int n_groups,
                       int n_problems, double min_noise, char *why,
                       size_t why_n)
{
  double tight = -1, t_lo = 0, t_stop = 0, t_ratio = 0, t_pred = 0;
  int k, g, j, t_k = 0, t_leader = -1;

  if (n_groups < TN_MEASURED_MIN_GROUPS)
    return 0;
  for (j = start; j < end; j++)
    if (timed(&space->c[order[j]]))
      return 0; /* timed in part already (a resumed run): not whole */
  for (k = 0; k < n_problems; k++) {
    double ratio = -1, pred = -1, lo, stop;
    int leader = tn_select_leader(space, k);
    if (leader < 0)
      return 0;
    for (g = 0; g < n_groups; g++) {
      double best_ms = -1, best_pred = -1;
      for (j = spans[2 * g]; j < spans[2 * g + 1]; j++) {
        const tn_candidate *c = &space->c[order[j]];
        if (!timed(c))
          continue;
        if (c->pred[k].ms <= 0)
          return 0; /* without a prediction nothing is bounded */
        if (best_ms < 0 || c->timing[k].median_ms < best_ms)
          best_ms = c->timing[k].median_ms;
        if (best_pred < 0 || c->pred[k].ms < best_pred)
          best_pred = c->pred[k].ms;
      }
      if (ratio < 0 || best_ms / best_pred < ratio)
        ratio = best_ms / best_pred;
    }
    for (j = start; j < end; j++) {
      const tn_candidate *c = &space->c[order[j]];
      if (c->status != TN_ST_COMPILED)
        continue;
      if (c->pred[k].ms <= 0)
        return 0;
      if (pred < 0 || c->pred[k].ms < pred)
        pred = c->pred[k].ms;
    }
    if (pred < 0)
      return 0; /* nothing left to time */
    lo = pred * ratio * (1 - TN_MEASURED_MARGIN);
    stop = tn_select_stop_ms(space, leader, k, min_noise);
    if (!(lo > stop))
      return 0;
    if (tight < 0 || lo / stop < tight) {
      tight = lo / stop;
      t_k = k;
      t_lo = lo;
      t_stop = stop;
      t_ratio = ratio;
      t_pred = pred;
      t_leader = space->c[leader].id;
    }
  }
  snprintf(why, why_n,
           "measured bound: at size %d (the closest of %d) the group's "
           "least predicted %.4g ms times %.3f (the least measured over "
           "predicted of the %d groups timed) less %.1f%% is %.4g ms, above "
           "%.4g ms (candidate %d's median there and its noise)",
           t_k + 1, n_problems, t_pred, t_ratio, n_groups,
           100 * TN_MEASURED_MARGIN, t_lo, t_stop, t_leader);
  return 1;
}

int tn_measured_decide(const tn_family *f, const tn_space *space,
                       const int *order, int n, int start, int end,
                       int n_problems, double min_noise,
                       tn_measured_verdict *v)
{
  int *spans = malloc(sizeof(int) * 2 * (size_t)(n > 0 ? n : 1));
  int n_groups, j, pruned = 0;
  char why[TN_REASON_LEN];

  memset(v, 0, sizeof(*v) * (size_t)(end - start));
  if (spans == NULL)
    return 0;
  n_groups = timed_groups(f, space, order, n, start, end, spans);
  if (group_bound(space, order, start, end, spans, n_groups, n_problems,
                  min_noise, why, sizeof(why))) {
    for (j = start; j < end; j++)
      if (space->c[order[j]].status == TN_ST_COMPILED) {
        v[j - start].prune = 1;
        tn_strlcpy(v[j - start].reason, why, sizeof(v[j - start].reason));
        pruned++;
      }
  }
  free(spans);
  return pruned;
}

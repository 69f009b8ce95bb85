/* select.h -- choose the winner among candidates that can be told apart.
 *
 * The fastest verified candidate by total median time is the reference.
 * Every verified candidate whose total is within the noise of it ties:
 * noise = max(min_noise, the reference's relative interquartile range).
 * Among ties the rule prefers, in order: fewer bytes of shared memory per
 * block, fewer registers per thread, fewer modelled wavefronts, and only
 * then the faster median.  A wrong result never takes part. */
#ifndef TN_SELECT_H
#define TN_SELECT_H

#include "pipeline/space.h"

#define TN_SELECT_RULE                                                       \
  "fastest median; within noise prefer less shared memory, then fewer "     \
  "registers, then fewer modelled wavefronts, then the faster median"

typedef struct {
  int best;        /* candidate index, -1 if none was verified and timed */
  int fastest;     /* the fastest by median (may differ from best) */
  int n_ties;      /* candidates within noise of the fastest, best included */
  int *ties;       /* their indices (malloc'd) */
  double noise;    /* the relative margin used */
} tn_selection;

/* Returns 0 and fills sel; sel->best is -1 when no candidate is ok. */
int tn_select(const tn_space *space, double min_noise, tn_selection *sel);
void tn_selection_free(tn_selection *sel);

/* The noise of the rule above with c as the reference. */
double tn_select_noise(const tn_candidate *c, double min_noise);

/* The order to benchmark in, likely winners first so that racing knows
 * the leader early: the model's cheapest of each group (same values of
 * every non-layout parameter) first, then the second cheapest of each,
 * and so on; by id within a round.  order gets space->n indices.  Returns
 * 0, or TN_ETOOL (out of memory). */
int tn_select_order(const tn_family *f, const tn_space *space, int *order);

/* The leader for racing: the fastest candidate verified and timed so far
 * (index, or -1), and the time over problems 0..k-1 above which c cannot
 * win or tie it, less what c took on problems before k: leader total *
 * (1 + noise) - c's medians on problems 0..k-1. */
int tn_select_leader(const tn_space *space);
double tn_select_stop_ms(const tn_space *space, int leader, double min_noise,
                         const tn_candidate *c, int k);

#endif

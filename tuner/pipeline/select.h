/* select.h -- choose the winner among candidates that can be told apart,
 * over all sizes of a job and at each size.
 *
 * The single best (today's rule, TN_SELECT_RULE): the fastest verified
 * candidate by the sum of its medians over the sizes is the reference.
 * Every verified candidate whose total is within the noise of it ties:
 * noise = max(min_noise, the reference's relative interquartile range, the
 * largest over the sizes).  Among ties the rule prefers, in order: fewer
 * bytes of shared memory per block, fewer registers per thread, fewer
 * modelled wavefronts, and only then the faster median.  A wrong result
 * never takes part.
 *
 * The winner of one size (TN_SELECT_SIZE_RULE) is the same rule on that
 * size's median, interquartile range and modelled wavefronts alone. */
#ifndef TN_SELECT_H
#define TN_SELECT_H

#include "pipeline/space.h"

#define TN_SELECT_RULE                                                       \
  "fastest median; within noise prefer less shared memory, then fewer "     \
  "registers, then fewer modelled wavefronts, then the faster median"
/* Its name in results and headers: the one configuration for all sizes. */
#define TN_SELECT_SINGLE "single best: the sum of the medians over the sizes"
#define TN_SELECT_SIZE_RULE                                                  \
  "fastest median at this size; within its noise prefer less shared "       \
  "memory, then fewer registers, then fewer modelled wavefronts at this "   \
  "size, then the faster median"

typedef struct {
  int best;        /* candidate index, -1 if none was verified and timed */
  int fastest;     /* the fastest by median (may differ from best) */
  int n_ties;      /* candidates within noise of the fastest, best included */
  int *ties;       /* their indices (malloc'd) */
  double noise;    /* the relative margin used */
  int size;        /* the size (problem index) chosen for; -1: all */
} tn_selection;

/* The single best.  Returns 0 and fills sel; sel->best is -1 when no
 * candidate is ok. */
int tn_select(const tn_space *space, double min_noise, tn_selection *sel);
/* The winner of size k (a problem index; -1: the single best). */
int tn_select_size(const tn_space *space, int k, double min_noise,
                   tn_selection *sel);
void tn_selection_free(tn_selection *sel);

/* The noise of the rule above with c as the reference, at size k (-1:
 * over all sizes). */
double tn_select_noise(const tn_candidate *c, int k, double min_noise);
/* The same of timings at n_problems sizes (a results file's candidate). */
double tn_select_noise_of(const tn_timing *timing, int n_problems, int k,
                          double min_noise);

/* The order to benchmark in, likely winners first so that racing knows
 * the leader early, and group by group so that the measured rules
 * (measured.h) see whole groups timed: the groups (same values of every
 * non-layout parameter) by their member of least predicted time (without
 * predictions the fewest wavefronts, then id), and within a group its
 * members in that order.  order gets space->n indices.  Returns 0, or
 * TN_ETOOL (out of memory). */
int tn_select_order(const tn_family *f, const tn_space *space, int *order);

/* Racing, size by size: the leader at size k is the fastest candidate
 * verified and timed so far by its median there (index, or -1), and a
 * candidate whose fastest launch at k is above the leader's median times
 * 1 + the leader's noise there cannot win or tie size k.  It still gets
 * its launches at the other sizes (it may win one), so every candidate's
 * total is a complete measurement for the single best; with one size this
 * is the rule on the total.  k < 0: on the totals. */
int tn_select_leader(const tn_space *space, int k);
double tn_select_stop_ms(const tn_space *space, int leader, int k,
                         double min_noise);

#endif

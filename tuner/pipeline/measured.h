/* measured.h -- pruning by what the run has measured so far: the time
 * model's predictions corrected by the groups already timed.
 *
 * The benchmark times group after group (siblings: the same values of
 * every non-layout parameter), the group of least predicted time first
 * (select.h).  For each group timed so far, its fastest measured time
 * over its least predicted time is the model's error there; the least of
 * those errors, less TN_MEASURED_MARGIN, times an untimed group's least
 * predicted time bounds how fast that group can run.  A group none of
 * whose members has been timed goes whole when that bound is above the
 * fastest time measured so far by more than that one's noise (select.h's
 * rule), at every size (each size's winner goes into the results and the
 * header's table by size), once TN_MEASURED_MIN_GROUPS groups are timed.
 * The static rules (space.h) bound with the model's own spread; this one
 * with the spread measured on this device in this run.
 *
 * Whole groups only, as across groups in space.h: within a group the
 * model's order of conflict-free layouts is not reliable, and neither is
 * a layout order measured in other groups.  The margin is the least at
 * which the replayed H200 runs lose no group's best (docs/notes/pruning.md
 * has both, with the figures). */
#ifndef TN_MEASURED_H
#define TN_MEASURED_H

#include "pipeline/space.h"

#define TN_MEASURED_MIN_GROUPS 2
#define TN_MEASURED_MARGIN 0.025

typedef struct {
  int prune;                  /* 1: prune it, for reason */
  char reason[TN_REASON_LEN];
} tn_measured_verdict;

/* The verdicts on the members of one group, order[start] to order[end -
 * 1] (a group of the benchmark's order, tn_select_order, of n entries),
 * from the candidates timed (TN_ST_OK) outside it, with n_problems sizes
 * and the selection's min_noise: every member still to be timed
 * (TN_ST_COMPILED) or none.  Decides before the group's first member is
 * timed.  v gets end - start verdicts.  Returns how many are to be
 * pruned. */
int tn_measured_decide(const tn_family *f, const tn_space *space,
                       const int *order, int n, int start, int end,
                       int n_problems, double min_noise,
                       tn_measured_verdict *v);

/* The end of the group that starts at order[start]. */
int tn_measured_group_end(const tn_family *f, const tn_space *space,
                          const int *order, int n, int start);

#endif

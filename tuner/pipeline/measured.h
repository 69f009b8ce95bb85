/* measured.h -- pruning by what the run has measured so far: the time
 * model's predictions corrected by the groups already timed, and the
 * layouts' order as those groups ran them.
 *
 * The benchmark times group after group (siblings: the same values of
 * every non-layout parameter), the group of least predicted time first
 * (select.h).  Before a candidate is timed, two rules may prune it, each
 * at every size (each size's winner goes into the results and the
 * header's table by size):
 *
 * - The group bound.  For each group timed so far, its fastest measured
 *   time over its least predicted time is the model's error there.  The
 *   least of those, less TN_MEASURED_MARGIN, times a group's least
 *   predicted time bounds how fast that group can run.  A group none of
 *   whose members has been timed goes whole when that bound is above the
 *   fastest time measured so far by more than its noise (select.h's), at
 *   every size, once TN_MEASURED_MIN_GROUPS groups are timed.  The static
 *   rules (space.h) bound with the model's own spread; this one with the
 *   spread measured on this device today.
 * - The layouts' order.  Layout L of a group goes when another layout L2
 *   of the group, one that no layout of the group beats so, ran faster
 *   than L beyond both one's noise plus TN_MEASURED_LAYOUT_MARGIN, at
 *   every size, in every group timed that timed both, and there were at
 *   least TN_MEASURED_MIN_GROUPS of those.  This is what the model cannot
 *   see among conflict-free layouts (tuner/model/README.md): which one
 *   the compiler and the memory system favour here.
 *
 * Both constants were fitted on the H200 runs of 2026-12-01 and
 * 2026-12-02 (results/model-check/README.md), deciding with one day's
 * measurements and judging with the other's. */
#ifndef TN_MEASURED_H
#define TN_MEASURED_H

#include "pipeline/space.h"

#define TN_MEASURED_MIN_GROUPS 2
#define TN_MEASURED_MARGIN 0.04
#define TN_MEASURED_LAYOUT_MARGIN 0.04

typedef struct {
  int prune;                  /* 1: prune it, for reason */
  char reason[TN_REASON_LEN];
} tn_measured_verdict;

/* The verdicts on the members of one group, order[start] to order[end -
 * 1] (a group of the benchmark's order, tn_select_order, of n entries),
 * from the candidates timed (TN_ST_OK) outside it, with n_problems sizes
 * and the selection's min_noise.  Decides before the group's first member
 * is timed: the rules see no member of its own group.  v gets end - start
 * verdicts.  Returns how many are to be pruned. */
int tn_measured_decide(const tn_family *f, const tn_space *space,
                       const int *order, int n, int start, int end,
                       int n_problems, double min_noise,
                       tn_measured_verdict *v);

/* The end of the group that starts at order[start]. */
int tn_measured_group_end(const tn_family *f, const tn_space *space,
                          const int *order, int n, int start);

#endif

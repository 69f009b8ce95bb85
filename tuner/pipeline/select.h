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

#endif

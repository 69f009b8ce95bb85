/* space_util.h -- the candidates of the tests' four-group transpose spaces
 * (tests/fixtures/configs/cpu-prune.cfg, cpu-measured.cfg: tile x
 * rows_per_thread, four layouts each), for test_prune.c and
 * test_measured.c. */
#ifndef TN_TEST_SPACE_UTIL_H
#define TN_TEST_SPACE_UTIL_H

#include <string.h>

#include "pipeline/space.h"
#include "test_util.h"

/* c's value of the int parameter name */
static inline long long tn_test_value(const tn_job *job,
                                      const tn_candidate *c,
                                      const char *name)
{
  int j;
  for (j = 0; j < job->family->n_params; j++)
    if (strcmp(job->family->params[j].name, name) == 0)
      return c->params.v[j].i;
  CHECK(!"no such parameter");
  return -1;
}

/* the group's index: tile 32 or 64, 4 or 8 rows a thread */
static inline int tn_test_group(const tn_job *job, const tn_candidate *c)
{
  return (tn_test_value(job, c, "tile") == 64) * 2 +
         (tn_test_value(job, c, "rows_per_thread") == 8);
}

#endif

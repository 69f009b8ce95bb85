/* family_util.h -- what tests of a family's rendering share: the value a
 * point's macros give one name. */
#ifndef TN_FAMILY_UTIL_H
#define TN_FAMILY_UTIL_H

#include <string.h>

#include "family/family.h"

/* The value of the macro called name in d, or NULL where d lacks it. */
static const char *define_of(const tn_defines *d, const char *name)
{
  int i;
  for (i = 0; i < d->n; i++)
    if (strcmp(d->name[i], name) == 0)
      return d->value[i];
  return NULL;
}

#endif

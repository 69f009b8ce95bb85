/* run_header.h -- the header of a run's winner, <output>/<arch>/<name>.h:
 * the run turned into the plain entry that tuner/emit/ writes (the single
 * best, measured on the run's device, with its table by size). */
#ifndef TN_RUN_HEADER_H
#define TN_RUN_HEADER_H

#include "base/util.h"
#include "pipeline/run.h"

/* The header's text (malloc'd).  Returns 0, TN_EINPUT (a name that makes
 * no C identifier) or TN_ETOOL (also: no verified candidate). */
int tn_run_header_text(const tn_run *run, char **text, tn_err *err);

/* Writes it to run->header_path atomically (making its folder).  Returns
 * as tn_run_header_text. */
int tn_run_header_write(const tn_run *run, tn_err *err);

#endif

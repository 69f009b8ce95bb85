/* table.h -- the table of candidates a run prints (stdout, after a run or
 * a dry run). */
#ifndef TN_TABLE_H
#define TN_TABLE_H

#include <stdio.h>

#include "pipeline/run.h"

/* Every candidate of run: parameters, status, the model's wavefronts per
 * block and worst degree, registers, the median, the rate and the share
 * of the first baseline; the reason under each that did not run; then
 * the baselines. */
void tn_run_print_table(const tn_run *run, FILE *out);

#endif

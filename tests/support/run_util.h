/* run_util.h -- a run's device for the C tests that write results files
 * without a GPU (test_results.c, test_sizes.c): one synthetic device, so
 * that what they check names the same GPU and times on every host. */
#ifndef TN_RUN_UTIL_H
#define TN_RUN_UTIL_H

#include <stdio.h>
#include <string.h>

#include "base/arch.h"
#include "pipeline/run.h"

/* Puts run on a synthetic sm_90 GPU (driver 13000) that ran for the first
 * minute of day (YYYY-MM-DD). */
static inline void tn_test_synthetic_gpu(tn_run *run, const char *day)
{
  run->arch = tn_arch_find("sm_90");
  run->have_device = 1;
  strcpy(run->device.name, "Synthetic GPU");
  strcpy(run->device.arch, "sm_90");
  run->device.cc_major = 9;
  run->device.driver_version = 13000;
  snprintf(run->started, sizeof(run->started), "%sT00:00:00Z", day);
  snprintf(run->finished, sizeof(run->finished), "%sT00:01:00Z", day);
}

#endif

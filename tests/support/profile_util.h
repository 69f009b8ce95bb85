/* profile_util.h -- a device profile by hand for the tests that predict
 * (test_time_model.c, test_prune.c): H200-like figures of the tests' own,
 * each a range of `spread` either side, so that no test depends on what
 * results/devices holds. */
#ifndef TN_TEST_PROFILE_UTIL_H
#define TN_TEST_PROFILE_UTIL_H

#include <string.h>

#include "model/profile.h"

static inline tn_range tn_test_range(double mid, double spread)
{
  tn_range r;
  r.mid = mid;
  r.lo = mid * (1 - spread);
  r.hi = mid * (1 + spread);
  return r;
}

static inline void tn_test_profile(tn_profile *p, double spread)
{
  memset(p, 0, sizeof(*p));
  tn_strlcpy(p->arch, "sm_90", sizeof(p->arch));
  tn_strlcpy(p->path, "synthetic", sizeof(p->path));
  p->sm_count = 132;
  p->clock_mhz = tn_test_range(1980, spread);
  p->launch_us = tn_test_range(4, spread);
  p->copy_gbs = tn_test_range(4000, spread);
  p->fma_tflops = tn_test_range(64, spread);
  p->imad_gops = tn_test_range(16000, spread);
  p->lop3_gops = tn_test_range(32000, spread);
  p->mma_tflops = tn_test_range(640, spread);
  p->smem_cycles_per_wavefront[0] = 1;
  p->smem_cycles_per_wavefront[1] = 1;
  p->smem_cycles_per_wavefront[2] = 1;
}

#endif

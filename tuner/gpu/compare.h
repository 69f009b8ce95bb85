/* compare.h -- an output compared with the output it should be, on the
 * GPU: elements of a floating type differ beyond atol + rtol |want| (a NaN
 * differs), integers differ in any bit.  What a fixed-inputs family's
 * check does with its reference's outputs, which stay on the device, so
 * that a check reads back a count and one element, not the buffers. */
#ifndef TN_COMPARE_H
#define TN_COMPARE_H

#include <stddef.h>

#include "family/elem.h"
#include "gpu/driver.h"

typedef struct {
  const tn_cuda *cu;
  tn_cuda_status *st;
  CUstream stream;
  int sm_count;
  CUmodule module; /* compiled once per worker, on first use */
  CUfunction fn;
  CUdeviceptr counts; /* 2 words: elements that differ, the first's index */
} tn_compare;

/* The comparison kernel's CUDA source (tests compile it). */
extern const char tn_compare_source[];

/* Compares count elements of type t at got and want.  0 with *bad (how
 * many differ) and *first (the lowest index of one, if any), or -1 with
 * why (a failing call: in c->st). */
int tn_compare_run(tn_compare *c, int cc_major, int cc_minor,
                   CUdeviceptr got, CUdeviceptr want, size_t count,
                   tn_elem_type t, double atol, double rtol,
                   unsigned long long *bad, unsigned long long *first,
                   char *why, size_t n);

void tn_compare_unload(tn_compare *c);

#endif

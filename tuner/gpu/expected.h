/* expected.h -- what a fixed-inputs family's checks compare with, in the
 * worker: the outputs of its reference kernel, run once per problem on
 * the problem's inputs and kept on the device, and the __constant__ symbols
 * every module of such a family holds, filled from the job's seed so that
 * the reference and every candidate see the same values. */
#ifndef TN_EXPECTED_H
#define TN_EXPECTED_H

#include "family/family.h"
#include "gpu/driver.h"
#include "gpu/inputs.h"

/* A reference kernel: its CUBIN's size (the bytes travel beside it), its
 * symbol, the point and launch it runs with. */
typedef struct {
  size_t cubin_len;
  char kernel[256];
  tn_params params;
  tn_launch launch;
} tn_reference;

typedef struct {
  const tn_cuda *cu;
  CUdeviceptr dev[TN_MAX_BUFFERS]; /* the outputs; 0 for the inputs */
  unsigned long long key;          /* what they were made from, 0: none */
} tn_expected;

/* Fills the __constant__ symbols (f->constants) that module mod holds for
 * p on prob, each from its own seed.  0, or -1 with why (a symbol the
 * module lacks or that is too small; a failing call: in->st). */
int tn_constants_set(tn_inputs *in, const tn_family *f, const tn_params *p,
                     const tn_problem *prob, CUmodule mod,
                     unsigned long long seed, char *why, size_t n);

/* Runs reference ref (its CUBIN ref_cubin) once on prob's inputs, made
 * from seed into bufs' set 0, and keeps its outputs in e, unless e
 * already holds those of the same reference, point, launch, problem and
 * seed.  0, or -1 with why ("the reference: ..."). */
int tn_expected_ensure(tn_expected *e, tn_inputs *in, tn_buffers *bufs,
                       const tn_family *f, const tn_reference *ref,
                       const void *ref_cubin, const tn_problem *prob,
                       unsigned long long seed, char *why, size_t n);

/* Frees the outputs kept (e->cu set: the memory is the device's). */
void tn_expected_clear(tn_expected *e);

#endif

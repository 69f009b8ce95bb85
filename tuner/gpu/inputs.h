/* inputs.h -- a problem's buffers and what is in them before a check,
 * inside the worker: fresh random inputs and poisoned outputs, in each
 * buffer's element type.
 *
 * The inputs are made on the GPU, by a generator kernel compiled once per
 * worker: element i of a buffer of type t filled from seed holds
 * tn_random_elem(seed, i, t) (family/family.h), so that a check on the
 * host or in a reference kernel can recompute any input from the seed.
 * 2-byte elements are written as raw bits: bf16 as the top half of the
 * fp32 value's pattern, fp16 through cvt.rn.f16.f32 (exact: the value is
 * an fp16 value); the 8-bit floats by their encoder (exact too).  Outputs
 * are poisoned with a NaN of their type. */
#ifndef TN_INPUTS_H
#define TN_INPUTS_H

#include <stddef.h>

#include "family/family.h"
#include "gpu/driver.h"

/* The poison of fp32 outputs: a quiet NaN with a payload no arithmetic
 * produces. */
#define TN_POISON_BITS 0x7fc0deadu
/* The poison of 2-byte outputs: a NaN in bf16 and in fp16 alike (all
 * exponent bits and a mantissa bit set in both), so one value serves
 * both. */
#define TN_POISON_BITS16 0x7fffu

/* The poison of 1-byte float outputs: S.1111.111, a NaN in e4m3 and in
 * e5m2 alike. */
#define TN_POISON_BITS8 0x7fu

/* The poison of integer outputs, in every byte; of fp64 outputs, this
 * word twice (a NaN). */
#define TN_POISON_BYTE 0xa5u
#define TN_POISON_BITS64_HALF 0x7ff8deadu

#define TN_MAX_SETS 8

/* The buffers of one problem: its descriptions, a pinned host copy of
 * each when the family checks on the host, and `sets` device copies of
 * each, rotated while timing. */
typedef struct {
  int n;
  int sets;
  tn_buffer_desc desc[TN_MAX_BUFFERS];
  void *host[TN_MAX_BUFFERS];      /* pinned; NULL: checked on the GPU */
  void *host_init[TN_MAX_BUFFERS]; /* pinned, INOUT only */
  CUdeviceptr dev[TN_MAX_SETS][TN_MAX_BUFFERS];
  CUdeviceptr dev_init[TN_MAX_BUFFERS]; /* INOUT buffers' starting values */
} tn_buffers;

/* The generator's CUDA source: kernel tn_fill_random(x, n, seed, type)
 * with type a tn_elem_type.  Public for the test that compiles it for
 * several architectures. */
extern const char tn_inputs_generator_source[];
/* The kernel tn_fill_values(x, n, seed, type, kind, a, b): the other
 * inits (tn_buffer_init) of a described kernel's buffers, in any element
 * type.  Compiled with the generator, in one module. */
extern const char tn_inputs_values_source[];

/* The generator and what it runs with: the driver, the stream, where a
 * failing call is recorded (the bench's), the device's SM count. */
typedef struct {
  const tn_cuda *cu;
  tn_cuda_status *st;
  CUstream stream;
  int sm_count;
  CUmodule module; /* once loaded */
  CUfunction fn;
  CUfunction values_fn; /* tn_fill_values: the inits of a user's buffers */
} tn_inputs;

/* Compiles the generator for compute capability major.minor (or the
 * nearest older architecture the tuner knows) and loads it, once.
 * Returns 0, or -1 with why (a failing CUDA call: in st, why empty). */
int tn_inputs_load(tn_inputs *in, int cc_major, int cc_minor, char *why,
                   size_t n);
void tn_inputs_unload(tn_inputs *in);

/* Poisons every output of every set, fills every input of set 0 (INOUT:
 * dev_init) from the buffer's seed tn_buffer_seed(seed, b), copies it to
 * the other sets and reads it back where the host keeps a copy.  Returns
 * 0, or -1 with why (a buffer of no whole number of elements of a known
 * type: a bug in the family) or, for a failing CUDA call, in st. */
int tn_inputs_fill(tn_inputs *in, tn_buffers *bufs, unsigned long long seed,
                   char *why, size_t n);

#endif

/* size.h -- how a family tells problem sizes apart: its size keys, the
 * distance of two sizes in them, and the nearest of a list.  This is the
 * rule of the headers' run-time lookup by size: tuner/emit/sizes.c writes
 * the very same arithmetic as C into them, and tests/test_sizes.c runs
 * both on the same sizes.
 *
 * A key is a product of the dimensions to integer powers.  GEMM's keys
 * are M, N and K; transpose's the aspect rows / cols and the elements
 * rows * cols (its kernels care about the shape and the amount, not about
 * rows and cols one by one).  A family without keys has its dimensions.
 *
 * The distance of sizes a and b is the product over the keys of
 * max(r, 1/r), r = key(a) / key(b): the exponential of the L1 distance of
 * the keys' logarithms, so that 2x too large and 2x too small are equally
 * far.  The nearest size of a list is the one at the least distance; two
 * distances within a relative 1e-9 tie, and a tie goes to the larger size
 * (the larger product of the dimensions, then the larger first dimension
 * that differs), so a lookup halfway between two measured sizes is
 * deterministic and takes the one measured with more work per launch,
 * whose times the launch overhead disturbs least.  A dimension below 1
 * counts as 1. */
#ifndef TN_SIZE_H
#define TN_SIZE_H

#include "family/param.h"

#define TN_MAX_SIZE_KEYS 4

/* One key of a family: key(s) = prod_i s.dims[i] ^ exp[i]. */
typedef struct {
  const char *name;     /* "aspect" */
  int exp[TN_MAX_DIMS]; /* powers, -4 .. 4 */
} tn_size_key;

/* A family's keys, complete: its own, or one per dimension. */
typedef struct {
  int n_dims;
  int n;
  char name[TN_MAX_SIZE_KEYS][24];
  int exp[TN_MAX_SIZE_KEYS][TN_MAX_DIMS];
} tn_size_keys;

/* The keys of a family with n_dims dimensions named dim_names ("M, N,
 * K"): keys[0 .. n_keys-1], or with keys NULL the dimensions. */
void tn_size_keys_make(const tn_size_key *keys, int n_keys, int n_dims,
                       const char *dim_names, tn_size_keys *out);

/* The distance of a and b (>= 1; 1: the same size for the family). */
double tn_size_distance(const tn_size_keys *k, const tn_size *a,
                        const tn_size *b);

/* 1 if a is larger than b by the tie rule above. */
int tn_size_larger(const tn_size *a, const tn_size *b);

/* The index of the size of list[0 .. n-1] nearest to want, -1 if n is 0. */
int tn_size_nearest(const tn_size_keys *k, const tn_size *list, int n,
                    const tn_size *want);

/* 1 if a and b are one size for the family (distance 1 within 1e-9). */
int tn_size_same(const tn_size_keys *k, const tn_size *a, const tn_size *b);

/* The relative margin within which distances tie. */
#define TN_SIZE_TIE 1e-9

#endif

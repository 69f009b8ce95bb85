/* transpose_check.h -- the transpose family's check (transpose_check.c),
 * private to the family's parts: every element of out = in^T, of
 * whichever width, must match its input bit for bit, on the host or on
 * the GPU. */
#ifndef TN_TRANSPOSE_CHECK_H
#define TN_TRANSPOSE_CHECK_H

#include "family/family.h"

/* The buffers, as the family describes them (buffers()). */
enum { TN_TRANSPOSE_BUF_IN, TN_TRANSPOSE_BUF_OUT };

/* The check with both buffers on the host: 0 right, 1 with why. */
int tn_transpose_verify(tn_verify_env *env, char *why, size_t n);

/* The CUDA source of the GPU's comparison (tn_transpose_check_init,
 * tn_transpose_check). */
extern const char tn_transpose_reference_source[];

/* The same comparison on the GPU, reading back only its counts: 0, 1
 * with why, or -1 if the check could not run. */
int tn_transpose_verify_device(tn_verify_env *env, char *why, size_t n);

#endif

/* tmap.h -- tensor maps: what a family asks of the copy engine (TMA).
 *
 * On sm_90 and later a kernel can have tiles moved between global and
 * shared memory by the tensor memory accelerator, described by a tensor
 * map (CUtensorMap, 128 bytes) that the host encodes with
 * cuTensorMapEncodeTiled against a device pointer and passes as a
 * `__grid_constant__` kernel parameter.  A family describes each map over
 * one of its buffers (tn_family.tensor_maps); the GPU side
 * (gpu/tmap.c) encodes it against the pointer of the buffer set being
 * launched -- the bench rotates sets, so a map is made per set -- and puts
 * it before the family's other arguments.  The rules the driver enforces
 * are checked here first, so that a candidate that cannot work is
 * excluded before it is compiled, with its reason. */
#ifndef TN_TMAP_H
#define TN_TMAP_H

#include <stddef.h>

#include "family/param.h"

#define TN_TMAP_MAX_RANK 5
#define TN_MAX_TMAPS 4

typedef struct {
  int buffer;         /* index into the family's buffers() */
  tn_elem_type elem;  /* any: the copy engine moves its width */
  int rank;           /* 1 to 5 */
  unsigned long long dims[TN_TMAP_MAX_RANK];     /* elements, innermost
                                                    first */
  unsigned long long strides[TN_TMAP_MAX_RANK - 1]; /* bytes, of dims 1.. */
  unsigned box[TN_TMAP_MAX_RANK];  /* elements the box spans per dim */
  int swizzle;        /* bytes: 0 (none), 32, 64, 128 */
  int l2_promotion;   /* bytes: 0 (none), 64, 128, 256 */
  /* Interleave is always none and the element strides 1; elements out of
   * the tensor read as zero (the driver's OOB_FILL_NONE) and writes to
   * them are dropped. */
} tn_tmap_desc;

/* Checks d against cuTensorMapEncodeTiled's rules (CUDA 12/13 driver API
 * documentation): rank 1..5, dims in 1..2^32, strides multiples of 16
 * below 2^40 and not below the extent of the dimension under them, box
 * dims in 1..256, the box's inner extent a multiple of 16 bytes and, under
 * a swizzle, not more than its span.  The base address is the caller's
 * (16-byte aligned; device allocations are).  Returns 0, or 1 with
 * "which rule" in why. */
int tn_tmap_check(const tn_tmap_desc *d, char *why, size_t n);

/* Bytes one box of d moves: the transaction count a load's mbarrier
 * expects (out-of-bounds elements, filled with zeros, count too). */
long long tn_tmap_box_bytes(const tn_tmap_desc *d);

#endif

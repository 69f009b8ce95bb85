/* tmap.c -- the copy engine's rules for a tensor map, checked before a
 * candidate is compiled (tmap.h). */
#include <stdio.h>

#include "family/tmap.h"

long long tn_tmap_box_bytes(const tn_tmap_desc *d)
{
  long long b = tn_elem_bytes(d->elem);
  int i;
  for (i = 0; i < d->rank && i < TN_TMAP_MAX_RANK; i++)
    b *= d->box[i];
  return b;
}

int tn_tmap_check(const tn_tmap_desc *d, char *why, size_t n)
{
  int e = tn_elem_bytes(d->elem), i;
  unsigned long long extent;

  if (e == 0) {
    snprintf(why, n, "tensor map: element type %d is not one the copy "
                     "engine takes", (int)d->elem);
    return 1;
  }
  if (d->rank < 1 || d->rank > TN_TMAP_MAX_RANK) {
    snprintf(why, n, "tensor map: rank %d is not 1 to %d", d->rank,
             TN_TMAP_MAX_RANK);
    return 1;
  }
  if (d->swizzle != 0 && d->swizzle != 32 && d->swizzle != 64 &&
      d->swizzle != 128) {
    snprintf(why, n, "tensor map: a swizzle of %d bytes is not none, 32, "
                     "64 or 128", d->swizzle);
    return 1;
  }
  if (d->l2_promotion != 0 && d->l2_promotion != 64 &&
      d->l2_promotion != 128 && d->l2_promotion != 256) {
    snprintf(why, n, "tensor map: an L2 promotion of %d bytes is not none, "
                     "64, 128 or 256", d->l2_promotion);
    return 1;
  }
  extent = (unsigned long long)e * d->dims[0];
  for (i = 0; i < d->rank; i++) {
    if (d->dims[i] < 1 || d->dims[i] > (1ULL << 32)) {
      snprintf(why, n, "tensor map: dimension %d of %llu elements is not "
                       "in 1..2^32", i, d->dims[i]);
      return 1;
    }
    if (d->box[i] < 1 || d->box[i] > 256) {
      snprintf(why, n, "tensor map: box dimension %d of %u elements is not "
                       "in 1..256", i, d->box[i]);
      return 1;
    }
    if (i > 0) {
      unsigned long long s = d->strides[i - 1];
      if (s % 16 != 0 || s >= (1ULL << 40)) {
        snprintf(why, n, "tensor map: the stride of dimension %d, %llu "
                         "bytes, is not a multiple of 16 below 2^40 (the "
                         "copy engine's rule)", i, s);
        return 1;
      }
      if (s < extent) {
        snprintf(why, n, "tensor map: the stride of dimension %d, %llu "
                         "bytes, is less than the %llu bytes under it", i,
                 s, extent);
        return 1;
      }
      extent = s * d->dims[i];
    }
  }
  if ((d->box[0] * (unsigned)e) % 16 != 0) {
    snprintf(why, n, "tensor map: the box's inner dimension, %u bytes, is "
                     "not a multiple of 16", d->box[0] * (unsigned)e);
    return 1;
  }
  if (d->swizzle != 0 && d->box[0] * (unsigned)e > (unsigned)d->swizzle) {
    snprintf(why, n, "tensor map: the box's inner dimension, %u bytes, "
                     "spans more than the %d-byte swizzle",
             d->box[0] * (unsigned)e, d->swizzle);
    return 1;
  }
  return 0;
}

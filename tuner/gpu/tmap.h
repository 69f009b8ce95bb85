/* tmap.h -- a kernel's arguments with its tensor maps encoded.
 *
 * The family describes its maps (family/tmap.h); here each is encoded with
 * the driver's cuTensorMapEncodeTiled against the device pointer of the
 * buffer it names in the set about to be launched, and placed before the
 * family's own arguments, as the kernel declares them. */
#ifndef TN_GPU_TMAP_H
#define TN_GPU_TMAP_H

#include "family/family.h"
#include "gpu/driver.h"

/* Encodes d over the buffer at base into map (128 bytes, 64-byte
 * aligned).  Returns 0, or -1 with the driver's error in why. */
int tn_tmap_encode(const tn_cuda *cu, const tn_tmap_desc *d, tn_devptr base,
                   void *map, char *why, size_t n);

/* Fills a (zeroed by the caller) with f's arguments for p on prob over
 * buffers bufs: its tensor maps, encoded, then args(), then workspace
 * unless 0 (the launch's, where tn_launch.workspace_block asks for one:
 * the caller allocates it).  Returns 0, or -1 with why (a map the driver
 * refused, too many arguments). */
int tn_kernel_args(const tn_cuda *cu, const tn_family *f, const tn_params *p,
                   const tn_problem *prob, const tn_devptr *bufs,
                   tn_devptr workspace, tn_args *a, char *why, size_t n);

#endif

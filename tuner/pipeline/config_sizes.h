/* config_sizes.h -- problem.sizes of a config: sizes, and size classes
 * that write many of them compactly (docs/config.md):
 *
 *   sizes = [8192, 8192];                       one size
 *   sizes = ( [1024, 1024, 1024], CLASS, ... ); sizes and classes
 *   sizes = CLASS;                              one class
 *
 * A class is a group with every dimension of the family (M, N, K; rows,
 * cols), each an integer, a list of integers, a range { from = A; to = B;
 * times = T; } (A, A*T, A*T^2, ... up to B: powers of two with from = 1,
 * times = 2) or { from = A; to = B; step = S; }, or the name of another
 * dimension (the same value: "M" for squares).  A class is the product of
 * its lists, the last dimension varying fastest.  Two sizes that are one
 * for the family (its size keys, family/size.h) are an error, as is more
 * than TN_MAX_SIZES sizes.
 *
 * It reads through config_read.h, so numbers are checked as written and
 * every message names FILE:LINE, the same way as everywhere in a
 * config. */
#ifndef TN_CONFIG_SIZES_H
#define TN_CONFIG_SIZES_H

#include <libconfig.h>

#include "family/family.h"
#include "family/param.h"
#include "pipeline/config_read.h"

/* The largest dimension a config accepts. */
#define TN_MAX_DIM 2147483647LL

/* problem.sizes (the setting sizes) of family f into out[0 .. *n_out-1],
 * each a copy of base with its size.  Returns 0 or TN_EINPUT (in rd's
 * err). */
int tn_config_sizes(tn_cfg *rd, const config_setting_t *sizes,
                    const tn_family *f, const tn_problem *base,
                    tn_problem *out, int *n_out);

#endif

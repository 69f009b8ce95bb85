/* grid_fit.h -- the grid a persistent kernel takes on this GPU: as many
 * whole clusters as run at once (tn_launch.fit_grid), from the driver's
 * occupancy calculator.  A fixed count (the SMs of the GPU a config was
 * written for) leaves a second wave on a GPU with fewer SMs, and clusters
 * of 4 do not all fit a GPC at one block an SM (30 of 33 on an H100). */
#ifndef TN_GRID_FIT_H
#define TN_GRID_FIT_H

#include "family/family.h"
#include "gpu/driver.h"

/* *blocks gets the blocks of l's grid that run at once on the device of
 * fn (sm_count SMs), at most l->grid[0]: cuOccupancyMaxActiveClusters'
 * clusters of l->cluster blocks, or without clusters
 * cuOccupancyMaxActiveBlocksPerMultiprocessor's blocks times the SMs.
 * Returns CUDA_SUCCESS, or the failing call's result with its name in
 * *call (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES where not one cluster fits). */
CUresult tn_grid_fit(const tn_cuda *cu, CUfunction fn, const tn_launch *l,
                     int sm_count, unsigned *blocks, const char **call);

#endif

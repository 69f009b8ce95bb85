/* grid_fit.c -- the grid a persistent kernel takes on this GPU
 * (grid_fit.h). */
#include "gpu/grid_fit.h"

#include <string.h>

CUresult tn_grid_fit(const tn_cuda *cu, CUfunction fn, const tn_launch *l,
                     int sm_count, unsigned *blocks, const char **call)
{
  int cl = l->cluster > 1 ? l->cluster : 1, n = 0;
  unsigned long long fit;
  CUresult r;
  if (cl == 1) {
    *call = "cuOccupancyMaxActiveBlocksPerMultiprocessor";
    r = cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(
        &n, fn, l->threads, (size_t)l->smem_dynamic);
    fit = (unsigned long long)n * (unsigned long long)sm_count;
  } else {
    /* the kernel's __cluster_dims__ given again: the calculator takes the
     * cluster from the launch's attributes, which must match it */
    CUlaunchConfig cfg;
    CUlaunchAttribute at;
    memset(&cfg, 0, sizeof(cfg));
    memset(&at, 0, sizeof(at));
    at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    at.value.clusterDim.x = (unsigned)cl;
    at.value.clusterDim.y = at.value.clusterDim.z = 1;
    cfg.gridDimX = (unsigned)cl;
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = l->block[0];
    cfg.blockDimY = l->block[1];
    cfg.blockDimZ = l->block[2];
    cfg.sharedMemBytes = (unsigned)l->smem_dynamic;
    cfg.attrs = &at;
    cfg.numAttrs = 1;
    *call = "cuOccupancyMaxActiveClusters";
    if (cu->cuOccupancyMaxActiveClusters == NULL) {
      *call = "cuOccupancyMaxActiveClusters (a driver of CUDA 11.8 or later)";
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    r = cu->cuOccupancyMaxActiveClusters(&n, fn, &cfg);
    fit = (unsigned long long)n * (unsigned long long)cl;
  }
  if (r != CUDA_SUCCESS)
    return r;
  if (fit == 0)
    return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  *blocks = fit < l->grid[0] ? (unsigned)fit : l->grid[0];
  return CUDA_SUCCESS;
}

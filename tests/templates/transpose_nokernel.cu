/* transpose_nokernel.cu -- a template that compiles but defines no kernel
 * named transpose (it was renamed): the tuner must say so and exit 2,
 * before any GPU work (tests/bad_input.sh, tests/configs/nokernel.cfg). */
#include "../../templates/smem_layout.h"

extern "C" __global__ void transpose_tile(const float *__restrict__ in,
                                          float *__restrict__ out, int rows,
                                          int cols)
{
  __shared__ float tile[TN_TILE * (TN_TILE + TN_PAD)];
  int x = blockIdx.x * TN_TILE + threadIdx.x;
  int y = blockIdx.y * TN_TILE + threadIdx.y;
  if (x < cols && y < rows)
    tile[threadIdx.y * (TN_TILE + TN_PAD) + threadIdx.x] = in[y * cols + x];
  __syncthreads();
  if (x < rows && y < cols)
    out[y * rows + x] = tile[threadIdx.x * (TN_TILE + TN_PAD) + threadIdx.y];
}

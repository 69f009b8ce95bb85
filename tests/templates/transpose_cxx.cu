/* transpose_cxx.cu -- a template whose kernel transpose is not extern "C":
 * its name is mangled, so the CUBIN has no entry point "transpose"; the
 * tuner must say so and exit 2 (tests/bad_input.sh, tests/configs/cxx.cfg). */
#include "../../templates/smem_layout.h"

__global__ void transpose(const float *__restrict__ in,
                          float *__restrict__ out, int rows, int cols)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
}

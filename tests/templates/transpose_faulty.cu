/* transpose_faulty.cu -- the transpose template with faults planted by the
 * value of TN_PAD, for the GPU test of a run that survives them
 * (tests/configs/gpu-faults.cfg, tests/gpu_faults.sh):
 *   pad 0  correct
 *   pad 1  traps (__trap: the context is lost)
 *   pad 2  writes far out of bounds (an illegal address: the context is lost)
 *   pad 3  never ends (the supervisor's timeout)
 *   pad 4  swaps two elements of its tile (a wrong result, and fast)
 *   pad 5  correct again: the run went on after all of the above
 * The shared-memory layout is otherwise that of templates/transpose.cu. */
#include "../../templates/smem_layout.h"

#define TN_BLOCK_Y (TN_TILE / TN_ROWS_PER_THREAD)
#define TILE_AT(row, col)                                                    \
  tn_smem_offset((row), (col), TN_TILE, TN_PAD, TN_SWIZZLE_B, TN_SWIZZLE_M,   \
                 TN_SWIZZLE_S)

extern "C" __global__ void __launch_bounds__(TN_TILE * TN_BLOCK_Y)
transpose(const float *__restrict__ in, float *__restrict__ out,
          int rows, int cols)
{
  __shared__ float tile[TN_TILE * (TN_TILE + TN_PAD)];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tiles_c = (cols + TN_TILE - 1) / TN_TILE;
  const int row0 = (blockIdx.x / tiles_c) * TN_TILE;
  const int col0 = (blockIdx.x % tiles_c) * TN_TILE;

#if TN_PAD == 1
  if (blockIdx.x == 7 && tx == 0 && ty == 0)
    __trap();
#elif TN_PAD == 2
  if (blockIdx.x == 7 && tx == 0 && ty == 0)
    out[(size_t)1 << 40] = 1.0f;
#elif TN_PAD == 3
  if (blockIdx.x == 7) {
    /* clock64() is volatile: the compiler cannot drop this loop */
    long long start = clock64();
    while (clock64() - start >= 0)
      ;
  }
#endif
#pragma unroll
  for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
    int r = ty + j * TN_BLOCK_Y;
    if (row0 + r < rows && col0 + tx < cols)
      tile[TILE_AT(r, tx)] = in[(size_t)(row0 + r) * cols + col0 + tx];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
    int r = ty + j * TN_BLOCK_Y;
    int c = tx;
#if TN_PAD == 4
    if (blockIdx.x == 3 && r == 0 && tx < 2)
      c = 1 - tx; /* swaps out[col0][row0] and out[col0][row0 + 1] */
#endif
    if (col0 + r < cols && row0 + c < rows)
      out[(size_t)(col0 + r) * rows + row0 + tx] = tile[TILE_AT(c, r)];
  }
}

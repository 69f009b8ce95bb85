/* transpose.cu -- tiled out-of-place transpose of a row-major fp32 matrix.
 *
 * out (cols x rows) = transpose(in (rows x cols)), any rows and cols.
 * Rendered by the tuner, which defines before this text:
 *   TN_TILE             tile edge in elements (8 .. 64, a power of two)
 *   TN_ROWS_PER_THREAD  tile rows each thread moves (divides TN_TILE)
 *   TN_PAD              padding elements at the end of each tile row
 *   TN_SWIZZLE_B, _M, _S  Swizzle<B, M, S> of the tile (B = 0: none)
 * A block is TN_TILE x (TN_TILE / TN_ROWS_PER_THREAD) threads and moves one
 * TN_TILE x TN_TILE tile; blockIdx.x walks columns, blockIdx.y rows.
 *
 * The shared-memory accesses below are exactly those the tuner's model
 * prices (tuner/family/transpose.c): per thread, TN_ROWS_PER_THREAD 4-byte
 * stores of row ty + j * BY, column tx, then as many 4-byte loads of row tx,
 * column ty + j * BY, each predicated on the element lying in the matrix.
 */
#include "smem_layout.h"

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
  const int row0 = blockIdx.y * TN_TILE, col0 = blockIdx.x * TN_TILE;

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
    if (col0 + r < cols && row0 + tx < rows)
      out[(size_t)(col0 + r) * rows + row0 + tx] =
          tile[TILE_AT(tx, r)];
  }
}

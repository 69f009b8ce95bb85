/* transpose.cu -- tiled out-of-place transpose of a row-major fp32 matrix.
 *
 * out (cols x rows) = transpose(in (rows x cols)), any rows and cols.
 * Rendered by the tuner, which defines before this text:
 *   TN_TILE             tile edge in elements (8 .. 64, a power of two)
 *   TN_ROWS_PER_THREAD  tile rows each thread moves (divides TN_TILE)
 *   TN_PAD              padding elements at the end of each tile row
 *   TN_SWIZZLE_B, _M, _S  Swizzle<B, M, S> of the tile (B = 0: none)
 *   TN_GROUP            tile rows per group in the order blocks take tiles
 * A block is TN_TILE x (TN_TILE / TN_ROWS_PER_THREAD) threads and moves one
 * TN_TILE x TN_TILE tile.  The grid is one-dimensional: block b takes tiles
 * in groups of TN_GROUP tile rows, column by column within a group, so
 * that blocks running at the same time read and write compact regions of
 * both matrices (TN_GROUP = 1: row by row).  Interior tiles take a path
 * without bounds checks; both paths make the same shared-memory accesses.
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
  const int tiles_r = (rows + TN_TILE - 1) / TN_TILE;
  const int tiles_c = (cols + TN_TILE - 1) / TN_TILE;
  const int per_group = TN_GROUP * tiles_c;
  const int group = blockIdx.x / per_group, in_group = blockIdx.x % per_group;
  const int first = group * TN_GROUP;
  const int height = min(tiles_r - first, TN_GROUP);
  const int row0 = (first + in_group % height) * TN_TILE;
  const int col0 = (in_group / height) * TN_TILE;
  const float *src = in + (size_t)row0 * cols + col0;
  float *dst = out + (size_t)col0 * rows + row0;

  if (row0 + TN_TILE <= rows && col0 + TN_TILE <= cols) {
#pragma unroll
    for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
      int r = ty + j * TN_BLOCK_Y;
      tile[TILE_AT(r, tx)] = src[(size_t)r * cols + tx];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
      int r = ty + j * TN_BLOCK_Y;
      dst[(size_t)r * rows + tx] = tile[TILE_AT(tx, r)];
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
    int r = ty + j * TN_BLOCK_Y;
    if (row0 + r < rows && col0 + tx < cols)
      tile[TILE_AT(r, tx)] = src[(size_t)r * cols + tx];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
    int r = ty + j * TN_BLOCK_Y;
    if (col0 + r < cols && row0 + tx < rows)
      dst[(size_t)r * rows + tx] = tile[TILE_AT(tx, r)];
  }
}

/* transpose.cu -- tiled out-of-place transpose of a row-major fp32 matrix.
 *
 * out (cols x rows) = transpose(in (rows x cols)), any rows and cols.
 * Rendered by the tuner, which defines before this text:
 *   TN_TILE             tile edge in elements (8 .. 64, a power of two)
 *   TN_ROWS_PER_THREAD  tile rows each thread moves (divides TN_TILE)
 *   TN_VEC              elements each thread moves per row (1, 2, 4): the
 *                       width of its global loads and stores
 *   TN_PAD              padding elements at the end of each tile row
 *   TN_SWIZZLE_B, _M, _S  Swizzle<B, M, S> of the tile (B = 0: none)
 *   TN_GROUP            tile rows per group in the order blocks take tiles
 * and the layout values its access plan derives from them (computed once,
 * in shape_of() of tuner/family/transpose.c):
 *   TN_THREADS_X, TN_BLOCK_Y  the block: TN_TILE / TN_VEC x
 *                       TN_TILE / TN_ROWS_PER_THREAD threads
 *   TN_THREADS          TN_THREADS_X * TN_BLOCK_Y
 *   TN_SW               width in elements of the fast path's shared stores
 *   TN_SMEM_ELEMS       elements of the padded tile
 * A block is (TN_TILE / TN_VEC) x (TN_TILE / TN_ROWS_PER_THREAD) threads and
 * moves one TN_TILE x TN_TILE tile.  The grid is one-dimensional: block b
 * takes tiles in groups of TN_GROUP tile rows, column by column within a
 * group, so that blocks running together touch compact regions of both
 * matrices (TN_GROUP = 1: row by row).
 *
 * Interior tiles of a matrix whose sizes are multiples of TN_VEC take a
 * path without bounds checks, with TN_VEC-wide global accesses and shared
 * stores TN_SW elements wide: the widest the padding and swizzle keep
 * contiguous and aligned.  Other tiles move element by element, each
 * access predicated on lying in the matrix.  The tuner's access plan
 * (tuner/family/transpose.c) lists exactly these shared-memory accesses;
 * the TN_TRACE_* hooks (smem_trace.h) mark each one for the drift test.
 */
#include "smem_layout.h"
#include "smem_trace.h"

#define TILE_AT(row, col)                                                    \
  tn_smem_offset((row), (col), TN_TILE, TN_PAD, TN_SWIZZLE_B, TN_SWIZZLE_M,   \
                 TN_SWIZZLE_S)

/* What the plan assumes of the defines. */
static_assert(TN_THREADS_X * TN_VEC == TN_TILE,
              "a tile row is TN_THREADS_X vectors of TN_VEC");
static_assert(TN_BLOCK_Y * TN_ROWS_PER_THREAD == TN_TILE,
              "TN_BLOCK_Y rows of threads cover the tile");
static_assert(TN_THREADS == TN_THREADS_X * TN_BLOCK_Y, "threads");
static_assert(TN_SW == 1 || TN_SW == 2 || TN_SW == 4, "store width");
static_assert(TN_VEC % TN_SW == 0, "the store width divides the vector");
static_assert(TN_PAD % TN_SW == 0, "the pad keeps the stores aligned");
static_assert(TN_SWIZZLE_B == 0 || (1 << TN_SWIZZLE_M) >= TN_SW,
              "the swizzle keeps the stores' chunks whole");
static_assert(TN_SMEM_ELEMS == TN_TILE * (TN_TILE + TN_PAD),
              "the padded tile");

template <int N> struct vec_of;
template <> struct vec_of<1> { typedef float type; };
template <> struct vec_of<2> { typedef float2 type; };
template <> struct vec_of<4> { typedef float4 type; };
typedef vec_of<TN_VEC>::type vec_t;
typedef vec_of<TN_SW>::type store_t;

extern "C" __global__ void __launch_bounds__(TN_THREADS)
transpose(const float *__restrict__ in, float *__restrict__ out,
          int rows, int cols)
{
  __shared__ __align__(16) float tile[TN_SMEM_ELEMS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tiles_r = (rows + TN_TILE - 1) / TN_TILE;
  const int tiles_c = (cols + TN_TILE - 1) / TN_TILE;
  const int per_group = TN_GROUP * tiles_c;
  const int group = blockIdx.x / per_group, in_group = blockIdx.x % per_group;
  const int first = group * TN_GROUP;
  const int height = min(tiles_r - first, TN_GROUP);
  const int row0 = (first + in_group % height) * TN_TILE;
  const int col0 = (in_group / height) * TN_TILE;
  const int c0 = TN_VEC * tx;
  const float *src = in + (size_t)row0 * cols + col0;
  float *dst = out + (size_t)col0 * rows + row0;
  TN_TRACE_BASE(tile);

  if (row0 + TN_TILE <= rows && col0 + TN_TILE <= cols &&
      ((rows | cols) & (TN_VEC - 1)) == 0) {
#pragma unroll
    for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
      int r = ty + j * TN_BLOCK_Y;
      vec_t v = *reinterpret_cast<const vec_t *>(src + (size_t)r * cols + c0);
      const float *e = reinterpret_cast<const float *>(&v);
#pragma unroll
      for (int k = 0; k < TN_VEC; k += TN_SW) {
        TN_TRACE_ST(&tile[TILE_AT(r, c0 + k)], 4 * TN_SW, true);
        *reinterpret_cast<store_t *>(&tile[TILE_AT(r, c0 + k)]) =
            *reinterpret_cast<const store_t *>(e + k);
      }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
      int r = ty + j * TN_BLOCK_Y;
      vec_t v;
      float *e = reinterpret_cast<float *>(&v);
#pragma unroll
      for (int k = 0; k < TN_VEC; k++) {
        TN_TRACE_LD(&tile[TILE_AT(c0 + k, r)], 4, true);
        e[k] = tile[TILE_AT(c0 + k, r)];
      }
      *reinterpret_cast<vec_t *>(dst + (size_t)r * rows + c0) = v;
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
    int r = ty + j * TN_BLOCK_Y;
#pragma unroll
    for (int k = 0; k < TN_VEC; k++) {
      const bool in = row0 + r < rows && col0 + c0 + k < cols;
      TN_TRACE_ST(&tile[TILE_AT(r, c0 + k)], 4, in);
      if (in)
        tile[TILE_AT(r, c0 + k)] = src[(size_t)r * cols + c0 + k];
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
    int r = ty + j * TN_BLOCK_Y;
#pragma unroll
    for (int k = 0; k < TN_VEC; k++) {
      const bool in = col0 + r < cols && row0 + c0 + k < rows;
      TN_TRACE_LD(&tile[TILE_AT(c0 + k, r)], 4, in);
      if (in)
        dst[(size_t)r * rows + c0 + k] = tile[TILE_AT(c0 + k, r)];
    }
  }
}

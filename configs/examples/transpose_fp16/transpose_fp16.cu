// Transpose of a rows x cols matrix of 2-byte elements (fp16 or bf16: the
// kernel moves their bits) through a shared tile of tile x tile elements.
//
// The parameters are macros the tuner defines, as Kernel Tuner does:
//   tile            the tile's side, in elements
//   block_size_y    rows of threads; each takes rows ty, ty + block_size_y,
//                   ... of the tile (the block's x is tile / pack)
//   pack            elements a thread moves at a time: 1, or 2 (one 4-byte
//                   global load and shared store of two neighbours in a
//                   row; two 2-byte shared loads of neighbours in a column
//                   and one 4-byte global store)
//   pad             unused pairs of elements (4 bytes) after each row of
//                   the tile
//   swz             the tile's swizzle: swz_B, swz_M, swz_S are CuTe's
//                   Swizzle<B, M, S>, on the offsets of pairs
//
// The tile is stored as pairs of elements: (r, c) is half c % 2 of pair
// (r, c / 2), and the layout permutes and pads whole pairs, so that the
// two neighbours a packed thread moves stay one aligned 4-byte word.
// The problem's sizes are arguments; the config's constraints make them
// multiples of the tile.

typedef unsigned short elem_t;  // the bits of an fp16 or bf16
typedef unsigned int pair_t;    // two of them, the lower first
#define pairs_per_row (tile / 2)

// The offset, in elements, of element (r, c) of the tile: its pair's
// offset swizzled (off ^= (off >> S) & (((1 << B) - 1) << M), as CuTe's
// Swizzle<B, M, S>), then padded after every row, and the half.
__device__ __forceinline__ int tile_offset(int r, int c)
{
  int p = r * pairs_per_row + c / 2;
  p ^= (p >> swz_S) & (((1 << swz_B) - 1) << swz_M);
  p = p / pairs_per_row * (pairs_per_row + pad) + p % pairs_per_row;
  return 2 * p + c % 2;
}

extern "C" __global__ void __launch_bounds__(tile / pack * block_size_y)
transpose_fp16(elem_t *out, const elem_t *in, int rows, int cols)
{
  __shared__ pair_t pairs[tile * (pairs_per_row + pad)];
  elem_t *const halves = reinterpret_cast<elem_t *>(pairs);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r0 = blockIdx.y * tile, c0 = blockIdx.x * tile;

  // The tile from in, row by row: thread tx takes columns pack * tx ...
#pragma unroll
  for (int j = 0; j < tile; j += block_size_y) {
    const int r = ty + j;
    const size_t from = (size_t)(r0 + r) * cols + c0 + pack * tx;
#if pack == 2
    // (r, 2 tx) is the lower half of its pair: one aligned word
    const pair_t v = *reinterpret_cast<const pair_t *>(in + from);
    pairs[tile_offset(r, 2 * tx) / 2] = v;
#else
    halves[tile_offset(r, tx)] = in[from];
#endif
  }
  __syncthreads();

  // Column c of the tile is row c0 + c of out: thread tx writes its
  // elements pack * tx ..., read down the tile's column.
#pragma unroll
  for (int j = 0; j < tile; j += block_size_y) {
    const int c = ty + j;
    const size_t to = (size_t)(c0 + c) * rows + r0 + pack * tx;
#if pack == 2
    const pair_t lo = halves[tile_offset(2 * tx, c)];
    const pair_t hi = halves[tile_offset(2 * tx + 1, c)];
    *reinterpret_cast<pair_t *>(out + to) = lo | hi << 16;
#else
    out[to] = halves[tile_offset(tx, c)];
#endif
  }
}

// The reference: one element a thread, straight through global memory.
extern "C" __global__ void
transpose_naive(elem_t *out, const elem_t *in, int rows, int cols)
{
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

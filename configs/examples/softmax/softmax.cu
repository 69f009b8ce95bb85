// Softmax of every row of a rows x cols fp32 matrix.  Each block takes
// rows_per_block whole rows through shared memory: a row is read from
// global memory once, into a shared tile, and the two passes over it (the
// maximum, then the sum of exponentials) and the output read the tile.
//
// The parameters are macros the tuner defines, as Kernel Tuner does:
//   block_size_x    threads per row, a multiple of 32 (the block's x)
//   rows_per_block  rows per block (the block's y)
//   items           consecutive elements of a row a thread takes at a time
//                   in the two passes
//   pad             unused floats after every group of `items` elements in
//                   the tile: the groups' stride, against bank conflicts
//   reduce          0: a row's partial results folded by a tree in shared
//                   memory; 1: by warp shuffles, then one value per warp
//                   through shared memory
// The problem's sizes are arguments; the config's constraints make cols a
// multiple of block_size_x * items and rows one of rows_per_block.
//
// Each shared-memory access the config's plan declares is written so that
// it is one instruction per warp, as the plan counts them: loops whose
// trip counts are the same for every thread of a warp, no address read
// twice between two barriers, and no warp that issues an access with all
// its lanes idle.

#define block_threads (block_size_x * rows_per_block)
#define warps_per_row (block_size_x / 32)
// -infinity: NVRTC has no math.h for INFINITY
#define minus_inf __int_as_float(0xff800000)

// A group of items is read in vectors where it is aligned to them.
#if pad == 0 && items % 4 == 0
#define vec 4
#elif pad == 0 && items % 2 == 0
#define vec 2
#else
#define vec 1
#endif

// Where element i (row-major over the block's rows) lives in the tile.
__device__ __forceinline__ int slot(int i)
{
  return i / items * (items + pad) + i % items;
}

// Calls f on each of the items floats at p (a group of the tile).
template <typename F>
__device__ __forceinline__ void each_item(const float *p, F f)
{
#pragma unroll
  for (int k = 0; k < items; k += vec) {
#if vec == 4
    const float4 v = *reinterpret_cast<const float4 *>(p + k);
    f(v.x);
    f(v.y);
    f(v.z);
    f(v.w);
#elif vec == 2
    const float2 v = *reinterpret_cast<const float2 *>(p + k);
    f(v.x);
    f(v.y);
#else
    f(p[k]);
#endif
  }
}

struct max_op {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct sum_op {
  __device__ float operator()(float a, float b) const { return a + b; }
};

#if reduce == 0
// A tree over the row's block_size_x partial results: the upper half
// folds onto the lower, then its upper half, ... down to one.  The fold is
// a block-stride loop (one trip for tx < s, none above) rather than an
// `if`: ptxas predicates a short `if`, and a warp whose lanes all fail the
// test would still issue its loads and store.
template <typename Op>
__device__ float row_reduce(float v, float (*part)[block_size_x], Op op)
{
  const int tx = threadIdx.x, ty = threadIdx.y;
  part[ty][tx] = v;
  __syncthreads();
#pragma unroll 1
  for (int s = block_size_x / 2; s > 0; s >>= 1) {
    for (int i = tx; i < s; i += blockDim.x)
      part[ty][i] = op(part[ty][i], part[ty][i + s]);
    __syncthreads();
  }
  v = part[ty][0];
  __syncthreads(); // part is written again by the next reduction
  return v;
}
#else
// Each warp folds its 32 values by shuffles; with several warps to a row,
// lane 0 of each leaves the warp's result in shared memory and every
// thread reads the row's results, as a float2 or float4s (all lanes of a
// warp read the same: a broadcast).
template <typename Op>
__device__ float row_reduce(float v, float (*part)[warps_per_row], Op op)
{
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, d));
#if warps_per_row > 1
  const int tx = threadIdx.x, ty = threadIdx.y;
  if (tx % 32 == 0)
    part[ty][tx / 32] = v;
  __syncthreads();
#if warps_per_row == 2
  const float2 r = *reinterpret_cast<const float2 *>(part[ty]);
  v = op(r.x, r.y);
#else
  const float4 *q = reinterpret_cast<const float4 *>(part[ty]);
  float4 r = q[0];
  v = op(op(r.x, r.y), op(r.z, r.w));
#pragma unroll
  for (int w = 1; w < warps_per_row / 4; w++) {
    r = q[w];
    v = op(v, op(op(r.x, r.y), op(r.z, r.w)));
  }
#endif
  __syncthreads(); // part is written again by the next reduction
#endif
  return v;
}
#endif

extern "C" __global__ void __launch_bounds__(block_threads)
softmax(float *out, const float *in, int rows, int cols)
{
  extern __shared__ __align__(16) float tile[]; // the rows, in groups
#if reduce == 0
  __shared__ float part[rows_per_block][block_size_x];
#else
  __shared__ __align__(16) float part[rows_per_block][warps_per_row];
#endif
  const int tx = threadIdx.x, ty = threadIdx.y;
  const size_t row = (size_t)blockIdx.x * rows_per_block + ty;
  const int first = ty * cols; // the row's first element in the tile
  const int groups = cols / items;

  // The row into the tile, coalesced: cols / block_size_x stores a thread.
  for (int c = tx; c < cols; c += block_size_x)
    tile[slot(first + c)] = in[row * cols + c];
  __syncthreads();

  // Thread tx takes groups tx, tx + block_size_x, ... of its row.
  const float *mine = tile + (ty * groups + tx) * (items + pad);
  const int stride = block_size_x * (items + pad);

  float m = minus_inf;
#pragma unroll 1
  for (int g = tx; g < groups; g += block_size_x)
    each_item(mine + (g - tx) / block_size_x * stride,
              [&](float x) { m = fmaxf(m, x); });
  m = row_reduce(m, part, max_op());

  float s = 0.0f;
#pragma unroll 1
  for (int g = tx; g < groups; g += block_size_x)
    each_item(mine + (g - tx) / block_size_x * stride,
              [&](float x) { s += expf(x - m); });
  s = row_reduce(s, part, sum_op());

  const float inv = 1.0f / s;
  for (int c = tx; c < cols; c += block_size_x)
    out[row * cols + c] = expf(tile[slot(first + c)] - m) * inv;
}

// The reference: one warp per row, straight from global memory.
extern "C" __global__ void
softmax_naive(float *out, const float *in, int rows, int cols)
{
  const int lane = threadIdx.x % 32;
  const size_t row = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row >= (size_t)rows)
    return;
  const float *x = in + row * cols;
  float m = minus_inf, s = 0.0f;
  for (int c = lane; c < cols; c += 32)
    m = fmaxf(m, x[c]);
  for (int d = 16; d > 0; d >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
  for (int c = lane; c < cols; c += 32)
    s += expf(x[c] - m);
  for (int d = 16; d > 0; d >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, d);
  for (int c = lane; c < cols; c += 32)
    out[row * cols + c] = expf(x[c] - m) / s;
}

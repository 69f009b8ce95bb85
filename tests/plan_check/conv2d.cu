// A 2-D convolution with a filter_width x filter_width filter, written the
// way a kernel developer writes one for a tuner: the block shape, the
// outputs each thread computes and the shared tile's padding are macros
// the tuner defines (block_size_x, block_size_y, tile_size_x, tile_size_y,
// pad), so that the same file tunes with this tuner and with Kernel Tuner.
//
// out is rows x cols; in is (rows + filter_width - 1) x (cols +
// filter_width - 1): the image with its halo around it.  The filter sits
// in constant memory, filled by the host.
#ifndef filter_width
#define filter_width 17
#endif
#define halo (filter_width - 1)
#define tile_rows (block_size_y * tile_size_y + halo)
#define tile_cols (block_size_x * tile_size_x + halo)

__constant__ float d_filter[filter_width * filter_width];

extern "C" __global__ void
conv2d(float *out, const float *in, int rows, int cols)
{
  __shared__ float tile[tile_rows][tile_cols + pad];
  const int threads = block_size_x * block_size_y;
  const int tid = threadIdx.y * block_size_x + threadIdx.x;
  const int row0 = blockIdx.y * block_size_y * tile_size_y;
  const int col0 = blockIdx.x * block_size_x * tile_size_x;
  const int in_rows = rows + halo, in_cols = cols + halo;

  // The tile and its halo, element by element in the block's order.  One
  // pass of the loop is one store of every active lane: the loop is kept
  // a loop so that no warp runs a pass twice (see the config's plan).
#pragma unroll 1
  for (int i = tid; i < tile_rows * tile_cols; i += threads) {
    int r = i / tile_cols, c = i % tile_cols;
    int gr = row0 + r, gc = col0 + c;
    tile[r][c] = gr < in_rows && gc < in_cols ? in[gr * in_cols + gc] : 0.0f;
  }
  __syncthreads();

#pragma unroll 1
  for (int ty = 0; ty < tile_size_y; ty++) {
#pragma unroll 1
    for (int tx = 0; tx < tile_size_x; tx++) {
      const int r = threadIdx.y + ty * block_size_y;
      const int c = threadIdx.x + tx * block_size_x;
      float sum = 0.0f;
#pragma unroll
      for (int i = 0; i < filter_width; i++)
#pragma unroll
        for (int j = 0; j < filter_width; j++)
          sum += tile[r + i][c + j] * d_filter[i * filter_width + j];
      if (row0 + r < rows && col0 + c < cols)
        out[(row0 + r) * cols + col0 + c] = sum;
    }
  }
}

// The reference: one output per thread, straight from global memory.
extern "C" __global__ void
conv2d_naive(float *out, const float *in, int rows, int cols)
{
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int in_cols = cols + halo;
  float sum = 0.0f;
  if (r >= rows || c >= cols)
    return;
  for (int i = 0; i < filter_width; i++)
    for (int j = 0; j < filter_width; j++)
      sum += in[(r + i) * in_cols + c + j] * d_filter[i * filter_width + j];
  out[r * cols + c] = sum;
}

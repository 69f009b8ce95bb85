// A test kernel: y = alpha * x through a shared tile of block_size floats
// (tests/configs/cpu-user.cfg and the bad-user-*.cfg configs).
extern "C" __global__ void scale(float *y, const float *x, float alpha, int n)
{
  __shared__ float tile[block_size + pad];
  int i = blockIdx.x * block_size + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n)
    y[i] = alpha * tile[threadIdx.x];
}
extern "C" __global__ void scale_ref(float *y, const float *x, float alpha, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i];
}

// A kernel that is wrong on purpose when `bug` is 1 (tests/configs/
// gpu-user.cfg): the check must catch it.
#ifndef bug
#define bug 0
#endif
extern "C" __global__ void scale_bug(float *y, const float *x, float alpha,
                                     int n)
{
  __shared__ float tile[block_size + pad];
  int i = blockIdx.x * block_size + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n)
    y[i] = alpha * tile[threadIdx.x] + (bug && i == n / 3 ? 1.0f : 0.0f);
}

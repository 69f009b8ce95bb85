// A test kernel of many element types (tests/configs/gpu-user-types.cfg):
// 8- and 16-bit integers in, an fp64 and an int32 out, an fp32 buffer read
// and written, a __constant__ table the host fills.
__constant__ int offsets[16];

extern "C" __global__ void mix(double *wide, int *exact, float *acc,
                               const signed char *a,
                               const unsigned short *b, long long n)
{
  __shared__ int table[16 + pad];
  long long i = (long long)blockIdx.x * block_size + threadIdx.x;
  if (threadIdx.x < 16)
    table[threadIdx.x] = offsets[threadIdx.x];
  __syncthreads();
  if (i < n) {
    int o = table[i % 16];
    wide[i] = 0.5 * a[i] + b[i] + o;
    exact[i] = a[i] + 3 * b[i] + o;
    acc[i] += 1.0f;
  }
}

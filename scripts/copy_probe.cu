/* copy_probe.cu -- what the transposes' baseline, the device copy, is
 * bounded by: the device-to-device cudaMemcpyAsync against two copies on
 * the SMs, timed the same way, for each size given (MiB); run under
 * Nsight Compute, the SMs' copies show their DRAM and L2 fabric
 * throughput beside the transposes' (docs/notes/transpose-widths.md).
 *
 *   nvcc -O3 -arch=sm_90 -o copy_probe scripts/copy_probe.cu
 *   ./copy_probe 64 256          # MiB moved each way
 *
 * grid_stride: 16-byte vectors, as many blocks as fit the GPU at once,
 * each walking the buffer a grid apart.  one_chunk: a block per 16 KiB,
 * each thread 4 vectors loaded before its stores (a transpose tile's
 * shape of work, without the transposition). */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                       \
              cudaGetErrorString(e_));                                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__global__ void grid_stride(const int4 *__restrict__ in, int4 *__restrict__ out,
                            size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

__global__ void one_chunk(const int4 *__restrict__ in, int4 *__restrict__ out,
                          size_t n) {
  size_t base = blockIdx.x * (size_t)blockDim.x * 4 + threadIdx.x;
  int4 v[4];
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (base + k * blockDim.x < n)
      v[k] = in[base + k * blockDim.x];
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (base + k * blockDim.x < n)
      out[base + k * blockDim.x] = v[k];
}

/* Median of reps launches of what, in ms, each timed alone by events. */
template <typename F> static float median_ms(F what, int reps) {
  cudaEvent_t a, b;
  float t[201];
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 10; i++)
    what();
  for (int i = 0; i < reps; i++) {
    CHECK(cudaEventRecord(a));
    what();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&t[i], a, b));
  }
  for (int i = 1; i < reps; i++)
    for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
      float x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
  return t[reps / 2];
}

int main(int argc, char **argv) {
  int sms, per_sm, reps = 101;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_stride, 256,
                                                      0));
  printf("size_mib,copy,ms,GB/s,pct_of_memcpy\n");
  for (int a = 1; a < argc; a++) {
    size_t bytes = (size_t)atol(argv[a]) << 20, n = bytes / 16;
    void *in, *out;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMemset(in, 1, bytes));
    float m = median_ms(
        [&] {
          CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice));
        },
        reps);
    float g = median_ms(
        [&] {
          grid_stride<<<sms * per_sm, 256>>>((const int4 *)in, (int4 *)out, n);
        },
        reps);
    float c = median_ms(
        [&] {
          one_chunk<<<(unsigned)((n + 1023) / 1024), 256>>>((const int4 *)in,
                                                            (int4 *)out, n);
        },
        reps);
    CHECK(cudaGetLastError());
    const char *names[3] = {"memcpy", "grid_stride", "one_chunk"};
    float ms[3] = {m, g, c};
    for (int k = 0; k < 3; k++)
      printf("%s,%s,%.4f,%.1f,%.1f\n", argv[a], names[k], ms[k],
             2.0 * bytes / ms[k] / 1e6, 100.0 * m / ms[k]);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
  }
  return 0;
}

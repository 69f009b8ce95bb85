/* ce_probe.cu -- does the device-to-device cudaMemcpyAsync, the
 * transposes' baseline, run on the copy engines or as a kernel on the
 * SMs?  A kernel fills every SM for 20 ms; the copy, issued on another
 * stream right after it starts, finishes long before the kernel if the
 * copy engines move it, and only after it if it needs the SMs.
 *
 *   nvcc -O3 -arch=sm_90 -o ce_probe scripts/ce_probe.cu
 *   ./ce_probe 256               # MiB copied */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "probe_check.h"

__global__ void spin(long long cycles, int *sink) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  if (threadIdx.x == 0 && cycles < 0)
    *sink = 1; /* never: keeps the loop */
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 256, n = mib << 20;
  void *a, *b;
  int *sink, sms, per_sm, khz;
  CHECK(cudaMalloc(&a, n));
  CHECK(cudaMalloc(&b, n));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMemset(a, 1, n));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, spin, 1024, 0));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t e0, e1, e2;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventCreate(&e2));
  float alone = 0;
  for (int i = 0; i < 5; i++) { /* the last of five, warm */
    CHECK(cudaEventRecord(e0, s2));
    CHECK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, s2));
    CHECK(cudaEventRecord(e1, s2));
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaEventElapsedTime(&alone, e0, e1));
  }
  const long long cycles = (long long)khz * 20; /* 20 ms at the rated clock */
  for (int i = 0; i < 3; i++) {
    float copy_ms, kernel_ms;
    CHECK(cudaEventRecord(e0, s1));
    spin<<<sms * per_sm, 1024, 0, s1>>>(cycles, sink);
    CHECK(cudaEventRecord(e2, s1));
    CHECK(cudaStreamWaitEvent(s2, e0, 0));
    CHECK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, s2));
    CHECK(cudaEventRecord(e1, s2));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventElapsedTime(&copy_ms, e0, e1));
    CHECK(cudaEventElapsedTime(&kernel_ms, e0, e2));
    printf("copy %zu MiB: alone %.3f ms; beside a kernel filling all %d SMs "
           "(%d blocks of 1024): copy done at %.3f ms, kernel at %.3f ms -> "
           "%s\n",
           mib, alone, sms, sms * per_sm, copy_ms, kernel_ms,
           copy_ms < 0.5 * kernel_ms ? "copy engines" : "waits for the SMs");
  }
  return 0;
}

#include "../gemm-bf16_dispatch.h"
#include <cstdio>
__global__ void which(int *out) {
#if defined(GEMM_BF16_FAMILY_GEMM_WG)
  out[0] = 1;
#elif defined(GEMM_BF16_FAMILY_GEMM_TC)
  out[0] = 2;
#else
  out[0] = 0;
#endif
}
int main() {
  int *d, h = -1;
  cudaMalloc(&d, 4);
  which<<<1, 1>>>(d);
  cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost);
  printf("device code picked: %s\n", h == 1 ? "gemm_wg (wgmma)" : h == 2 ? "gemm_tc (mma.sync)" : "none");
  return 0;
}

// ldgsts_sequence.cu -- does a cp.async's shared-memory wavefront count
// depend on the cp.async before it?  The GEMM template's A-tile copy (rows
// of 16 floats, 4 lanes a row, row pitch K floats, two copies a thread) is
// issued from one warp and from eight, back to back or each waited for.
// Run under `ncu --section SourceCounters` and read the per-instruction
// "L1 Wavefronts Shared" (scripts/gpu_runs.sh ldgsts-sequence).
#include <cstdio>
#include <cuda_runtime.h>

#define REPS 16
#define K 64            // row pitch in floats (the GEMM's lda)

__device__ __forceinline__ void cp16(float *dst, const float *src, bool in)
{
  unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d),
               "l"(src), "r"(in ? 16 : 0) : "memory");
}
__device__ __forceinline__ void wait_all()
{
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

// slot s = it * threads + tid: tile row s / 4, column 4 * (s % 4)
template <int THREADS, bool WAIT_BETWEEN, int ROWS>
__global__ void copy_a(const float *A, int zero_rows)
{
  __shared__ __align__(128) float As[ROWS * 16];
  const int tid = threadIdx.x;
  for (int r = 0; r < REPS; r++) {
#pragma unroll
    for (int it = 0; it < ROWS * 4 / THREADS; it++) {
      const int s = it * THREADS + tid, o = s / 4, c = 4 * (s % 4);
      const bool in = o < ROWS - zero_rows;
      cp16(As + o * 16 + c, in ? A + (size_t)o * K + c : A, in);
      if (WAIT_BETWEEN)
        wait_all();
    }
    wait_all();
    __syncwarp();
  }
}

// the B tile: rows of 128 floats, a warp copies one whole row per copy
template <int THREADS>
__global__ void copy_b(const float *B, int n_valid)
{
  __shared__ __align__(128) float Bs[16 * 128];
  const int tid = threadIdx.x;
  for (int r = 0; r < REPS; r++) {
#pragma unroll
    for (int it = 0; it < 512 / THREADS; it++) {
      const int s = it * THREADS + tid, o = s / 32, c = 4 * (s % 32);
      const bool in = c < n_valid;
      cp16(Bs + o * 128 + c, in ? B + (size_t)o * 256 + c : B, in);
    }
    wait_all();
    __syncwarp();
  }
}

int main()
{
  float *buf;
  cudaMalloc(&buf, 1 << 24);
  cudaMemset(buf, 0, 1 << 24);
  copy_a<32, false, 16><<<1, 32>>>(buf, 0);   // one warp, two copies
  copy_a<32, true, 16><<<1, 32>>>(buf, 0);    // the same, each waited for
  copy_a<32, false, 32><<<1, 32>>>(buf, 0);   // one warp, four copies
  copy_a<256, false, 128><<<1, 256>>>(buf, 0); // the GEMM block's A tile
  copy_a<32, false, 16><<<1, 32>>>(buf, 8);   // rows 8-15 zero-filled
  copy_b<32><<<1, 32>>>(buf, 128);            // one warp, B rows
  copy_b<32><<<1, 32>>>(buf, 72);             // n edge: 72 valid
  copy_b<256><<<1, 256>>>(buf, 72);
  cudaError_t e = cudaDeviceSynchronize();
  printf("ldgsts_sequence: %s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}

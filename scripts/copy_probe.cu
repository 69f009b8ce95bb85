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
 * shape of work, without the transposition).  four_chunks: a block per
 * four such chunks in turn, each thread loading the next chunk's vectors
 * before it stores the last's (a transpose block moving several tiles).
 * big_chunks: as many blocks as fit, walking 32 KiB chunks, each thread's
 * 8 vectors loaded before its stores.  bulk: the copy engine of each SM
 * (TMA's 1-D bulk copies) moving 16 KiB chunks through a ring of four
 * buffers a block, one thread issuing, as many blocks as fit (the
 * transposes' copy-engine path, without the transposition).  words_4k: the
 * device copy's own shape, as Nsight Compute's range replay counts it on
 * an H100 (a block of 256 threads per 4 KiB, four 4-byte loads a thread,
 * then the stores).  one_chunk_4: one_chunk with shared memory enough to
 * hold 4 blocks an SM (64 KiB in flight an SM where 8 hold 128).  Each SM
 * copy is checked once, byte by byte.  A device copy that waits for the
 * SMs is a kernel (scripts/ce_probe.cu would tell). */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "../templates/tma_ops.h"
#include "probe_check.h"

__global__ void grid_stride(const int4 *__restrict__ in, int4 *__restrict__ out,
                            size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

/* A thread's V vectors of the chunk from base, blockDim.x apart: loaded
 * into v, or stored from it, those inside the buffer of n. */
template <int V>
__device__ __forceinline__ void load_vectors(int4 (&v)[V],
                                             const int4 *__restrict__ in,
                                             size_t base, size_t n) {
#pragma unroll
  for (int k = 0; k < V; k++)
    if (base + k * blockDim.x < n)
      v[k] = in[base + k * blockDim.x];
}

template <int V>
__device__ __forceinline__ void store_vectors(int4 *__restrict__ out,
                                              const int4 (&v)[V],
                                              size_t base, size_t n) {
#pragma unroll
  for (int k = 0; k < V; k++)
    if (base + k * blockDim.x < n)
      out[base + k * blockDim.x] = v[k];
}

__global__ void one_chunk(const int4 *__restrict__ in, int4 *__restrict__ out,
                          size_t n) {
  extern __shared__ int4 unused[]; /* a launch's share caps its blocks */
  size_t base = blockIdx.x * (size_t)blockDim.x * 4 + threadIdx.x;
  int4 v[4];
  load_vectors(v, in, base, n);
  store_vectors(out, v, base, n);
}

__global__ void four_chunks(const int4 *__restrict__ in,
                            int4 *__restrict__ out, size_t n) {
  int4 v[4];
  size_t base = blockIdx.x * (size_t)blockDim.x * 16 + threadIdx.x;
  load_vectors(v, in, base, n);
#pragma unroll
  for (int c = 0; c < 4; c++, base += 4 * blockDim.x) {
    int4 w[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
      w[k] = v[k];
    if (c < 3) /* the next chunk's loads in flight through these stores */
#pragma unroll
      for (int k = 0; k < 4; k++)
        if (base + (4 + k) * blockDim.x < n)
          v[k] = in[base + (4 + k) * blockDim.x];
    store_vectors(out, w, base, n);
  }
}

/* As many blocks as fit, each walking 32 KiB chunks a grid apart, every
 * thread's 8 vectors of a chunk loaded before its stores. */
__global__ void big_chunks(const int4 *__restrict__ in,
                           int4 *__restrict__ out, size_t n) {
  for (size_t base = blockIdx.x * (size_t)blockDim.x * 8 + threadIdx.x;
       base < n; base += (size_t)gridDim.x * blockDim.x * 8) {
    int4 v[8];
    load_vectors(v, in, base, n);
    store_vectors(out, v, base, n);
  }
}

/* A block per 4 KiB, each thread 4 words of 4 bytes, 256 threads apart. */
__global__ void words_4k(const int *__restrict__ in, int *__restrict__ out,
                         size_t n) {
  size_t base = blockIdx.x * (size_t)1024 + threadIdx.x;
  int v[4];
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (base + k * 256 < n)
      v[k] = in[base + k * 256];
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (base + k * 256 < n)
      out[base + k * 256] = v[k];
}

#define CAP_SMEM (56 * 1024) /* 4 blocks in an SM's 228 KiB */

#define BULK_CHUNK 16384
#define BULK_RING 4

/* One thread a block: chunk i of the block's (blockIdx.x + i gridDim.x)
 * loaded by the copy engine into buffer i % BULK_RING, then stored from
 * it; a buffer is refilled once its store has read it. */
__global__ void bulk(const char *__restrict__ in, char *__restrict__ out,
                     size_t chunks) {
  extern __shared__ __align__(128) char ring[];
  __shared__ __align__(8) unsigned long long full[BULK_RING];
  if (threadIdx.x != 0)
    return;
  for (int s = 0; s < BULK_RING; s++)
    tn_mbar_init(&full[s], 1);
  tn_mbar_init_fence();
  auto load = [&](size_t c, int s) {
    tn_mbar_expect_tx(&full[s], BULK_CHUNK);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx"
                 "::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     tn_smem_u32(ring + s * BULK_CHUNK)),
                 "l"(in + c * BULK_CHUNK), "r"(BULK_CHUNK),
                 "r"(tn_smem_u32(&full[s]))
                 : "memory");
  };
  for (int s = 0; s < BULK_RING; s++)
    if (blockIdx.x + (size_t)s * gridDim.x < chunks)
      load(blockIdx.x + (size_t)s * gridDim.x, s);
  for (size_t i = 0;; i++) {
    size_t c = blockIdx.x + i * gridDim.x;
    if (c >= chunks)
      break;
    int s = (int)(i % BULK_RING);
    tn_mbar_wait(&full[s], (unsigned)(i / BULK_RING) & 1u);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], "
                 "%2;\n" ::"l"(out + c * BULK_CHUNK),
                 "r"(tn_smem_u32(ring + s * BULK_CHUNK)), "r"(BULK_CHUNK)
                 : "memory");
    tn_tma_store_commit();
    size_t next = c + (size_t)BULK_RING * gridDim.x;
    if (next < chunks) {
      tn_tma_store_wait_read(); /* the buffer's store has read it */
      load(next, s);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
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
  int bulk_per_sm, big_per_sm;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&big_per_sm, big_chunks,
                                                      256, 0));
  CHECK(cudaFuncSetAttribute(bulk, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             BULK_RING * BULK_CHUNK));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &bulk_per_sm, bulk, 32, BULK_RING * BULK_CHUNK));
  CHECK(cudaFuncSetAttribute(
      one_chunk, cudaFuncAttributeMaxDynamicSharedMemorySize, CAP_SMEM));
  printf("size_mib,copy,ms,GB/s,pct_of_memcpy\n");
  for (int a = 1; a < argc; a++) {
    size_t bytes = (size_t)atol(argv[a]) << 20, n = bytes / 16;
    void *in, *out;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMemset(in, 1, bytes));
    const int4 *vin = (const int4 *)in;
    int4 *vout = (int4 *)out;
    /* copy k once: 0 the device copy, then the SMs' copies */
    enum { N_COPIES = 8 };
    const char *names[N_COPIES] = {"memcpy",      "grid_stride", "one_chunk",
                                   "four_chunks", "big_chunks",  "bulk",
                                   "words_4k",    "one_chunk_4"};
    auto launch = [&](int k) {
      if (k == 0)
        CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice));
      else if (k == 1)
        grid_stride<<<sms * per_sm, 256>>>(vin, vout, n);
      else if (k == 2)
        one_chunk<<<(unsigned)((n + 1023) / 1024), 256>>>(vin, vout, n);
      else if (k == 3)
        four_chunks<<<(unsigned)((n + 4095) / 4096), 256>>>(vin, vout, n);
      else if (k == 4)
        big_chunks<<<sms * big_per_sm, 256>>>(vin, vout, n);
      else if (k == 5)
        bulk<<<sms * bulk_per_sm, 32, BULK_RING * BULK_CHUNK>>>(
            (const char *)in, (char *)out, bytes / BULK_CHUNK);
      else if (k == 6)
        words_4k<<<(unsigned)((bytes + 4095) / 4096), 256>>>(
            (const int *)in, (int *)out, bytes / 4);
      else
        one_chunk<<<(unsigned)((n + 1023) / 1024), 256, CAP_SMEM>>>(vin, vout,
                                                                     n);
    };
    float ms[N_COPIES];
    for (int k = 0; k < N_COPIES; k++)
      ms[k] = median_ms([&] { launch(k); }, reps);
    CHECK(cudaGetLastError());
    /* each SM copy once more into a cleared output, every byte checked */
    int bad = 0;
    unsigned char *h = (unsigned char *)malloc(bytes);
    for (int k = 1; k < N_COPIES && h && !bad; k++) {
      CHECK(cudaMemset(out, 0, bytes));
      launch(k);
      CHECK(cudaMemcpy(h, out, bytes, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < bytes; i++)
        if (h[i] != 1) {
          fprintf(stderr, "%s: byte %zu is %d\n", names[k], i, h[i]);
          bad = 1;
          break;
        }
    }
    free(h);
    if (bad)
      return 1;
    for (int k = 0; k < N_COPIES; k++)
      printf("%s,%s,%.4f,%.1f,%.1f\n", argv[a], names[k], ms[k],
             2.0 * bytes / ms[k] / 1e6, 100.0 * ms[0] / ms[k]);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
  }
  return 0;
}

/* tma_ops.h -- the copy engine (TMA) and its mbarriers in inline PTX, one
 * wrapper each, for the templates' sm_90 paths (PTX ISA 8.0: sm_90 has
 * all of these; none needs sm_90a).  CUDA only; NVRTC needs no CUDA
 * header for them (the tensor map is the driver's opaque 128 bytes).
 *
 * A load: one thread initialises an mbarrier for one arrival, fences the
 * init for the async proxy, the block syncs; that thread arms the barrier
 * with the bytes to come (arrive.expect_tx) and issues the boxes; every
 * thread waits on the barrier's phase 0.  A store: every thread that wrote
 * the tile fences its writes for the async proxy, the block syncs, one
 * thread issues the boxes, commits them as a bulk group and waits until
 * they have read shared memory (the block must not exit before). */
#ifndef TN_TMA_OPS_H
#define TN_TMA_OPS_H

/* CUtensorMap, as the driver encodes it: opaque, 128 bytes, 64-aligned. */
struct __align__(64) tn_tensor_map {
  unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned tn_smem_u32(const void *p)
{
  return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void tn_mbar_init(unsigned long long *bar,
                                             unsigned count)
{
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(
                   tn_smem_u32(bar)),
               "r"(count)
               : "memory");
}

/* Makes the barrier's init visible to the copy engine (the async proxy). */
__device__ __forceinline__ void tn_mbar_init_fence(void)
{
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* This thread's arrival, with `bytes` more to come from the copy engine. */
__device__ __forceinline__ void tn_mbar_expect_tx(unsigned long long *bar,
                                                  unsigned bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::
                   "r"(tn_smem_u32(bar)),
               "r"(bytes)
               : "memory");
}

/* Waits until the barrier's phase `parity` has completed. */
__device__ __forceinline__ void tn_mbar_wait(unsigned long long *bar,
                                             unsigned parity)
{
  unsigned done = 0;
  while (!done)
    asm volatile("{\n"
                 "  .reg .pred p;\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "  selp.u32 %0, 1, 0, p;\n"
                 "}\n"
                 : "=r"(done)
                 : "r"(tn_smem_u32(bar)), "r"(parity)
                 : "memory");
}

/* One box of map at (c0 inner, c1 outer) into shared dst, completing on
 * bar; elements outside the tensor arrive as zeros. */
__device__ __forceinline__ void tn_tma_load_2d(void *dst,
                                               const tn_tensor_map *map,
                                               int c0, int c1,
                                               unsigned long long *bar)
{
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
                   tn_smem_u32(dst)),
               "l"((unsigned long long)map), "r"(tn_smem_u32(bar)), "r"(c0),
               "r"(c1)
               : "memory");
}

/* The same for a map of rank 3, at (c0, c1, c2): a box in matrix c2 of
 * a batch. */
__device__ __forceinline__ void tn_tma_load_3d(void *dst,
                                               const tn_tensor_map *map,
                                               int c0, int c1, int c2,
                                               unsigned long long *bar)
{
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(
                   tn_smem_u32(dst)),
               "l"((unsigned long long)map), "r"(tn_smem_u32(bar)), "r"(c0),
               "r"(c1), "r"(c2)
               : "memory");
}

/* This thread's shared-memory writes, made visible to the copy engine. */
__device__ __forceinline__ void tn_tma_store_fence(void)
{
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* One box of shared src to map at (c0, c1); what lies outside the tensor
 * is not written. */
__device__ __forceinline__ void tn_tma_store_2d(const tn_tensor_map *map,
                                                const void *src, int c0,
                                                int c1)
{
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
               "[%0, {%2, %3}], [%1];\n" ::"l"((unsigned long long)map),
               "r"(tn_smem_u32(src)), "r"(c0), "r"(c1)
               : "memory");
}

/* The same for a map of rank 3, at (c0, c1, c2). */
__device__ __forceinline__ void tn_tma_store_3d(const tn_tensor_map *map,
                                                const void *src, int c0,
                                                int c1, int c2)
{
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group "
               "[%0, {%2, %3, %4}], [%1];\n" ::"l"((unsigned long long)map),
               "r"(tn_smem_u32(src)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

/* Commits the stores issued and waits until they have read their shared
 * source. */
__device__ __forceinline__ void tn_tma_store_drain(void)
{
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

#endif

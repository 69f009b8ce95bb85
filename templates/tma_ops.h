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

#if defined(TN_TMA_HOST) && TN_TMA_HOST
/* A template run on the host (the emulation tests): the same functions
 * over a copy engine of the host's, tests/support/tma_host.h. */
#include "tma_host.h"
#else

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

/* This thread's arrival (release at the block's scope: its reads of the
 * buffer the barrier guards are done before a refill). */
__device__ __forceinline__ void tn_mbar_arrive(unsigned long long *bar)
{
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(
                   tn_smem_u32(bar))
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

/* The same box, written at dst's offset into the shared memory of every
 * block of the cluster in cta_mask (bit i: rank i), each completing on
 * the mbarrier at bar's offset in its own shared memory: one block's copy
 * feeds them all (TMA multicast). */
__device__ __forceinline__ void tn_tma_load_2d_multicast(
    void *dst, const tn_tensor_map *map, int c0, int c1,
    unsigned long long *bar, unsigned short cta_mask)
{
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], "
               "[%2], %5;\n" ::"r"(tn_smem_u32(dst)),
               "l"((unsigned long long)map), "r"(tn_smem_u32(bar)), "r"(c0),
               "r"(c1), "h"(cta_mask)
               : "memory");
}

/* This block's rank in its cluster. */
__device__ __forceinline__ unsigned tn_cluster_rank(void)
{
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}

/* Every thread of every block of the cluster arrives and waits: what each
 * wrote before (an mbarrier's init) is then visible to all of them. */
__device__ __forceinline__ void tn_cluster_sync(void)
{
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
}

/* One arrival on the mbarrier at bar's offset in the shared memory of the
 * cluster's block of rank cta (this block's own among them).  The
 * arrive's default semantics (release at the block's scope), as CUTLASS's
 * pipelines use for a consumer's "free" to a multicasting producer: the
 * reads it orders (wgmma's, waited for) are of this block's own shared
 * memory. */
__device__ __forceinline__ void tn_mbar_arrive_cluster(unsigned long long *bar,
                                                       unsigned cta)
{
  asm volatile("{\n"
               "  .reg .b32 remote;\n"
               "  mapa.shared::cluster.u32 remote, %0, %1;\n"
               "  mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
               "}\n" ::"r"(tn_smem_u32(bar)),
               "r"(cta)
               : "memory");
}

/* Before a refill: the generic proxy's reads of the buffer, which this
 * thread acquired through its mbarrier, ordered before the copy engine's
 * writes it issues next (the async proxy does not see the mbarrier's
 * ordering alone: without it refills overwrote tiles still being read). */
__device__ __forceinline__ void tn_tma_refill_fence(void)
{
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
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

/* Commits the stores issued, without waiting for them. */
__device__ __forceinline__ void tn_tma_store_commit(void)
{
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* Waits until the stores committed so far have read their shared
 * source. */
__device__ __forceinline__ void tn_tma_store_wait_read(void)
{
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

/* Waits until at most N of the store groups committed last are still
 * reading their shared source (a ring of N + 1 staging buffers). */
template <int N>
__device__ __forceinline__ void tn_tma_store_wait_read_n(void)
{
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

/* Commits the stores issued and waits until they have read their shared
 * source. */
__device__ __forceinline__ void tn_tma_store_drain(void)
{
  tn_tma_store_commit();
  tn_tma_store_wait_read();
}

#endif /* TN_TMA_HOST */

#endif

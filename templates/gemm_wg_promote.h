/* gemm_wg_promote.h -- fp8's promotion in templates/gemm_wg.cu (included
 * there, after its ring and wgmma helpers): each k-tile's chain of wgmma
 * from zero in partial sums of its own, then added into the fp32
 * accumulators; with two sets of partial sums (TN_PARTIALS 2) the next
 * k-tile's chain runs on the tensor cores while the last one's sums are
 * added, in runs of TN_PROMOTE_RUN k-tiles. */
#ifndef TN_GEMM_WG_PROMOTE_H
#define TN_GEMM_WG_PROMOTE_H

/* Promotion: one k-tile's chain of wgmma for the m64 slab from row m,
 * into p from zero, committed.  With one set of partial sums the slabs of
 * a consumer take turns in p (as DeepGEMM's waves do), so that a 128 x 128
 * consumer holds 128 accumulators and 64 partial sums, not 128 of each;
 * with two (a single slab) consecutive k-tiles alternate between sets. */
__device__ __forceinline__ void chain_slab(float (&p)[NACC], unsigned sa,
                                           unsigned sb, int m)
{
#pragma unroll
  for (int kk = 0; kk < BK / KSTEP; kk++)
    wg_mma(p, op_a::desc(sa, m, KSTEP * kk), op_b::desc(sb, 0, KSTEP * kk),
           kk > 0);
  wg_commit();
}

/* ... and its finished sums added into the slab's accumulators in fp32
 * (zeroed at the tile's start: a select for its first k-tile would cost
 * as many instructions as the adds). */
__device__ __forceinline__ void fold_slab(float (&acc)[NACC],
                                          float (&p)[NACC])
{
#pragma unroll
  for (int e = 0; e < NACC; e++) {
    wg_pin(p[e]);
    acc[e] += p[e];
  }
}

/* Promotion with two sets of partial sums: k-tile g of the ring (its
 * buffer filled) into d. */
__device__ __forceinline__ void chain_at(const ring &r, int g, int m0,
                                         float (&d)[NACC])
{
  const int s = g % STAGES;
  tn_mbar_wait(&r.full[s], (unsigned)(g / STAGES) & 1u);
  wg_fence();
  chain_slab(d, tn_smem_u32(r.a + s * op_a::STAGE_BYTES),
             tn_smem_u32(r.b + s * op_b::STAGE_BYTES), m0);
}

/* ... and k-tile g's chain, in p, done (N: the chains after it that may
 * still run): its buffer freed, p added into acc. */
template <int N>
__device__ __forceinline__ void fold_at(const ring &r, int g,
                                        float (&acc)[NACC], float (&p)[NACC])
{
  wg_wait<N>();
  release(r, g % STAGES);
  fold_slab(acc, p);
}

/* Promotion with two sets of partial sums over the U k-tiles from g: each
 * k-tile's chain issued into one set before the last one's, in the other,
 * is waited for and added; the run ends with none in flight, so that no
 * loop goes round with a chain running (ptxas would serialize them all). */
template <int U>
__device__ __forceinline__ void promote_run(const ring &r, int g, int m0,
                                            float (&acc)[NACC],
                                            float (&p0)[NACC],
                                            float (&p1)[NACC])
{
  chain_at(r, g, m0, p0);
#pragma unroll
  for (int j = 1; j < U; j++) {
    if (j % 2) {
      chain_at(r, g + j, m0, p1);
      fold_at<1>(r, g + j - 1, acc, p0);
    } else {
      chain_at(r, g + j, m0, p0);
      fold_at<1>(r, g + j - 1, acc, p1);
    }
  }
  if ((U - 1) % 2)
    fold_at<0>(r, g + U - 1, acc, p1);
  else
    fold_at<0>(r, g + U - 1, acc, p0);
}

#endif

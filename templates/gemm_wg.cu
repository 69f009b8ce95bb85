/* gemm_wg.cu -- bf16/fp16 GEMM on Hopper's warpgroup tensor cores (sm_90a),
 * C = alpha * op(A) * op(B) + beta * C, row-major, fp32 accumulation; and
 * the fp8 GEMM (TN_IN_FP8: 1 e4m3, 2 e5m2), C = alpha * scale_a *
 * scale_b * A B^T + beta * C with both operands K-major, C bf16 or fp32.
 *
 * op(A) is M x K (A stored M x K, or K x M when TN_TRANS_A), op(B) is
 * K x N (B stored K x N, or N x K when TN_TRANS_B), C is M x N; any M, N,
 * K whose rows are whole 16-byte units (the copy engine's rule: the
 * leading dimensions are multiples of 8), the tiles' edges zero-filled by
 * the copy engine.  With beta == 0, C is not read (it may hold NaN).
 *
 * The copy engine (TMA) moves the k-tiles of A and B into a ring of
 * STAGES shared buffers, each operand's tile in sub-tiles of one swizzle
 * row (TN_SWIZZLE bytes: 32, 64 or 128) by as many rows as the tile has,
 * the hardware's SWIZZLE_32B/64B/128B scattering the 16-byte chunks.
 * wgmma.mma_async m64nBNk16 reads both operands from there through matrix
 * descriptors of the same swizzle: along K (K-major) or along M or N
 * (MN-major, the instruction's transpose bit), whichever order the
 * operand has in global memory.  Each buffer has a "full" mbarrier (the
 * copy engine's bytes arrived) and an "empty" one (every consumer warp is
 * done with it).
 *
 * Warp specialization (TN_PRODUCER 1): warpgroup 0 is the producer, one of
 * its threads issues every copy; warpgroups 1..CONSUMERS compute, each
 * BM / CONSUMERS rows of the tile (one or two m64 slabs) by BN.  With
 * TN_MAXNREG, setmaxnreg moves registers from the producer to the
 * consumers.  Without a producer (TN_PRODUCER 0) thread 0 issues the
 * copies STAGES - 1 k-tiles ahead between its own wgmma.
 *
 * Tiles: a block per tile (TN_PERSISTENT 0), or TN_PERSISTENT blocks that
 * walk the tiles (t, t + gridDim.x, ...), the ring running on across
 * tiles; -1: as many as the launch found to run at once.  TN_STREAM_K
 * splits the k-tiles of the tiles of a ragged last wave among all the
 * blocks (gemm_wg_schedule.h; the kernel's last parameter is then the
 * launch's workspace).  TN_TILE_ORDER
 * and TN_GROUP_M order the tiles (tile_order.h: rows or groups of rows, a
 * Hilbert curve, a serpentine; L2 reuse of A's and B's panels).  TN_CLUSTER 2 or 4 launches the blocks in clusters
 * (__cluster_dims__).  Without TN_MULTICAST the cluster's blocks take
 * tile numbers next to each other in the order, each loading its own
 * k-tiles.  TN_MULTICAST 1 puts the cluster's blocks in one column of
 * tiles (one B panel), 2 in one row (one A panel): the order walks units
 * of TN_CLUSTER tiles (tile_order.h's cluster_tile_of), and each block
 * loads its own operand's k-tile whole and 1 / TN_CLUSTER of the shared
 * one's, which the copy engine writes into every block of the cluster
 * (multicast).  A buffer is then refilled only once the consumers of
 * every block freed it: each consumer warp arrives on that buffer's
 * "empty" barrier in every block, and a producer waits, before it exits,
 * until the cluster freed every buffer (no arrival then meets a block
 * that has exited).
 *
 * fp8: the k-tiles hold bytes (a swizzle row is TN_SWIZZLE elements) and
 * each wgmma is m64nBNk32.  The tensor cores keep an fp8 sum in a 13-bit
 * accumulator (family/gemm_ref.h): with TN_PROMOTE (gemm_wg_promote.h)
 * each k-tile's chain of wgmma starts from zero in registers of its own,
 * and once it is done the thread adds it into its fp32 accumulators;
 * without, the chain runs
 * over all of K as for bf16 (cuBLASLt's fast accumulation).  TN_PARTIALS
 * 2 gives promotion two sets of those registers: the next k-tile's chain
 * runs on the tensor cores while the last one's sums are added (1: the
 * consumer waits for each chain before it adds), in runs of
 * TN_PROMOTE_RUN k-tiles, after each of which the consumer waits for all
 * (ptxas serializes every wgmma of a kernel where a chain is still in
 * flight when a loop goes round).  The scales
 * are device pointers, read once (alpha * scale_a * scale_b in fp32).
 *
 * Ping-pong (TN_PINGPONG 1, persistent blocks, a producer, two
 * consumers): the consumers take the block's units in turn, each the
 * whole BM x BN tile, and issue their main loops in turn (hardware
 * barriers ORDER_BAR + cw: a consumer starts once the other has issued
 * its tile's last wgmma), so that one's epilogue runs while the other's
 * main loop keeps the tensor cores busy.  Each buffer of the ring is then
 * read by one consumer, which skips the other's k-tiles; the turns also
 * keep its parity waits right: the buffer's last fill before the one it
 * waits for was consumed before its turn began.  A multicast unit's
 * padding tiles run the epilogue too (the direct one's stores clipped,
 * the staged one's TMA stores not issued), so that each consumer stages
 * the tiles of its units.
 *
 * Epilogue 0: each thread's accumulators straight to C.  Epilogue 1:
 * staged in shared memory as C's type (st.shared.v2.f32 for fp32 C,
 * stmatrix.x4 for a 16-bit C) in rows of TN_C_COL bytes (128, or 64 or 32
 * where the tile's row of C is not whole 128-byte columns, as n144's 288
 * bytes of bf16) under the swizzle of that width, then one TMA store per
 * column of the tile (clipped at C's edges);
 * with TN_C_RING R, the columns go through a ring of R buffers, each
 * stored as soon as it is written, so that an fp32 C's staging fits
 * beside a deep ring of A and B.
 *
 * Rendered by tuner/family/gemm_wg.c, which defines TN_<PARAM> for each
 * parameter (bm, bn, bk, consumers, stages, swizzle, producer, maxnreg,
 * cluster, persistent, group_m, epilogue, tile_order, multicast,
 * partials, pingpong, promote_run, c_ring, stream_k) and TN_TRANS_A, TN_TRANS_B,
 * TN_IN_F16, TN_OUT_F32, TN_THREADS and TN_SMEM_BYTES, for fp8
 * TN_IN_FP8 and TN_PROMOTE (absent: 0), and TN_C_COL where C's staged
 * columns are narrower than 128 bytes (absent: 128).  The kernel's
 * tensor maps (A, B, and C for epilogue 1) are its first parameters; the
 * family's tensor_maps() describes them.  The threads' only shared-memory
 * accesses are epilogue 1's staging stores (gemm_wg_plan.c plans them);
 * the copy engine's and wgmma's are not warp instructions.
 */
#include "smem_trace.h"
#include "tc_ops.h"
#include "tma_ops.h"
#include "tile_order.h"

#ifndef TN_IN_FP8
#define TN_IN_FP8 0
#endif
#ifndef TN_PROMOTE
#define TN_PROMOTE 0
#endif
#ifndef TN_MULTICAST
#define TN_MULTICAST 0
#endif
#ifndef TN_PARTIALS
#define TN_PARTIALS 1
#endif
#ifndef TN_PINGPONG
#define TN_PINGPONG 0
#endif
#ifndef TN_PROMOTE_RUN
#define TN_PROMOTE_RUN 4
#endif
#ifndef TN_C_RING
#define TN_C_RING 0
#endif

#define WG_TNSP_A (TN_TRANS_A ? 1 : 0) /* A stored K x M: along M */
#define WG_TNSP_B (TN_TRANS_B ? 0 : 1) /* B stored K x N: along N */
#include "wg_ops.h"

#define BM TN_BM
#define BN TN_BN
#define BK TN_BK
#define SWZ TN_SWIZZLE
#define EB (TN_IN_FP8 ? 1 : 2)   /* bytes of A's and B's elements */
#define SE (SWZ / EB)            /* elements of one swizzle row */
#define KSTEP (TN_IN_FP8 ? 32 : 16) /* k of one wgmma */
#define CONS TN_CONSUMERS
#define PROD TN_PRODUCER
#define PING TN_PINGPONG        /* the consumers take tiles in turn */
#define CM (PING ? BM : BM / CONS) /* rows of a consumer */
#define MC (CM / 64)             /* its m64 slabs */
#define STAGES TN_STAGES
#define THREADS TN_THREADS
#define NACC (BN / 2)            /* accumulators per slab and thread */
#define CL TN_CLUSTER
#define MCAST TN_MULTICAST       /* 1: B's k-tiles shared, 2: A's */
#define PARTS TN_PARTIALS        /* promotion's sets of partial sums */
#define PRUN TN_PROMOTE_RUN      /* the k-tiles of one run of them */

#if TN_OUT_F32
typedef float out_t;
#else
typedef unsigned short out_t;
#endif
#define OB ((int)sizeof(out_t))
#ifndef TN_C_COL
#define TN_C_COL 128             /* bytes of a staged column of C */
#endif
#define CCOL TN_C_COL
#define SC (CCOL / OB)           /* C's elements in a staged column's row */
#define C_SUBS (BN / SC)         /* a consumer tile's staged columns */
/* epilogue 1's staging buffers a consumer: the tile's columns, or a ring
 * of TN_C_RING of them */
#define C_BUFS (TN_C_RING ? TN_C_RING : C_SUBS)

static_assert(THREADS == 128 * (CONS + PROD), "warpgroups");
static_assert(BM % (64 * (PING ? 1 : CONS)) == 0 && BN % 16 == 0 &&
                  BN >= 64 && BN <= 256,
              "m64 slabs per consumer, wgmma's n of 64 to 256 by 16");
static_assert((CCOL == 32 || CCOL == 64 || CCOL == 128) && BN % SC == 0,
              "C staged in whole columns of 32, 64 or 128 bytes");
static_assert(SWZ == 32 || SWZ == 64 || SWZ == 128, "the swizzle modes");
static_assert(BK % KSTEP == 0 && STAGES >= 2, "whole wgmma k steps, a ring");
static_assert(!TN_IN_FP8 || (!TN_TRANS_A && TN_TRANS_B),
              "fp8 operands K-major");
static_assert(!TN_PROMOTE || TN_IN_FP8, "promotion of fp8 sums");
static_assert(PARTS == 1 || (PARTS == 2 && TN_PROMOTE && PROD && MC == 1),
              "a second set of partial sums for promotion, a producer, "
              "one m64 slab a consumer");
static_assert(!TN_MAXNREG || (PROD && CONS == 2),
              "setmaxnreg with a producer and two consumers");
static_assert(CL == 1 || CL == 2 || CL == 4, "clusters of 1, 2 or 4");
static_assert(MCAST == 0 || (CL > 1 && PROD),
              "multicast over a cluster, copies by a producer");
static_assert(!PING || (PROD && CONS == 2 && TN_PERSISTENT > 0),
              "ping-pong of two consumers over a persistent block's tiles");
static_assert(TN_C_RING == 0 || (TN_EPILOGUE == 1 && C_SUBS % TN_C_RING == 0),
              "a ring of staging columns, a whole number of turns a tile");
static_assert(!TN_STREAM_K || (PROD && !PING && TN_PERSISTENT != 0),
              "stream-K: persistent blocks whose producer walks their "
              "items, one consumer a tile's rows");

/* Ping-pong's hardware barriers: ORDER_BAR + cw lets consumer cw start
 * its main loop (epilogue 1's are 1 + cw). */
#define ORDER_BAR 3

/* One operand's shared tile in a stage: X = 0 for A (MN = BM), 1 for B.
 * K-major (contiguous along k in global memory): BK / SE sub-tiles, each
 * MN rows of one swizzle row of k; MN-major: MN / SE sub-tiles, each BK
 * rows (k) of one swizzle row of m or n.  Sub-tiles are 1024-aligned
 * (the family's rule), so the descriptors' base offset is 0. */
template <int X> struct opnd {
  static constexpr int MN = X ? BN : BM;
  static constexpr bool KMAJ = X ? TN_TRANS_B != 0 : TN_TRANS_A == 0;
  static constexpr int SUBS = KMAJ ? BK / SE : MN / SE;
  static constexpr int SUB_BYTES = (KMAJ ? MN : BK) * SWZ;
  static constexpr int STAGE_BYTES = MN * BK * EB;
  static_assert(SUBS * SUB_BYTES == STAGE_BYTES && SUB_BYTES % 1024 == 0,
                "whole, aligned sub-tiles");
  /* multicast: the shared operand's sub-tiles in CL parts along their
   * rows (mn when K-major, else k), the swizzle's 1024-byte repeat kept */
  static constexpr bool SHARED = MCAST == (X ? 1 : 2);
  static constexpr int PART_ROWS = (KMAJ ? MN : BK) / CL;
  static constexpr int PART_BYTES = SUB_BYTES / CL;
  static_assert(!SHARED || PART_BYTES % 1024 == 0, "aligned parts");

  /* The descriptor of the slab from row mn (of m or n) at depth k, in the
   * stage at shared address st.  K-major: 8-row groups SBO = 8 rows of
   * SWZ bytes apart, a k step inside one swizzle row (LBO unused: 1);
   * MN-major: the swizzle rows along mn are sub-tiles, LBO apart, the
   * 8-row groups of k SBO apart. */
  static __device__ __forceinline__ unsigned long long desc(unsigned st,
                                                            int mn, int k)
  {
    /* offsets in 16-byte units (every term is a multiple of 16 bytes) */
    if (KMAJ)
      return wg_desc_at(st,
                        (unsigned)((k / SE) * (SUB_BYTES / 16) +
                                   mn * (SWZ / 16) + (k % SE) * EB / 16),
                        16u, 8u * SWZ, WG_LAYOUT(SWZ));
    return wg_desc_at(st,
                      (unsigned)((mn / SE) * (SUB_BYTES / 16) +
                                 k * (SWZ / 16)),
                      (unsigned)SUB_BYTES, 8u * SWZ, WG_LAYOUT(SWZ));
  }

  /* The k-tile at k0 of the tile at mn0 into the stage at dst. */
  static __device__ __forceinline__ void load(unsigned char *dst,
                                              const tn_tensor_map *map,
                                              int mn0, int k0,
                                              unsigned long long *bar)
  {
#pragma unroll
    for (int s = 0; s < SUBS; s++) {
      if (KMAJ)
        tn_tma_load_2d(dst + s * SUB_BYTES, map, k0 + s * SE, mn0, bar);
      else
        tn_tma_load_2d(dst + s * SUB_BYTES, map, mn0 + s * SE, k0, bar);
    }
  }

  /* This block's k-tile at k0 of the tile at mn0: the whole, or of the
   * shared operand part `rank` of each sub-tile, into the stage at dst of
   * every block of the cluster (the tensor map's box is a part). */
  static __device__ __forceinline__ void fill(unsigned char *dst,
                                              const tn_tensor_map *map,
                                              int mn0, int k0,
                                              unsigned long long *bar,
                                              int rank)
  {
    const unsigned short all = (unsigned short)((1u << CL) - 1u);
#pragma unroll
    for (int s = 0; s < (SHARED ? SUBS : 0); s++) {
      unsigned char *d = dst + s * SUB_BYTES + rank * PART_BYTES;
      if (KMAJ)
        tn_tma_load_2d_multicast(d, map, k0 + s * SE, mn0 + rank * PART_ROWS,
                                 bar, all);
      else
        tn_tma_load_2d_multicast(d, map, mn0 + s * SE, k0 + rank * PART_ROWS,
                                 bar, all);
    }
    if (!SHARED)
      load(dst, map, mn0, k0, bar);
  }
};
typedef opnd<0> op_a;
typedef opnd<1> op_b;

/* The shared memory: the rings of A and B, epilogue 1's staging (C's
 * type, per consumer C_BUFS sub-tiles of CM rows x CCOL bytes), the
 * barriers; from a 1024-aligned base (1024 bytes of slack). */
#define A_RING (STAGES * op_a::STAGE_BYTES)
#define B_RING (STAGES * op_b::STAGE_BYTES)
#define C_STAGING (CM * CCOL * C_BUFS) /* a consumer's */
#define C_BYTES (TN_EPILOGUE == 1 ? CONS * C_STAGING : 0)
#define BAR_OFF (A_RING + B_RING + C_BYTES)
static_assert(TN_SMEM_BYTES == 1024 + BAR_OFF + 16 * STAGES,
              "the family's shared memory");

/* The units of this block: UNIT_FIRST, + UNIT_STEP, ... below units.  A
 * unit is a tile, or with multicast the CL tiles of a cluster (the
 * cluster's blocks walk the same units). */
#if MCAST
#define UNIT_FIRST ((int)blockIdx.x / CL)
#define GRID_UNITS ((int)gridDim.x / CL)
#else
#define UNIT_FIRST ((int)blockIdx.x)
#define GRID_UNITS ((int)gridDim.x)
#endif
#if TN_PERSISTENT != 0 /* -1: the grid the launch fitted to the GPU */
#define UNIT_STEP GRID_UNITS
#else
#define UNIT_STEP units
#endif

#include "gemm_wg_schedule.h"

struct ring {
  unsigned char *a, *b;
  unsigned long long *full, *empty;
  int rank; /* in the cluster: the shared operand's part this block loads */
};

/* Waits until buffer s may be filled for round `round`: every consumer
 * warp (of every block of the cluster, with multicast) freed it. */
__device__ __forceinline__ void wait_empty(const ring &r, int s, int round)
{
  tn_mbar_wait(&r.empty[s], (unsigned)(round & 1) ^ 1u);
}

/* A consumer warp's "buffer s is free" (every lane calls it), to every
 * block that fills it: with multicast lane q arrives at block q's. */
__device__ __forceinline__ void release(const ring &r, int s)
{
#if MCAST
  if (threadIdx.x % 32 < CL)
    tn_mbar_arrive_cluster(&r.empty[s], threadIdx.x % 32);
#else
  if (threadIdx.x % 32 == 0)
    wg_mbar_arrive(&r.empty[s]);
#endif
}

/* Copy number idx of this block, k-tile kt of the tile (tm, tn), into its
 * buffer, once every consumer warp freed it. */
__device__ __forceinline__ void issue_at(const ring &r, int idx, int kt,
                                         int tm, int tn,
                                         const tn_tensor_map *ma,
                                         const tn_tensor_map *mb)
{
  const int s = idx % STAGES;
  wait_empty(r, s, idx / STAGES);
  /* with multicast as without: both operands' whole k-tiles arrive here,
   * the shared one's parts from every block of the cluster */
  tn_mbar_expect_tx(&r.full[s], op_a::STAGE_BYTES + op_b::STAGE_BYTES);
  const int k0 = kt * BK;
  op_a::fill(r.a + s * op_a::STAGE_BYTES, ma, tm * BM, k0, &r.full[s],
             r.rank);
  op_b::fill(r.b + s * op_b::STAGE_BYTES, mb, tn * BN, k0, &r.full[s],
             r.rank);
}

/* Copy number idx of this block (k-tile idx % ktiles of its tile number
 * idx / ktiles), its tile found from idx. */
__device__ __forceinline__ void issue(const ring &r, int idx, int ktiles,
                                      int tiles_m, int tiles_n,
                                      const tn_tensor_map *ma,
                                      const tn_tensor_map *mb)
{
  const int t = UNIT_FIRST + (idx / ktiles) * GRID_UNITS;
  int tm, tn;
  tile_of(t, tiles_m, tiles_n, tm, tn);
  issue_at(r, idx, idx % ktiles, tm, tn, ma, mb);
}

/* wg_mma_nN of N = BN (a number once expanded) */
#define WG_MMA_PASTE(n) wg_mma_n##n
#define WG_MMA_OF(n) WG_MMA_PASTE(n)

/* d (+)= the 64 x BN slab's product over one k step (KSTEP). */
__device__ __forceinline__ void wg_mma(float (&d)[NACC],
                                       unsigned long long da,
                                       unsigned long long db, int scale_d)
{
  WG_MMA_OF(BN)(d, da, db, scale_d);
}

/* The consumer's accumulators set to 0. */
__device__ __forceinline__ void zero_acc(float (&acc)[MC][NACC])
{
#pragma unroll
  for (int mc = 0; mc < MC; mc++)
#pragma unroll
    for (int e = 0; e < NACC; e++)
      acc[mc][e] = 0.0f;
}

#include "gemm_wg_promote.h"

/* Ping-pong: the consumer has issued its main loop of unit i (of the
 * block's `mine`); the other may start unit i + 1's. */
__device__ __forceinline__ void pass_turn(int i, int mine, int cw)
{
#if PING
  if (i + 1 < mine)
    wg_bar_arrive(ORDER_BAR + 1 - cw, 256);
#else
  (void)i, (void)mine, (void)cw;
#endif
}

#include "gemm_wg_epilogue.h"

#if TN_CLUSTER > 1
#define WG_CLUSTER __cluster_dims__(TN_CLUSTER, 1, 1)
#else
#define WG_CLUSTER
#endif

extern "C" __global__ void __launch_bounds__(THREADS, 1) WG_CLUSTER
gemm_wg(const __grid_constant__ tn_tensor_map map_a,
        const __grid_constant__ tn_tensor_map map_b,
#if TN_EPILOGUE == 1
        const __grid_constant__ tn_tensor_map map_c,
#endif
        out_t *__restrict__ C, int M, int N, int K, float alpha, float beta
#if TN_IN_FP8
        , const float *__restrict__ scale_a,
        const float *__restrict__ scale_b
#endif
#if TN_STREAM_K
        , float *__restrict__ sk_ws /* the launch's workspace */
#endif
        )
{
  extern __shared__ unsigned char smem_raw[];
  unsigned char *smem =
      smem_raw + ((1024u - (tn_smem_u32(smem_raw) & 1023u)) & 1023u);
  /* the warpgroup through a shuffle from lane 0, so that the compiler
   * knows it uniform and keeps what derives from it (the consumer's rows,
   * its descriptors) in uniform registers */
  const int tid = threadIdx.x, wtid = tid % 128;
  const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int units = cluster_units(CL, MCAST, tiles_m, tiles_n);
  const int ktiles = (K + BK - 1) / BK;
  const wg_sched sc = make_sched(units, ktiles);
  const int mine = sc.mine; /* units whole (all without stream-K) */
  const int copies = mine * ktiles;
  ring r;
  r.a = smem;
  r.b = smem + A_RING;
  r.full = (unsigned long long *)(smem + BAR_OFF);
  r.empty = r.full + STAGES;
  r.rank = MCAST ? (int)tn_cluster_rank() : 0;
  TN_TRACE_BASE(smem);

  if (tid == 0) {
    for (int s = 0; s < STAGES; s++) {
      tn_mbar_init(&r.full[s], 1);
      /* a lane of each consumer warp (of the one whose turn it is, with
       * ping-pong), of every block with multicast */
      tn_mbar_init(&r.empty[s], 4 * (PING ? 1 : CONS) * (MCAST ? CL : 1));
    }
    tn_mbar_init_fence();
  }
#if MCAST
  tn_cluster_sync(); /* every block's barriers ready before any copy */
#else
  __syncthreads();
#endif

#if PROD
  if (wg == 0) {
#if TN_MAXNREG
    wg_setmaxnreg_dec<40>();
#endif
    /* the tile found once for its k-tiles: with 40 registers the
     * producer would run tile_of's loop (the Hilbert curve's) per k-tile */
    if (wtid == 0) {
      int idx = 0;
#if TN_STREAM_K
      wg_item it;
      for (int w = 0; item_of(&sc, w, &it); w++) {
        const int u = it.u, kb = it.kb, ke = it.ke;
#else
      for (int u = UNIT_FIRST; u < units; u += UNIT_STEP) {
        const int kb = 0, ke = ktiles;
#endif
        int tm, tn;
        cluster_tile_of(u, r.rank, CL, MCAST, tiles_m, tiles_n, tm, tn);
        for (int kt = kb; kt < ke; kt++, idx++)
          issue_at(r, idx, kt, tm, tn, &map_a, &map_b);
      }
#if MCAST
      /* the cluster's consumers arrive on this block's barriers until
       * they freed every buffer: the block stays until then */
      for (int s = 0; s < STAGES; s++)
        wait_empty(r, (idx + s) % STAGES, (idx + s) / STAGES);
#endif
    }
    (void)copies;
    return;
  }
#if TN_MAXNREG
  wg_setmaxnreg_inc<232>();
#endif
#else
  if (tid == 0)
    for (int idx = 0; idx < STAGES - 1 && idx < copies; idx++)
      issue(r, idx, ktiles, tiles_m, tiles_n, &map_a, &map_b);
#endif

  const int cw = wg - PROD; /* this consumer */
  const int m0 = PING ? 0 : cw * CM; /* its first row of the tile */
#if TN_IN_FP8
  /* C = alpha * scale_a * scale_b * A B^T + beta * C, the scales in fp32 */
  alpha = alpha * scale_a[0] * scale_b[0];
#endif
  float acc[MC][NACC];
#if TN_PROMOTE && PARTS == 2
  float part[NACC];  /* a k-tile's sums, before they join acc */
  float part2[NACC]; /* the next k-tile's, while part joins acc */
#elif TN_PROMOTE
  float part[NACC]; /* a slab's sums of a k-tile, before they join acc */
#endif
#if !TN_PROMOTE
  zero_acc(acc);
#endif

  /* i: the block's units so far, g: its k-tiles so far (the ring's
   * position); with ping-pong this consumer's are every other unit */
  const int turn = PING ? cw : 0, take = PING ? 2 : 1;
  int g = turn * ktiles;
#if TN_STREAM_K
  /* the block's items: units whole, then its shares of the split run */
  wg_item it;
  for (int i = 0; item_of(&sc, i, &it); i++) {
    const int u = it.u, kb = it.kb, ke = it.ke;
#else
  for (int i = turn, u = UNIT_FIRST + turn * UNIT_STEP; u < units;
       i += take, u += take * UNIT_STEP) {
    const int kb = 0, ke = ktiles;
#endif
    int tm, tn;
    cluster_tile_of(u, r.rank, CL, MCAST, tiles_m, tiles_n, tm, tn);
#if PING
    if (i > 0) /* the other consumer issued unit i - 1's main loop */
      wg_bar(ORDER_BAR + cw, 256);
#endif
#if TN_PROMOTE
    /* each k-tile's sums are added in (without promotion the tile's first
     * wgmma ignores acc) */
    zero_acc(acc);
#endif
#if TN_PROMOTE && PARTS == 2
    /* two sets of partial sums, in runs of PRUN k-tiles, then of two and
     * one for what is left */
    const int g0 = g - kb; /* the ring's position of k-tile 0 */
    int kt = kb;
    for (; kt + PRUN <= ke; kt += PRUN)
      promote_run<PRUN>(r, g0 + kt, m0, acc[0], part, part2);
    for (; kt + 2 <= ke; kt += 2)
      promote_run<2>(r, g0 + kt, m0, acc[0], part, part2);
    if (kt < ke)
      promote_run<1>(r, g0 + kt, m0, acc[0], part, part2);
    pass_turn(i, mine, cw);
    g += ke - kb;
#else
    for (int kt = kb; kt < ke; kt++, g++) {
      const int s = g % STAGES;
      tn_mbar_wait(&r.full[s], (unsigned)(g / STAGES) & 1u);
      const unsigned sa = tn_smem_u32(r.a + s * op_a::STAGE_BYTES);
      const unsigned sb = tn_smem_u32(r.b + s * op_b::STAGE_BYTES);
      wg_fence();
#if TN_PROMOTE
      /* slab by slab: this k-tile's chain from zero, waited for, its sums
       * added in fp32; the buffer freed after the last slab's chain */
#pragma unroll
      for (int mc = 0; mc < MC; mc++) {
        if (mc > 0)
          wg_fence(); /* the fold before read p */
        chain_slab(part, sa, sb, m0 + 64 * mc);
        wg_wait<0>();
        if (mc == MC - 1) {
          release(r, s);
#if !PROD
          if (tid == 0 && g + STAGES - 1 < copies)
            issue(r, g + STAGES - 1, ktiles, tiles_m, tiles_n, &map_a,
                  &map_b);
#endif
        }
        fold_slab(acc[mc], part);
      }
#else
#pragma unroll
      for (int kk = 0; kk < BK / KSTEP; kk++)
#pragma unroll
        for (int mc = 0; mc < MC; mc++)
          wg_mma(acc[mc], op_a::desc(sa, m0 + 64 * mc, KSTEP * kk),
                 op_b::desc(sb, 0, KSTEP * kk), kt > kb || kk > 0);
      wg_commit();
      /* the k-tile before is done: its buffer is free */
      wg_wait<1>();
      if (kt > kb)
        release(r, (g - 1) % STAGES);
#if !PROD
      if (tid == 0 && g + STAGES - 1 < copies)
        issue(r, g + STAGES - 1, ktiles, tiles_m, tiles_n, &map_a, &map_b);
#endif
#endif
    }
#endif
#if !(TN_PROMOTE && PARTS == 2) /* (which passed after its runs) */
    pass_turn(i, mine, cw);
#endif
#if !TN_PROMOTE
    wg_wait<0>();
    release(r, (g - 1) % STAGES);
#pragma unroll
    for (int mc = 0; mc < MC; mc++)
#pragma unroll
      for (int e = 0; e < NACC; e++)
        wg_pin(acc[mc][e]);
#endif
    g += (take - 1) * ktiles; /* the other consumer's k-tiles */
#if TN_STREAM_K
    /* a share of a split tile: its sums to the owner, or theirs added */
    if (kb > 0) {
      share_publish(sk_ws, block_of(share_slot(&sc, &it), r.rank), cw, wtid,
                    acc);
      continue;
    }
    if (ke < ktiles)
      share_gather(sk_ws, sc, it, r.rank, cw, wtid, acc);
#endif
    const bool inside = tm < tiles_m && tn < tiles_n;
    if (!PING && !inside)
      continue; /* a multicast unit's padding past the grid */
#if TN_EPILOGUE == 1
    epilogue_staged(smem + A_RING + B_RING + cw * C_STAGING, &map_c, C,
                    M, N, tm * BM + m0, tn * BN, cw, wtid, alpha, beta, acc,
                    inside);
#else
    epilogue_direct(C, M, N, tm * BM + m0, tn * BN, wtid, alpha, beta, acc);
#endif
  }
#if TN_EPILOGUE == 1
  if (wtid == 0)
    tn_tma_store_wait_read(); /* the last stores read before the block ends */
#endif
}

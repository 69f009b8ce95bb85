/* gemm.cu -- fp32 GEMM, C = alpha * op(A) * op(B) + beta * C, row-major.
 *
 * op(A) is M x K (A is stored M x K, or K x M when TN_TRANS_A), op(B) is
 * K x N (B is stored K x N, or N x K when TN_TRANS_B), C is M x N; any M, N,
 * K.  With beta == 0, C is not read (BLAS semantics: it may hold NaN).
 * blockIdx.x walks the N tiles, blockIdx.y the M tiles.
 *
 * Rendered by the tuner (tuner/family/gemm.c), which defines before this
 * text one macro per parameter and a few derived ones:
 *   TN_KERNEL          0: the textbook kernel, 1: the register-tiled one
 *   TN_BM, TN_BN, TN_BK  block tile (textbook: TILE = TN_BM; TILE x TILE
 *                      tiles of A and B, the other parameters unused)
 *   TN_TM, TN_TN       thread tile in registers
 *   TN_LANES_M         lanes of a warp along m (LM; LN = 32 / LM along n):
 *                      the warp tile is LM * TN_TM x LN * TN_TN
 *   TN_A_KMAJOR        1: As[k][m] in shared memory, 0: As[m][k]
 *   TN_B_KMAJOR        1: Bs[k][n], 0: Bs[n][k]
 *   TN_PIPELINE        0: one buffer; 1: two buffers, the next tile staged
 *                      through registers; 2: as 1, but tiles copied without
 *                      transposition go global -> shared by cp.async (sm_80+);
 *                      3: a ring of TN_STAGES buffers that the copy engine
 *                      (TMA) fills, each with a full and an empty mbarrier
 *                      (sm_90+; the tensor maps are the first parameters)
 *   TN_PRODUCER        pipeline 3: 0, thread 0 refills the ring; 1, a warp
 *                      after the TN_THREADS computing threads does
 *   TN_MIN_BLOCKS      second __launch_bounds__ argument (0: none)
 *   TN_PAD_A, TN_PAD_B padding elements at the end of each shared row
 *   TN_SWIZZLE_A_B/_M/_S, TN_SWIZZLE_B_B/_M/_S  Swizzle<B, M, S> of As, Bs
 *   TN_TRANS_A, TN_TRANS_B  the problem's transposition flags
 *   TN_THREADS         threads per block
 *   TN_DYNAMIC_SMEM    1: shared memory is dynamic (over 48 KiB)
 *   TN_TB_VEC          textbook: floats per shared load of an As row
 *   TN_BUFFERS         shared buffers of each operand (1, 2, or TN_STAGES)
 *   TN_SMEM_FLOATS     floats of shared memory in all
 *   TN_A_*, TN_B_*     each operand's tile (tuner/family/gemm_shape.h's
 *                      operand): KCONTIG (contiguous along k in global
 *                      memory), COPY (global and shared rows run the same
 *                      way), CL (extent along the contiguous dimension),
 *                      SLOTS and ITERS (4-element slots, rounds of them per
 *                      thread), ROWS x WIDTH (+ the pad) and ELEMS per
 *                      buffer, VEC (widest access in floats), BASE (element
 *                      offset of buffer 0 in shared memory)
 *   TN_VM, TN_VN       tiled: floats per run of a thread's rows (columns)
 *   TN_LANE_ORDER      tiled: the lanes' places in the warp's LM x LN grid
 *                      (gemm_lanes.h)
 *   TN_LN              tiled: lanes of a warp along n
 *   TN_WM, TN_WN       tiled: the warp tile
 *   TN_WARPS_N         tiled: warps along n
 * All but the parameters are computed once, in tuner/family/gemm.c from
 * the geometry its access plan walks; the static_asserts below state what
 * the plan assumes of them.  The TN_TRACE_* hooks (smem_trace.h) mark
 * every shared-memory access for the drift test.
 *
 * No shared-memory access is skipped at the edges of the matrices:
 * elements outside them are stored as zeros, so every block runs the same
 * shared-memory instructions, and the tuner's access plan
 * (tuner/family/gemm_plan.c) lists exactly those, lane by lane.  Every
 * vector access is written as one (float4 / float2), every scalar one as a
 * scalar, so the compiled LDS/STS widths are the ones the plan prices
 * (tests/integration/test_sass_widths.c checks them;
 * tests/gpu/gpu_drift_trace.c the addresses, on a GPU).
 */
#include "gemm_access.h"
#include "gemm_lanes.h"
#include "smem_layout.h"
#include "smem_trace.h"

#if TN_KERNEL == 0
/* ---- The textbook kernel: TILE x TILE threads, one output each. ---- */

#define TILE TN_BM
#define AS_AT(r, c)                                                          \
  tn_smem_offset((r), (c), TILE, TN_PAD_A, TN_SWIZZLE_A_B, TN_SWIZZLE_A_M,   \
                 TN_SWIZZLE_A_S)
#define BS_AT(r, c)                                                          \
  tn_smem_offset((r), (c), TILE, TN_PAD_B, TN_SWIZZLE_B_B, TN_SWIZZLE_B_M,   \
                 TN_SWIZZLE_B_S)

static_assert(TN_THREADS == TILE * TILE, "threads");
static_assert(TN_A_ELEMS == TILE * (TILE + TN_PAD_A) &&
                  TN_B_ELEMS == TILE * (TILE + TN_PAD_B),
              "the padded tiles");
static_assert(TN_A_BASE == 0 && TN_B_BASE == TN_A_ELEMS &&
                  TN_SMEM_FLOATS == TN_A_ELEMS + TN_B_ELEMS,
              "As, then Bs, in one array");
static_assert(TN_TB_VEC == 1 || TN_TB_VEC == 2 || TN_TB_VEC == 4,
              "As row loads of 1, 2 or 4 floats");
static_assert(TILE % TN_TB_VEC == 0 && (TILE + TN_PAD_A) % TN_TB_VEC == 0,
              "the pad keeps the As row loads aligned");
static_assert(TN_SWIZZLE_A_B == 0 || (1 << TN_SWIZZLE_A_M) >= TN_TB_VEC,
              "the swizzle keeps the As row loads whole");

/* Per thread and tile: one 4-byte store to As[ty][tx] and one to
 * Bs[ty][tx]; TILE / TN_TB_VEC loads of TN_TB_VEC floats of As row ty and
 * TILE 4-byte loads Bs[k][tx]. */
extern "C" __global__ void __launch_bounds__(TILE * TILE)
gemm(const float *__restrict__ A, const float *__restrict__ B,
     float *__restrict__ C, int M, int N, int K, float alpha, float beta)
{
  /* one array, so the plan knows where Bs starts */
  __shared__ __align__(16) float smem[TN_SMEM_FLOATS];
  float *As = smem + TN_A_BASE, *Bs = smem + TN_B_BASE;
  /* the masks change nothing (blockDim is TILE x TILE) but tell the
   * compiler that tx, ty < TILE, so tile offsets fold into constants */
  const int tx = threadIdx.x & (TILE - 1), ty = threadIdx.y & (TILE - 1);
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  TN_TRACE_BASE(smem);

  for (int k0 = 0; k0 < K; k0 += TILE) {
    TN_TRACE_ST(&As[AS_AT(ty, tx)], 4, true);
    TN_TRACE_ST(&Bs[BS_AT(ty, tx)], 4, true);
    As[AS_AT(ty, tx)] =
        row < M && k0 + tx < K ? A[a_index(row, k0 + tx, M, K)] : 0.0f;
    Bs[BS_AT(ty, tx)] =
        k0 + ty < K && col < N ? B[b_index(k0 + ty, col, K, N)] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k += TN_TB_VEC) {
      float a[TN_TB_VEC];
      TN_TRACE_LD(As + AS_AT(ty, k), 4 * TN_TB_VEC, true);
      lds_vec<TN_TB_VEC>(a, As + AS_AT(ty, k));
#pragma unroll
      for (int e = 0; e < TN_TB_VEC; e++) {
        TN_TRACE_LD(&Bs[BS_AT(k + e, tx)], 4, true);
        acc = fmaf(a[e], Bs[BS_AT(k + e, tx)], acc);
      }
    }
    __syncthreads();
  }
  if (row < M && col < N) {
    size_t i = (size_t)row * N + col;
    C[i] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[i];
  }
}

#else
/* ---- The register-tiled kernel. ----
 *
 * TN_THREADS threads in warps of G_WM x G_WN outputs; a warp's lanes form
 * an LM x LN grid (LM = TN_LANES_M, LN = 32 / LM), lane (lr, lc) placed
 * by TN_LANE_ORDER (gemm_lanes.h).  A thread's TN_TM rows are TN_TM / VM
 * runs of VM (1, 2 or 4) adjacent rows, run i at warp row i * LM * VM +
 * lr * VM: so lanes of one lr read the same or adjacent float4s of an As
 * row (broadcast), and the same for the columns. */

#define G_BM TN_BM
#define G_BN TN_BN
#define G_BK TN_BK
#define G_TM TN_TM
#define G_TN TN_TN
#define G_THREADS TN_THREADS
#define G_VM TN_VM
#define G_VN TN_VN
#define G_LM TN_LANES_M
#define G_WM TN_WM
#define G_LN TN_LN
#define G_WN TN_WN
#define G_WARPS_N TN_WARPS_N
#define G_STAGES TN_BUFFERS

/* What the plan (tuner/family/gemm_plan.c) assumes of the defines. */
static_assert(G_THREADS == (G_BM / G_TM) * (G_BN / G_TN),
              "one thread per thread tile");
static_assert(G_LM * G_LN == 32 && G_WM == G_LM * G_TM &&
                  G_WN == G_LN * G_TN,
              "a warp is LM x LN lanes of thread tiles");
static_assert(G_BM % G_WM == 0 && G_BN % G_WN == 0 &&
                  G_WARPS_N * G_WN == G_BN &&
                  (G_BM / G_WM) * G_WARPS_N * 32 == G_THREADS,
              "warps tile the block");
static_assert((G_VM == 1 || G_VM == 2 || G_VM == 4) && G_TM % G_VM == 0 &&
                  (G_VN == 1 || G_VN == 2 || G_VN == 4) && G_TN % G_VN == 0,
              "a thread's rows (columns) are runs of VM (VN)");
static_assert(G_BK % 4 == 0, "bk is a multiple of 4");
static_assert(G_STAGES == (TN_PIPELINE == 3 ? TN_STAGES
                           : TN_PIPELINE   ? 2
                                           : 1),
              "buffers");
static_assert(TN_A_KCONTIG == !TN_TRANS_A && TN_B_KCONTIG == !!TN_TRANS_B,
              "which way the operands run in global memory");
static_assert(TN_A_BASE == 0 && TN_B_BASE == G_STAGES * TN_A_ELEMS &&
                  TN_SMEM_FLOATS == G_STAGES * (TN_A_ELEMS + TN_B_ELEMS),
              "As's buffers, then Bs's");

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && TN_PIPELINE == 2
#define G_ASYNC 1
#else
#define G_ASYNC 0
#endif

#if TN_PIPELINE == 3
#include "tma_ops.h"
#define G_TMA 1
#else
#define G_TMA 0
#endif

/* the block: the computing threads, and pipeline 3's producer warp */
#define G_BLOCK_THREADS (G_THREADS + (G_TMA && TN_PRODUCER ? 32 : 0))
static_assert(G_TMA || TN_PRODUCER == 0, "a producer refills the TMA ring");
#if TN_MIN_BLOCKS > 0
#define G_BOUNDS __launch_bounds__(G_BLOCK_THREADS, TN_MIN_BLOCKS)
#else
#define G_BOUNDS __launch_bounds__(G_BLOCK_THREADS)
#endif

#include "gemm_tile_io.h"

/* acc += the product of one k-tile, from shared memory.  Per thread and
 * k-tile: As k-major: BK * TM / VM loads of VM floats (row k, the thread's
 * runs); As m-major: BK / 4 * TM loads of 4 floats (row m, k .. k + 3);
 * the same for Bs. */
__device__ __forceinline__ void multiply(const float *As, const float *Bs,
                                         int wr, int wc, int lr, int lc,
                                         float (&acc)[G_TM][G_TN])
{
#pragma unroll
  for (int kq = 0; kq < G_BK; kq += 4) {
    float4 a4[TN_A_KMAJOR ? 1 : G_TM], b4[TN_B_KMAJOR ? 1 : G_TN];
    if constexpr (!TN_A_KMAJOR) {
#pragma unroll
      for (int i = 0; i < G_TM; i++) {
        const int a = tile_a::at_split(
            wr, (i / G_VM) * G_LM * G_VM + i % G_VM, lr * G_VM, kq);
        TN_TRACE_LD(As + a, 16, true);
        a4[i] = *reinterpret_cast<const float4 *>(As + a);
      }
    }
    if constexpr (!TN_B_KMAJOR) {
#pragma unroll
      for (int j = 0; j < G_TN; j++) {
        const int b = tile_b::at_split(
            wc, (j / G_VN) * G_LN * G_VN + j % G_VN, lc * G_VN, kq);
        TN_TRACE_LD(Bs + b, 16, true);
        b4[j] = *reinterpret_cast<const float4 *>(Bs + b);
      }
    }
#pragma unroll
    for (int kk = 0; kk < 4; kk++) {
      float a[G_TM], b[G_TN];
      if constexpr (TN_A_KMAJOR) {
#pragma unroll
        for (int i = 0; i < G_TM / G_VM; i++) {
          TN_TRACE_LD(As + tile_a::at(kq + kk, (wr + i * G_LM * G_VM +
                                                lr * G_VM) &
                                                   (G_BM - 1)),
                      4 * G_VM, true);
          lds_vec<G_VM>(a + i * G_VM,
                        As + tile_a::at(kq + kk, (wr + i * G_LM * G_VM +
                                                  lr * G_VM) &
                                                     (G_BM - 1)));
        }
      } else {
#pragma unroll
        for (int i = 0; i < G_TM; i++)
          a[i] = kk == 0 ? a4[i].x
                 : kk == 1 ? a4[i].y
                 : kk == 2 ? a4[i].z
                           : a4[i].w;
      }
      if constexpr (TN_B_KMAJOR) {
#pragma unroll
        for (int j = 0; j < G_TN / G_VN; j++) {
          TN_TRACE_LD(Bs + tile_b::at(kq + kk, (wc + j * G_LN * G_VN +
                                                lc * G_VN) &
                                                   (G_BN - 1)),
                      4 * G_VN, true);
          lds_vec<G_VN>(b + j * G_VN,
                        Bs + tile_b::at(kq + kk, (wc + j * G_LN * G_VN +
                                                  lc * G_VN) &
                                                     (G_BN - 1)));
        }
      } else {
#pragma unroll
        for (int j = 0; j < G_TN; j++)
          b[j] = kk == 0 ? b4[j].x
                 : kk == 1 ? b4[j].y
                 : kk == 2 ? b4[j].z
                           : b4[j].w;
      }
#pragma unroll
      for (int i = 0; i < G_TM; i++)
#pragma unroll
        for (int j = 0; j < G_TN; j++)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
}

#if G_TMA
/* Pipeline 3, by thread 0: tile t of both operands into ring buffer s,
 * the bytes of both announced on full[s] first (boxes outside the
 * matrices count whole: the copy engine fills them with zeros). */
__device__ __forceinline__ void ring_fill(float *As, float *Bs,
                                          unsigned long long *full, int t,
                                          int s, int m0, int n0,
                                          const tn_tensor_map *map_a,
                                          const tn_tensor_map *map_b)
{
  tn_tma_refill_fence(); /* the warps read buffer s as generic loads */
  tn_mbar_expect_tx(&full[s], 4u * (TN_A_ROWS * TN_A_WIDTH +
                                    TN_B_ROWS * TN_B_WIDTH));
  tile_a::fill(As + s * tile_a::ELEMS, map_a, t * G_BK, m0, &full[s]);
  tile_b::fill(Bs + s * tile_b::ELEMS, map_b, t * G_BK, n0, &full[s]);
}
#endif

extern "C" __global__ void G_BOUNDS
gemm(
#if G_TMA
    const __grid_constant__ tn_tensor_map map_a,
    const __grid_constant__ tn_tensor_map map_b,
#endif
    const float *__restrict__ A, const float *__restrict__ B,
    float *__restrict__ C, int M, int N, int K, float alpha, float beta)
{
#if G_TMA
  /* the tiles from a 1024-byte boundary, the widest swizzle's period
   * (the copy engine swizzles by address, the reads by offset), found in
   * 1024 bytes of slack; the ring's barriers after them, in the same
   * array, so that the family's count of its bytes is what it takes */
#if TN_DYNAMIC_SMEM
  extern __shared__ __align__(16) float smem_raw[];
#else
  __shared__ __align__(16) float smem_raw[TN_SMEM_FLOATS + 256 +
                                          4 * G_STAGES];
#endif
  float *const smem =
      smem_raw + ((1024u - (tn_smem_u32(smem_raw) & 1023u)) & 1023u) / 4;
  unsigned long long *const ring_bars =
      reinterpret_cast<unsigned long long *>(smem + TN_SMEM_FLOATS);
#elif TN_DYNAMIC_SMEM
  extern __shared__ __align__(16) float smem[];
#else
  __shared__ __align__(16) float smem[TN_SMEM_FLOATS];
#endif
  float *const As = smem + TN_A_BASE;
  float *const Bs = smem + TN_B_BASE;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wr = (warp / G_WARPS_N) * G_WM, wc = (warp % G_WARPS_N) * G_WN;
  const int lr = tn_gemm_lane_pos(lane, G_LM, TN_LANE_ORDER, 1);
  const int lc = tn_gemm_lane_pos(lane, G_LM, TN_LANE_ORDER, 0);
  const int m0 = blockIdx.y * G_BM, n0 = blockIdx.x * G_BN;
  const int ktiles = (K + G_BK - 1) / G_BK;
  TN_TRACE_BASE(smem);

  float acc[G_TM][G_TN];
#pragma unroll
  for (int i = 0; i < G_TM; i++)
#pragma unroll
    for (int j = 0; j < G_TN; j++)
      acc[i][j] = 0.0f;

#if G_TMA
  /* Buffer s holds tiles s, s + STAGES, ...: full[s] completes when the
   * copy engine has written one (phase t / STAGES of tile t), empty[s]
   * when every computing warp has read it.  Without a producer warp,
   * thread 0 fills the first STAGES, then at the top of iteration kt
   * refills the buffer of tile kt - 1 with tile kt - 1 + STAGES once every
   * warp is past kt - 1: its own warp just is, the others about, so it
   * seldom waits, and the copy has STAGES - 1 iterations to land.  The
   * producer warp's lane 0 instead fills tile after tile as buffers free,
   * STAGES ahead, and no computing warp waits for another.  No block
   * barrier in the loop. */
  unsigned long long *const full = ring_bars, *const empty = full + G_STAGES;
  (void)A; /* the maps name the operands */
  (void)B;
  if (tid == 0) {
    for (int s = 0; s < G_STAGES; s++) {
      tn_mbar_init(&full[s], 1);
      tn_mbar_init(&empty[s], G_THREADS / 32);
    }
    tn_mbar_init_fence();
  }
  __syncthreads();
  /* s = kt % STAGES and ph = (kt / STAGES) & 1, counted; prev and
   * prev_ph the same of kt - 1 */
  int s = 0, ph = 0, prev = G_STAGES - 1, prev_ph = 1;
#if TN_PRODUCER
  if (tid >= G_THREADS) {
    /* tile kt into buffer s once the readers of tile kt - STAGES freed
     * it: that phase's parity is ph ^ 1 */
    if (lane == 0)
      for (int kt = 0; kt < ktiles; kt++) {
        if (kt >= G_STAGES)
          tn_mbar_wait(&empty[s], ph ^ 1);
        ring_fill(As, Bs, full, kt, s, m0, n0, &map_a, &map_b);
        if (++s == G_STAGES) {
          s = 0;
          ph ^= 1;
        }
      }
    return; /* no block barrier follows */
  }
#else
  if (tid == 0)
    for (int t = 0; t < G_STAGES && t < ktiles; t++)
      ring_fill(As, Bs, full, t, t, m0, n0, &map_a, &map_b);
#endif
  for (int kt = 0; kt < ktiles; kt++) {
    if (!TN_PRODUCER && tid == 0 && kt > 0 && kt - 1 + G_STAGES < ktiles) {
      tn_mbar_wait(&empty[prev], prev_ph);
      ring_fill(As, Bs, full, kt - 1 + G_STAGES, prev, m0, n0, &map_a,
                &map_b);
    }
    tn_mbar_wait(&full[s], ph);
    multiply(As + s * tile_a::ELEMS, Bs + s * tile_b::ELEMS, wr, wc, lr, lc,
             acc);
    __syncwarp(); /* the warp's reads done before its arrival */
    if (lane == 0)
      tn_mbar_arrive(&empty[s]);
    prev = s;
    prev_ph = ph;
    if (++s == G_STAGES) {
      s = 0;
      ph ^= 1;
    }
  }
#else
  /* A is op(A) (M x K) stored with rows of a_ld, B is op(B) (K x N)
   * stored with rows of b_ld. */
  const int a_ld = TN_TRANS_A ? M : K, b_ld = TN_TRANS_B ? K : N;
  /* Uniform over the launch, so every warp takes the same branch. */
  const bool vec_a = a_ld % 4 == 0 && ((size_t)A & 15) == 0;
  const bool vec_b = b_ld % 4 == 0 && ((size_t)B & 15) == 0;
  /* How each operand's next tile travels: cp.async straight to shared
   * memory; or 16-byte loads into registers held across the multiply (the
   * classic double buffering); or, when the leading dimension is not a
   * multiple of 4, scalar loads stored before the multiply (no overlap:
   * no registers held, and the same shared-memory stores either way). */
  const bool async_a = G_ASYNC && tile_a::COPY && vec_a;
  const bool async_b = G_ASYNC && tile_b::COPY && vec_b;
  const bool held_a = !async_a && vec_a, held_b = !async_b && vec_b;
  tile_a ga;
  tile_b gb;
  ga.init(A, M, K, a_ld, m0);
  gb.init(B, N, K, b_ld, n0);
  float4 sa[tile_a::ITERS], sb[tile_b::ITERS];

#if TN_PIPELINE == 0
  for (int kt = 0; kt < ktiles; kt++) {
    ga.load(kt * G_BK, vec_a, M, m0, sa);
    gb.load(kt * G_BK, vec_b, N, n0, sb);
    ga.advance(a_ld);
    gb.advance(b_ld);
    tile_a::store(As, sa);
    tile_b::store(Bs, sb);
    __syncthreads();
    multiply(As, Bs, wr, wc, lr, lc, acc);
    __syncthreads();
  }
#else
  /* Tile t lives in buffer t % 2.  In iteration kt the block reads buffer
   * kt % 2 and fills the other one, which every thread finished reading
   * before the barrier that ended iteration kt - 1; the barrier at the end
   * of iteration kt publishes it.  One barrier per k-tile. */
  if (async_a)
    ga.load_async(As, 0, A);
  else
    ga.load(0, vec_a, M, m0, sa);
  if (async_b)
    gb.load_async(Bs, 0, B);
  else
    gb.load(0, vec_b, N, n0, sb);
  cp_async_commit();
  ga.advance(a_ld);
  gb.advance(b_ld);
  if (!async_a)
    tile_a::store(As, sa);
  if (!async_b)
    tile_b::store(Bs, sb);
  cp_async_wait_all();
  __syncthreads();

  for (int kt = 0; kt < ktiles; kt++) {
    const int cur = kt & 1;
    const bool more = kt + 1 < ktiles;
    const float *Ac = As + cur * tile_a::ELEMS, *Bc = Bs + cur * tile_b::ELEMS;
    float *An = As + (cur ^ 1) * tile_a::ELEMS;
    float *Bn = Bs + (cur ^ 1) * tile_b::ELEMS;
    if (more) {
      const int k0 = (kt + 1) * G_BK;
      if (async_a) {
        ga.load_async(An, k0, A);
      } else {
        ga.load(k0, vec_a, M, m0, sa);
        if (!held_a)
          tile_a::store(An, sa);
      }
      if (async_b) {
        gb.load_async(Bn, k0, B);
      } else {
        gb.load(k0, vec_b, N, n0, sb);
        if (!held_b)
          tile_b::store(Bn, sb);
      }
      cp_async_commit();
      ga.advance(a_ld);
      gb.advance(b_ld);
    }
    multiply(Ac, Bc, wr, wc, lr, lc, acc);
    if (more) {
      if (held_a)
        tile_a::store(An, sa);
      if (held_b)
        tile_b::store(Bn, sb);
      cp_async_wait_all();
    }
    __syncthreads();
  }
#endif
#endif /* G_TMA */

  /* C, from registers: float4 (or float2) when N allows, else scalars. */
  const bool vec_c =
      G_VN > 1 && N % G_VN == 0 && ((size_t)C & (4 * G_VN - 1)) == 0;
#pragma unroll
  for (int i = 0; i < G_TM; i++) {
    const int row = m0 + wr + (i / G_VM) * G_LM * G_VM + lr * G_VM + i % G_VM;
    if (row >= M)
      continue;
#pragma unroll
    for (int jj = 0; jj < G_TN / G_VN; jj++) {
      const int col = n0 + wc + jj * G_LN * G_VN + lc * G_VN;
      float *p = C + (size_t)row * N + col;
      float v[G_VN];
#pragma unroll
      for (int e = 0; e < G_VN; e++)
        v[e] = alpha * acc[i][jj * G_VN + e];
      if constexpr (G_VN == 4) {
        if (vec_c) {
          if (col < N) {
            if (beta != 0.0f) {
              float4 o = *reinterpret_cast<const float4 *>(p);
              v[0] += beta * o.x;
              v[1] += beta * o.y;
              v[2] += beta * o.z;
              v[3] += beta * o.w;
            }
            *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2],
                                                         v[3]);
          }
          continue;
        }
      } else if constexpr (G_VN == 2) {
        if (vec_c) {
          if (col < N) {
            if (beta != 0.0f) {
              float2 o = *reinterpret_cast<const float2 *>(p);
              v[0] += beta * o.x;
              v[1] += beta * o.y;
            }
            *reinterpret_cast<float2 *>(p) = make_float2(v[0], v[1]);
          }
          continue;
        }
      }
#pragma unroll
      for (int e = 0; e < G_VN; e++)
        if (col + e < N)
          p[e] = beta == 0.0f ? v[e] : v[e] + beta * p[e];
    }
  }
}
#endif

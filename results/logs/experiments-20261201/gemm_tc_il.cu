/* gemm_tc.cu -- bf16/fp16 GEMM on the tensor cores, C = alpha * op(A) *
 * op(B) + beta * C, row-major, fp32 accumulation, for sm_80 and later.
 *
 * op(A) is M x K (A stored M x K, or K x M when TN_TRANS_A), op(B) is
 * K x N (B stored K x N, or N x K when TN_TRANS_B), C is M x N, any M, N,
 * K.  With beta == 0, C is not read (it may hold NaN).
 *
 * A block computes a BM x BN tile of C with WARPS_M x WARPS_N warps, each
 * a WM x WN warp tile of m16n8k16 mma.sync fragments.  The k-tiles of A
 * and B travel global -> shared by cp.async (16 bytes, zero-filled past
 * the edges) into a ring of STAGES buffers; the fragments are read by
 * ldmatrix.x4 (.trans where the shared tile runs along m or n, so that an
 * operand of either storage order feeds the same mma).  Each shared tile
 * keeps the storage order of its operand (a plain copy: cp.async cannot
 * transpose), with a pad and/or a CuTe swizzle (smem_layout.h) on 16-byte
 * chunks, the layout this family tunes.
 *
 * Rendered by tuner/family/gemm_tc.c, which defines before this text:
 *   TN_BM, TN_BN, TN_BK       block tile (BK a multiple of 16)
 *   TN_WARP_M, TN_WARP_N      the warp tile (a multiple of 16 each)
 *   TN_WARPS_M, TN_WARPS_N    warps of the block along m and n
 *   TN_STAGES                 shared buffers of the ring (2 to 4)
 *   TN_EPILOGUE               0: fragments straight to C; 1: each warp's
 *                             tile staged through shared memory (fp32,
 *                             rows of WN + TN_PAD_C floats), then 16-byte
 *                             rows to C
 *   TN_GROUP_M                0: blocks in row-major tile order; g: tiles
 *                             visited in groups of g tile rows (L2 reuse)
 *   TN_MIN_BLOCKS             second __launch_bounds__ argument (0: none)
 *   TN_PAD_A, TN_PAD_B, TN_PAD_C  padding elements per shared row
 *   TN_SWIZZLE_A_B/_M/_S, TN_SWIZZLE_B_B/_M/_S  Swizzle<B, M, S> of As, Bs
 *   TN_TRANS_A, TN_TRANS_B    the problem's storage orders
 *   TN_IN_F16                 1: inputs fp16, 0: bf16
 *   TN_OUT_F32                1: C is fp32, 0: C has the inputs' type
 *   TN_THREADS                threads per block (32 * WARPS_M * WARPS_N)
 *   TN_A_ROWS, TN_A_WIDTH, TN_A_ELEMS, TN_A_BASE (and TN_B_*): each
 *                             operand's shared tile, rows x width (+ pad)
 *                             per stage, in 2-byte elements, and the
 *                             offset of stage 0
 *   TN_SMEM_BYTES             shared memory of the launch (dynamic)
 * tuner/family/gemm_tc_plan.c lists every shared-memory access below, lane
 * by lane, for the model; the TN_TRACE_* hooks (smem_trace.h) let the
 * drift test compare the two on a GPU.  No shared-memory access is skipped
 * at the matrix edges: copies past them store zeros.
 */
#include "smem_layout.h"
#include "smem_trace.h"
#include "tc_ops.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "gemm_tc needs sm_80 or later (mma.sync m16n8k16 on bf16/fp16)"
#endif

#define BM TN_BM
#define BN TN_BN
#define BK TN_BK
#define WM TN_WARP_M
#define WN TN_WARP_N
#define MI (WM / 16)
#define NI (WN / 8)
#define THREADS TN_THREADS

static_assert(THREADS == 32 * TN_WARPS_M * TN_WARPS_N &&
                  BM == WM * TN_WARPS_M && BN == WN * TN_WARPS_N,
              "threads, warps and warp tiles");
static_assert(WM % 16 == 0 && WN % 16 == 0 && BK % 16 == 0,
              "warp tiles of 16 x 16 fragments, k-tiles of 16");
static_assert(TN_STAGES >= 2 && TN_STAGES <= 4, "a ring of 2 to 4 stages");
static_assert(TN_PAD_A % 8 == 0 && TN_PAD_B % 8 == 0 && TN_PAD_C % 4 == 0,
              "pads keep 16-byte rows aligned");
static_assert(TN_A_ROWS * (TN_A_WIDTH + TN_PAD_A) == TN_A_ELEMS &&
                  TN_B_ROWS * (TN_B_WIDTH + TN_PAD_B) == TN_B_ELEMS,
              "padded tiles");
static_assert(TN_A_BASE == 0 && TN_B_BASE == TN_STAGES * TN_A_ELEMS,
              "As's ring, then Bs's");

typedef unsigned short elem_t; /* bf16 or fp16 bits */
#if TN_OUT_F32
typedef float out_t;
#else
typedef unsigned short out_t;
#endif

#define G_BOUNDS_2(t, b) __launch_bounds__(t, b)
#define G_BOUNDS_1(t) __launch_bounds__(t)
#if TN_MIN_BLOCKS > 0
#define G_BOUNDS G_BOUNDS_2(THREADS, TN_MIN_BLOCKS)
#else
#define G_BOUNDS G_BOUNDS_1(THREADS)
#endif

__device__ __forceinline__ float out_to_float(out_t v)
{
#if TN_OUT_F32
  return v;
#else
  return elem_to_float(v);
#endif
}

/* One operand's shared tile: X = 0 for A, 1 for B.  It keeps the storage
 * order of the operand in global memory: rows along the global rows (m or
 * k for A, k or n for B), WIDTH elements along the contiguous dimension. */
template <int X> struct operand {
  static constexpr int ROWS = X ? TN_B_ROWS : TN_A_ROWS;
  static constexpr int WIDTH = X ? TN_B_WIDTH : TN_A_WIDTH;
  static constexpr int PAD = X ? TN_PAD_B : TN_PAD_A;
  static constexpr int ELEMS = X ? TN_B_ELEMS : TN_A_ELEMS;
  static constexpr int BASE = X ? TN_B_BASE : TN_A_BASE;
  /* contiguous along k: A not transposed, B transposed */
  static constexpr bool KCONTIG = X ? TN_TRANS_B != 0 : TN_TRANS_A == 0;
  static constexpr int CPR = WIDTH / 8; /* 16-byte chunks per row */
  static constexpr int CHUNKS = ROWS * CPR;
  static constexpr int ITERS = (CHUNKS + THREADS - 1) / THREADS;

  static __device__ __forceinline__ int at(int row, int col)
  {
    return X ? tn_smem_offset(row, col, WIDTH, PAD, TN_SWIZZLE_B_B,
                              TN_SWIZZLE_B_M, TN_SWIZZLE_B_S)
             : tn_smem_offset(row, col, WIDTH, PAD, TN_SWIZZLE_A_B,
                              TN_SWIZZLE_A_M, TN_SWIZZLE_A_S);
  }

  /* Chunk c = tid + it * THREADS is row c / CPR, column 8 * (c % CPR):
   * THREADS is a multiple of CPR (a power of two up to 32), so round it
   * is RS rows below round 0, at the same column.  When the swizzle moves
   * nothing across RS rows (it reads and writes offset bits below RS x
   * WIDTH), its shared offset is round 0's plus it rows of RS: one
   * register for all rounds. */
  static constexpr int RS = THREADS / CPR;
  static constexpr int SWB = X ? TN_SWIZZLE_B_B : TN_SWIZZLE_A_B;
  static constexpr int SWSPAN =
      SWB ? 1 << (SWB + (X ? TN_SWIZZLE_B_M + TN_SWIZZLE_B_S
                           : TN_SWIZZLE_A_M + TN_SWIZZLE_A_S))
          : 1;
  static constexpr bool LINEAR = (RS * WIDTH) % SWSPAN == 0;
  static_assert(THREADS % CPR == 0, "rounds of whole rows");

  const elem_t *base; /* the matrix: what a zero-fill names */
  const elem_t *ptr;  /* round 0's chunk of the current k-tile */
  size_t round_step;  /* elements from one round's chunk to the next */
  long long step;     /* elements from one k-tile to the next */
  unsigned dst;       /* round 0's byte offset in stage 0 */
  int r0, col;        /* round 0's row and column in the tile */
  int lim;            /* KCONTIG: rows of the matrix left below round 0's;
                         else columns left right of col */

  /* mn0: the block's first row (A) or column (B); MN: M (A) or N (B). */
  __device__ __forceinline__ void init(const elem_t *G, int MN, int K,
                                       int mn0, int tid)
  {
    const int ld = KCONTIG ? K : MN;
    base = G;
    step = KCONTIG ? BK : (long long)BK * ld;
    round_step = (size_t)RS * ld;
    r0 = tid / CPR;
    col = 8 * (tid % CPR);
    dst = 2u * (unsigned)(BASE + at(r0, col));
    /* (row, col) of the tile is (mn, k) when KCONTIG, else (k, mn) */
    lim = KCONTIG ? MN - mn0 - r0 : MN - mn0 - col;
    ptr = G + (KCONTIG ? (size_t)(mn0 + r0) * ld + col
                       : (size_t)r0 * ld + mn0 + col);
  }

  static __device__ __forceinline__ bool live(int it, int tid)
  {
    return CHUNKS % THREADS == 0 || tid + it * THREADS < CHUNKS;
  }

  __device__ __forceinline__ unsigned dst_of(int it) const
  {
    return LINEAR ? dst + 2u * (unsigned)(it * RS * (WIDTH + PAD))
                  : 2u * (unsigned)(BASE + at(r0 + it * RS, col));
  }

  /* Element e of round it's chunk lies inside the matrix for the k-tile
   * at k0. */
  __device__ __forceinline__ bool inside(int it, int e, int k0, int K) const
  {
    return KCONTIG ? lim - it * RS > 0 && k0 + col + e < K
                   : lim > e && k0 + r0 + it * RS < K;
  }

  static __device__ __forceinline__ void trace(const elem_t *smem,
                                               unsigned stage, int tid)
  {
#if defined(TN_TRACE) && TN_TRACE
    for (int it = 0; it < ITERS; it++) {
      const int c = tid + it * THREADS;
      const int r = (c / CPR) % ROWS, col = 8 * (c % CPR);
      TN_TRACE_ST(smem + BASE + stage * ELEMS + at(r, col), 16,
                  live(it, tid));
    }
#else
    (void)smem;
    (void)stage;
    (void)tid;
#endif
  }

  /* The k-tile at k0 into stage `stage`: cp.async when every chunk is
   * 16-byte aligned in global memory (aligned), else element by element
   * through registers, stored as the same 16-byte shared stores. */
  __device__ __forceinline__ void load(elem_t *smem, unsigned stage, int k0,
                                       int K, bool aligned, int tid) const
  {
    const unsigned sbase = smem_addr(smem) + 2u * stage * ELEMS;
    trace(smem, stage, tid);
#pragma unroll
    for (int it = 0; it < ITERS; it++) {
      if (!live(it, tid))
        continue;
      if (aligned) {
        /* the contiguous extent is ld, a multiple of 8: a chunk is all
         * inside or all outside */
        const bool in = inside(it, 0, k0, K) && inside(it, 7, k0, K);
        cp_async16(sbase + dst_of(it), in ? ptr + it * round_step : base,
                   in);
      } else {
        unsigned short v[8];
#pragma unroll
        for (int e = 0; e < 8; e++)
          v[e] = inside(it, e, k0, K) ? ptr[it * round_step + e]
                                      : (unsigned short)0;
        uint4 w;
        w.x = v[0] | (unsigned)v[1] << 16;
        w.y = v[2] | (unsigned)v[3] << 16;
        w.z = v[4] | (unsigned)v[5] << 16;
        w.w = v[6] | (unsigned)v[7] << 16;
        asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"r"(
                         sbase + dst_of(it)),
                     "r"(w.x), "r"(w.y), "r"(w.z), "r"(w.w));
      }
    }
  }

  /* Round it's chunk of the k-tile at k0, aligned operands only; a
   * chunk outside the matrix (or live = false) zero-fills its place. */
  __device__ __forceinline__ void load_one(elem_t *smem, unsigned stage,
                                           int k0, int K, int tid, int it,
                                           bool go) const
  {
    if (!live(it, tid))
      return;
    const unsigned sbase = smem_addr(smem) + 2u * stage * ELEMS;
    const bool in = go && inside(it, 0, k0, K) && inside(it, 7, k0, K);
    cp_async16(sbase + dst_of(it), in ? ptr + it * round_step : base, in);
  }

  __device__ __forceinline__ void advance(void)
  {
    ptr += step;
  }
};

typedef operand<0> op_a;
typedef operand<1> op_b;

/* Byte offset, in stage 0, of lane's ldmatrix row for the 16 x 16 block
 * of A at (m, k) of the tile: matrices (m, k), (m + 8, k), (m, k + 8),
 * (m + 8, k + 8), so that the four registers are a0..a3 of mma's A. */
__device__ __forceinline__ unsigned a_frag_addr(int m, int k, int lane)
{
  const int j = lane / 8, r = lane % 8;
#if TN_TRANS_A
  return 2u * (unsigned)(op_a::BASE +
                         op_a::at(k + (j >> 1) * 8 + r, m + (j & 1) * 8));
#else
  return 2u * (unsigned)(op_a::BASE +
                         op_a::at(m + (j & 1) * 8 + r, k + (j >> 1) * 8));
#endif
}

/* The same for the 16 (n) x 16 (k) block of B at (n, k): matrices (n, k),
 * (n, k + 8), (n + 8, k), (n + 8, k + 8): b0, b1 of fragment n, then of
 * fragment n + 8. */
__device__ __forceinline__ unsigned b_frag_addr(int n, int k, int lane)
{
  const int j = lane / 8, r = lane % 8;
#if TN_TRANS_B
  return 2u * (unsigned)(op_b::BASE +
                         op_b::at(n + (j >> 1) * 8 + r, k + (j & 1) * 8));
#else
  return 2u * (unsigned)(op_b::BASE +
                         op_b::at(k + (j & 1) * 8 + r, n + (j >> 1) * 8));
#endif
}

__device__ __forceinline__ void load_a_frag(unsigned (&r)[4], unsigned addr)
{
#if TN_TRANS_A
  ldmatrix_x4_trans(r, addr);
#else
  ldmatrix_x4(r, addr);
#endif
}

__device__ __forceinline__ void load_b_frag(unsigned (&r)[4], unsigned addr)
{
#if TN_TRANS_B
  ldmatrix_x4(r, addr);
#else
  ldmatrix_x4_trans(r, addr);
#endif
}

/* The tile (tm, tn) of C this block computes. */
__device__ __forceinline__ void block_tile(int M, int N, int &tm, int &tn)
{
#if TN_GROUP_M > 0
  /* Blocks run in launch order: groups of GROUP_M tile rows, walked
   * column by column, so that concurrent blocks share A's rows and B's
   * columns in L2. */
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int pid = blockIdx.x, per_group = TN_GROUP_M * tiles_n;
  const int first = (pid / per_group) * TN_GROUP_M;
  const int rows = min(tiles_m - first, TN_GROUP_M);
  tm = first + (pid % per_group) % rows;
  tn = (pid % per_group) / rows;
#else
  (void)M;
  (void)N;
  tm = blockIdx.y;
  tn = blockIdx.x;
#endif
}

/* C[row][col] (and col + 1 when pair) = alpha * acc + beta * C. */
__device__ __forceinline__ void store_pair(out_t *C, int N, int row, int col,
                                           float v0, float v1, float beta,
                                           bool pair_ok)
{
  out_t *p = C + (size_t)row * N + col;
  if (pair_ok && col + 1 < N) {
#if TN_OUT_F32
    if (beta != 0.0f) {
      const float2 o = *reinterpret_cast<const float2 *>(p);
      v0 += beta * o.x;
      v1 += beta * o.y;
    }
    *reinterpret_cast<float2 *>(p) = make_float2(v0, v1);
#else
    if (beta != 0.0f) {
      const unsigned o = *reinterpret_cast<const unsigned *>(p);
      v0 += beta * elem_to_float((unsigned short)(o & 0xffffu));
      v1 += beta * elem_to_float((unsigned short)(o >> 16));
    }
    *reinterpret_cast<unsigned *>(p) = pack2(v0, v1);
#endif
    return;
  }
  if (col < N) {
    if (beta != 0.0f)
      v0 += beta * out_to_float(p[0]);
#if TN_OUT_F32
    p[0] = v0;
#else
    p[0] = round1(v0);
#endif
  }
  if (col + 1 < N) {
    if (beta != 0.0f)
      v1 += beta * out_to_float(p[1]);
#if TN_OUT_F32
    p[1] = v1;
#else
    p[1] = round1(v1);
#endif
  }
}

/* The lanes' ldmatrix row offsets (bytes, stage 0) of one operand's
 * fragment blocks f (16 rows of A or 16 columns of B from the warp's w0)
 * at depth kk.  One index moves the rows a lane names by whole rows of
 * the tile (f when the tile's rows run along m or n, kk when along k),
 * which adds a constant when the swizzle moves nothing across 16 rows
 * (ROW_LINEAR); along the other the swizzle permutes chunks, so one offset
 * is kept per value of it: registers for NKEEP offsets, not NF x NK. */
template <int X> struct frag_offsets {
  typedef operand<X> O;
  static constexpr int NF = X ? NI / 2 : MI;
  static constexpr int NK = BK / 16;
  static constexpr bool ROW_LINEAR = (16 * O::WIDTH) % O::SWSPAN == 0;
  static constexpr int NKEEP = !ROW_LINEAR ? NF * NK : O::KCONTIG ? NK : NF;
  static constexpr unsigned ROW16 = 2u * 16u * (O::WIDTH + O::PAD);
  unsigned off[NKEEP];

  static __device__ __forceinline__ unsigned full(int w0, int f, int kk,
                                                  int lane)
  {
    return X ? b_frag_addr(w0 + 16 * f, kk, lane)
             : a_frag_addr(w0 + 16 * f, kk, lane);
  }

  __device__ __forceinline__ void init(int w0, int lane)
  {
#pragma unroll
    for (int q = 0; q < NKEEP; q++)
      off[q] = !ROW_LINEAR ? full(w0, q / NK, 16 * (q % NK), lane)
               : O::KCONTIG ? full(w0, 0, 16 * q, lane)
                            : full(w0, q, 0, lane);
  }

  __device__ __forceinline__ unsigned at(int f, int kk) const
  {
    if constexpr (!ROW_LINEAR)
      return off[f * NK + kk / 16];
    else if constexpr (O::KCONTIG)
      return off[kk / 16] + (unsigned)f * ROW16;
    else
      return off[f] + (unsigned)(kk / 16) * ROW16;
  }
};

/* The ldmatrix.x4 of one k-step: MI of A (16 rows each), NI / 2 of B
 * (16 columns each), from stage `stage` at depth kk of the tile. */
__device__ __forceinline__ void load_fragments(const elem_t *smem,
                                               unsigned sbase, int stage,
                                               int kk,
                                               const frag_offsets<0> &fa,
                                               const frag_offsets<1> &fb,
                                               unsigned (&af)[MI][4],
                                               unsigned (&bf)[NI / 2][4])
{
  const unsigned a_st = sbase + 2u * stage * op_a::ELEMS;
  const unsigned b_st = sbase + 2u * stage * op_b::ELEMS;
  (void)smem;
#pragma unroll
  for (int i = 0; i < MI; i++) {
    TN_TRACE_LDMATRIX(smem + stage * op_a::ELEMS + fa.at(i, kk) / 2, true);
    load_a_frag(af[i], a_st + fa.at(i, kk));
  }
#pragma unroll
  for (int j = 0; j < NI / 2; j++) {
    TN_TRACE_LDMATRIX(smem + stage * op_b::ELEMS + fb.at(j, kk) / 2, true);
    load_b_frag(bf[j], b_st + fb.at(j, kk));
  }
}

/* acc = the block's tile of op(A) op(B), k-tile by k-tile.  aa, ab: the
 * operands' chunks are 16-byte aligned (cp.async), else copied element by
 * element.  (Instances of this loop for each case, with the flags as
 * template parameters, spilled registers on sm_90 where this one, with a
 * branch uniform over the launch, does not.) */
__device__ __forceinline__ void mainloop(elem_t *smem, unsigned sbase,
                                         op_a &ga, op_b &gb, int K,
                                         int ktiles, bool aa, bool ab,
                                         int tid, int wm0, int wn0, int lane,
                                         float (&acc)[MI][NI][4])
{
  /* Tile t lives in stage t % STAGES.  The fragments are double-buffered
   * in registers: while the mma of k-step kk run, the ldmatrix of kk + 1
   * are in flight, and the last k-step of a tile overlaps the first loads
   * of the next.  So the wait and the barrier come before the last k-step:
   * after them tile kt + 1 has landed and every warp has read all of tile
   * kt's stage it will read (kt's last fragments are in registers), and at
   * the next tile's first k-step the stage of tile kt receives tile
   * kt + STAGES.  One barrier per k-tile; a commit per tile even when
   * empty, so that the wait counts groups uniformly. */
#pragma unroll
  for (int s = 0; s < TN_STAGES - 1; s++) {
    if (s < ktiles) {
      ga.load(smem, s, s * BK, K, aa, tid);
      gb.load(smem, s, s * BK, K, ab, tid);
      ga.advance();
      gb.advance();
    }
    cp_async_commit();
  }
  cp_async_wait<TN_STAGES - 2>();
  __syncthreads();

  constexpr int KK = BK / 16;
  unsigned af[2][MI][4], bf[2][NI / 2][4];
  int read_stage = 0, write_stage = TN_STAGES - 1;
  frag_offsets<0> fa;
  frag_offsets<1> fb;
  fa.init(wm0, lane);
  fb.init(wn0, lane);
  load_fragments(smem, sbase, 0, 0, fa, fb, af[0], bf[0]);
  constexpr int TA = op_a::ITERS, TB = op_b::ITERS, T = TA + TB;
  constexpr int NB = NI / 2;
  for (int kt = 0; kt < ktiles; kt++) {
#pragma unroll
    for (int kk = 0; kk < KK; kk++) {
      if (kk == KK - 1) {
        cp_async_wait<TN_STAGES - 2>();
        __syncthreads();
        read_stage = read_stage + 1 == TN_STAGES ? 0 : read_stage + 1;
      }
      const int nk = 16 * ((kk + 1) % KK);
      const int k0n = (kt + TN_STAGES - 1) * BK;
      const bool go = kt + TN_STAGES - 1 < ktiles;
      const unsigned a_st = sbase + 2u * read_stage * op_a::ELEMS;
      const unsigned b_st = sbase + 2u * read_stage * op_b::ELEMS;
#pragma unroll
      for (int i = 0; i < MI; i++) {
        load_a_frag(af[(kk + 1) % 2][i], a_st + fa.at(i, nk));
#pragma unroll
        for (int q = i * NB / MI; q < (i + 1) * NB / MI; q++)
          load_b_frag(bf[(kk + 1) % 2][q], b_st + fb.at(q, nk));
        if (kk == 0) {
#pragma unroll
          for (int c = i * T / MI; c < (i + 1) * T / MI; c++) {
            if (c < TA)
              ga.load_one(smem, write_stage, k0n, K, tid, c, go);
            else
              gb.load_one(smem, write_stage, k0n, K, tid, c - TA, go);
          }
        }
#pragma unroll
        for (int j = 0; j < NI; j++)
          mma16816(acc[i][j], af[kk % 2][i], bf[kk % 2][j / 2][2 * (j % 2)],
                   bf[kk % 2][j / 2][2 * (j % 2) + 1]);
      }
      if (kk == 0) {
        ga.advance();
        gb.advance();
        cp_async_commit();
        write_stage = write_stage + 1 == TN_STAGES ? 0 : write_stage + 1;
      }
    }
  }
}

extern "C" __global__ void G_BOUNDS
gemm_tc(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
        out_t *__restrict__ C, int M, int N, int K, float alpha, float beta)
{
  extern __shared__ __align__(128) elem_t smem[];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm0 = (warp / TN_WARPS_N) * WM, wn0 = (warp % TN_WARPS_N) * WN;
  int tile_m, tile_n;
  block_tile(M, N, tile_m, tile_n);
  const int m0 = tile_m * BM, n0 = tile_n * BN;
  const int ktiles = (K + BK - 1) / BK;
  const unsigned sbase = smem_addr(smem);
  TN_TRACE_BASE(smem);

  /* Uniform over the launch: cp.async needs 16-byte-aligned chunks. */
  const bool aligned_a = (TN_TRANS_A ? M : K) % 8 == 0 &&
                         ((size_t)A & 15) == 0;
  const bool aligned_b = (TN_TRANS_B ? K : N) % 8 == 0 &&
                         ((size_t)B & 15) == 0;
  op_a ga;
  op_b gb;
  ga.init(A, M, K, m0, tid);
  gb.init(B, N, K, n0, tid);

  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
      for (int e = 0; e < 4; e++)
        acc[i][j][e] = 0.0f;

  mainloop(smem, sbase, ga, gb, K, ktiles, aligned_a, aligned_b, tid, wm0,
           wn0, lane, acc);

  const int g = lane / 4, t = lane % 4;
  const bool pair_ok = N % 2 == 0 && ((size_t)C & (2 * sizeof(out_t) - 1)) == 0;
#if TN_EPILOGUE == 0
  /* Fragment (i, j): rows g and g + 8, columns 2t and 2t + 1. */
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int row = m0 + wm0 + 16 * i + g + 8 * h;
        const int col = n0 + wn0 + 8 * j + 2 * t;
        if (row < M)
          store_pair(C, N, row, col, alpha * acc[i][j][2 * h],
                     alpha * acc[i][j][2 * h + 1], beta, pair_ok);
      }
#else
  /* Each warp stages 16 rows of its tile at a time in its own part of
   * shared memory (fp32, rows of WN + PAD_C), then writes them to C in
   * 16-byte (4-float) runs: C's rows are written whole, not in the 8-byte
   * pieces a fragment holds. */
  cp_async_wait<0>();
  __syncthreads(); /* every warp is done with the ring */
  constexpr int SP = WN + TN_PAD_C; /* staging row pitch, floats */
  float *stage_c = reinterpret_cast<float *>(smem) + warp * 16 * SP;
  const bool vec4 =
      N % 4 == 0 && ((size_t)C & (4 * sizeof(out_t) - 1)) == 0;
#pragma unroll
  for (int i = 0; i < MI; i++) {
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        float *p = stage_c + (g + 8 * h) * SP + 8 * j + 2 * t;
        TN_TRACE_ST(p, 8, true);
        *reinterpret_cast<float2 *>(p) =
            make_float2(alpha * acc[i][j][2 * h], alpha * acc[i][j][2 * h + 1]);
      }
    __syncwarp();
#pragma unroll
    for (int q = lane; q < 16 * (WN / 4); q += 32) {
      const int r = q / (WN / 4), c = 4 * (q % (WN / 4));
      const float *p = stage_c + r * SP + c;
      TN_TRACE_LD(p, 16, true);
      const float4 v = *reinterpret_cast<const float4 *>(p);
      const int row = m0 + wm0 + 16 * i + r, col = n0 + wn0 + c;
      if (row >= M)
        continue;
      out_t *o = C + (size_t)row * N + col;
      if (vec4 && col + 3 < N) {
        float x = v.x, y = v.y, z = v.z, w = v.w;
#if TN_OUT_F32
        if (beta != 0.0f) {
          const float4 b4 = *reinterpret_cast<const float4 *>(o);
          x += beta * b4.x;
          y += beta * b4.y;
          z += beta * b4.z;
          w += beta * b4.w;
        }
        *reinterpret_cast<float4 *>(o) = make_float4(x, y, z, w);
#else
        if (beta != 0.0f) {
          const uint2 b2 = *reinterpret_cast<const uint2 *>(o);
          x += beta * elem_to_float((unsigned short)(b2.x & 0xffffu));
          y += beta * elem_to_float((unsigned short)(b2.x >> 16));
          z += beta * elem_to_float((unsigned short)(b2.y & 0xffffu));
          w += beta * elem_to_float((unsigned short)(b2.y >> 16));
        }
        *reinterpret_cast<uint2 *>(o) = make_uint2(pack2(x, y), pack2(z, w));
#endif
      } else {
        store_pair(C, N, row, col, v.x, v.y, beta, pair_ok);
        store_pair(C, N, row, col + 2, v.z, v.w, beta, pair_ok);
      }
    }
    __syncwarp();
  }
#endif
}

/* gemm_wg_schedule.h -- what each block of templates/gemm_wg.cu computes
 * (included there, after its types): its units whole, walked with the
 * grid's stride, and with TN_STREAM_K its share of the k-tiles of the
 * units that do not fill a last wave, and the fix-up that adds a tile's
 * shares up across blocks.
 *
 * Stream-K.  U units on G units of blocks at once leave U % G of them
 * for a last wave that keeps the rest of the GPU idle (at 4096^3, 128 x
 * 256 tiles on 132 SMs: 512 tiles, 3.88 waves).  The units before are
 * walked whole as without.  TN_STREAM_K 1 splits the U % G units'
 * k-tiles evenly among all G, as one run cut in G consecutive ranges: a
 * block's range starts inside a unit (a share without its first k-tile:
 * the block writes its sums to its slot of the workspace and sets its
 * flags) and then covers units from their start (their owner: once its
 * own sums are done it waits for the flags of the blocks after it whose
 * ranges start inside the unit, adds their sums in their order and
 * stores the tile).  Its blocks start the split at k-tiles all over K,
 * which spreads the L2's working set over whole panels of A and B.
 * TN_STREAM_K 2 keeps them in step: each split unit's head, its first
 * `head` k-tiles, on the block that the last wave gives it, and its
 * tail on one of the blocks that wave leaves idle, which takes
 * ceil(rem / idle) tails at most; every block starts at a unit's k-tile
 * 0 or at `head`, and the head is as long as those tails together.  The
 * head's block owns the unit and adds its tail's sums, from the unit's
 * slot.  Either way the sum is the same every launch, and the owner
 * resets the flags it read, so the workspace is zero for the next
 * launch.  Owners wait only for blocks of a higher index, which never
 * wait before they set their flags; the launch must still run every
 * block at once (the family's co_resident), since a block that waits
 * holds its SM.
 *
 * The workspace: a slot per block (a unit column's block of each rank)
 * of SK_FLAGS words (a flag per consumer warp) and BM x BN fp32 sums,
 * four a thread in a row, thread-major so that a warp's 16-byte stores
 * and loads are 512 bytes in a row.
 *
 * The schedule (above the sums) is C as well as CUDA C++, on the macros
 * GRID_UNITS, UNIT_FIRST and UNIT_STEP and TN_STREAM_K as a value, so
 * that a host test walks it for every block (tests/unit/test_stream_k.c);
 * without TN_STREAM_K its split terms fold away. */
#ifndef TN_GEMM_WG_SCHEDULE_H
#define TN_GEMM_WG_SCHEDULE_H

#ifndef TN_STREAM_K
#define TN_STREAM_K 0
#endif

/* One item of a block's work: k-tiles kb..ke-1 of unit u. */
typedef struct {
  int u, kb, ke;
} wg_item;

/* A block's schedule: `mine` units walked whole from `first` (those below
 * dp), then its items of the `rem` split units (dp on): with stream_k 1
 * k-tiles lo..hi-1 of their run of iters, with 2 a head of `head`
 * k-tiles, or tails. */
typedef struct {
  int ktiles, dp, mine, first, step, rem, head;
  long long iters, lo, hi;
} wg_sched;

/* stream_k 1: where the split run's range of unit column j starts. */
__device__ __forceinline__ long long share_start(long long iters, int j)
{
  return iters * j / GRID_UNITS;
}

/* stream_k 2: the first split unit whose tail column j (one the last wave
 * leaves idle: rem or more) takes. */
__device__ __forceinline__ int tail_first(const wg_sched *s, int j)
{
  return (int)((long long)(j - s->rem) * s->rem / (GRID_UNITS - s->rem));
}

__device__ __forceinline__ wg_sched make_sched(int units, int ktiles)
{
  wg_sched s;
  s.ktiles = ktiles;
  s.first = UNIT_FIRST;
  s.step = UNIT_STEP; /* (a block per unit: `units`) */
  s.rem = TN_STREAM_K ? units % GRID_UNITS : 0;
  s.head = 0;
  s.iters = TN_STREAM_K == 1 ? (long long)s.rem * ktiles : 0;
  if (TN_STREAM_K == 2 && s.rem > 0) {
    /* n tails at most an idle column: heads of ceil(n ktiles / (n + 1))
     * k-tiles, so that no column has more */
    const int idle = GRID_UNITS - s.rem;
    const int n = (s.rem + idle - 1) / idle;
    s.head = (n * ktiles + n) / (n + 1);
    if (s.head >= ktiles)
      s.rem = 0; /* too few k-tiles to split */
  }
  s.dp = units - s.rem;
  s.lo = share_start(s.iters, s.first);
  s.hi = share_start(s.iters, s.first + 1);
  s.mine = s.first < s.dp ? (s.dp - s.first + s.step - 1) / s.step : 0;
  return s;
}

/* Item w of the block into *it; 0 past its last. */
__device__ __forceinline__ int item_of(const wg_sched *s, int w, wg_item *it)
{
  long long start, t, end;
  int r;
  if (w < s->mine) {
    it->u = s->first + w * s->step;
    it->kb = 0;
    it->ke = s->ktiles;
    return 1;
  }
  if (TN_STREAM_K == 2) {
    /* a head from k-tile 0 on a column of the last wave, or tails on an
     * idle one: every block starts at the same k, as the waves before */
    if (s->first < s->rem) {
      it->u = s->dp + s->first;
      it->kb = 0;
      it->ke = s->head;
      return w == s->mine;
    }
    r = tail_first(s, s->first) + (w - s->mine);
    if (r >= tail_first(s, s->first + 1))
      return 0;
    it->u = s->dp + r;
    it->kb = s->head;
    it->ke = s->ktiles;
    return 1;
  }
  if (!TN_STREAM_K)
    return 0;
  /* the range's first item from lo, each later one from a tile's start */
  start = w == s->mine ? s->lo : (s->lo / s->ktiles + (w - s->mine)) *
                                     (long long)s->ktiles;
  if (start >= s->hi)
    return 0;
  t = start / s->ktiles;
  end = (t + 1) * s->ktiles < s->hi ? (t + 1) * s->ktiles : s->hi;
  it->u = s->dp + (int)t;
  it->kb = (int)(start - t * s->ktiles);
  it->ke = (int)(end - t * s->ktiles);
  return 1;
}

/* The slot (a unit column's) that a share, an item from inside its unit,
 * writes its sums to: stream_k 1 the block's own (its first item alone
 * can be one), 2 the split unit's. */
__device__ __forceinline__ int share_slot(const wg_sched *s,
                                          const wg_item *it)
{
  return TN_STREAM_K == 2 ? it->u - s->dp : s->first;
}

/* For the owner of a split unit (item it from k-tile 0, ending before
 * ktiles): the slot after prev (-1: the first) whose sums it adds, or -1.
 * stream_k 1: the columns after it whose ranges start inside the unit (a
 * range of none, fewer k-tiles than columns, has no share); 2: the
 * unit's. */
__device__ __forceinline__ int next_slot(const wg_sched *s,
                                         const wg_item *it, int prev)
{
  const long long end = (long long)(it->u - s->dp + 1) * s->ktiles;
  int j;
  if (TN_STREAM_K == 2)
    return prev < 0 ? it->u - s->dp : -1;
  for (j = (prev < 0 ? s->first : prev) + 1; j < GRID_UNITS; j++) {
    const long long lo = share_start(s->iters, j);
    if (lo >= end)
      return -1;
    if (lo < share_start(s->iters, j + 1))
      return j;
  }
  return -1;
}

#if defined(__CUDACC__) && TN_STREAM_K
#define SK_FLAGS 32 /* words of flags a slot: 128 bytes, one per warp */
#define SK_SLOT (SK_FLAGS + BM * BN)
static_assert(4 * CONS <= SK_FLAGS && NACC % 4 == 0,
              "a flag per consumer warp, the sums 16 bytes at a time");

/* The block of unit column j that holds this block's rank of a unit. */
__device__ __forceinline__ int block_of(int j, int rank)
{
  return MCAST ? j * CL + rank : j;
}

__device__ __forceinline__ unsigned *flag_of(float *ws, int block, int cw,
                                             int wtid)
{
  return (unsigned *)(ws + (size_t)block * SK_SLOT) + cw * 4 + wtid / 32;
}

/* Where thread wtid of consumer cw keeps accumulators e..e+3 of slab mc
 * (e a multiple of 4): 16 bytes a thread, a warp's 512 in a row. */
__device__ __forceinline__ float4 *sum_of(float *ws, int block, int cw,
                                          int wtid, int mc, int e)
{
  return (float4 *)(ws + (size_t)block * SK_SLOT + SK_FLAGS) +
         ((size_t)(cw * MC + mc) * (NACC / 4) + e / 4) * 128 + wtid;
}

/* A share, an item without its unit's first k-tile: the sums to the
 * slot's block (share_slot), then, once the warp's are written, its
 * flag. */
__device__ __forceinline__ void share_publish(float *ws, int block, int cw,
                                              int wtid, float (&acc)[MC][NACC])
{
#pragma unroll
  for (int mc = 0; mc < MC; mc++)
#pragma unroll
    for (int e = 0; e < NACC; e += 4)
      __stcg(sum_of(ws, block, cw, wtid, mc, e),
             make_float4(acc[mc][e], acc[mc][e + 1], acc[mc][e + 2],
                         acc[mc][e + 3]));
  __syncwarp();
  if (wtid % 32 == 0) {
    __threadfence();
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(
                     flag_of(ws, block, cw, wtid)),
                 "r"(1u)
                 : "memory");
  }
}

/* The owner of a split unit: the sums of its slots added in their order,
 * each once its flag is set (then reset for the next launch). */
__device__ __forceinline__ void share_gather(float *ws, const wg_sched &s,
                                             const wg_item &it, int rank,
                                             int cw, int wtid,
                                             float (&acc)[MC][NACC])
{
  for (int j = next_slot(&s, &it, -1); j >= 0; j = next_slot(&s, &it, j)) {
    const int b = block_of(j, rank);
    if (wtid % 32 == 0) {
      unsigned *f = flag_of(ws, b, cw, wtid), v;
      for (;;) {
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
                     : "=r"(v)
                     : "l"(f)
                     : "memory");
        if (v)
          break;
        __nanosleep(64);
      }
      *(volatile unsigned *)f = 0u;
    }
    __syncwarp();
#pragma unroll
    for (int mc = 0; mc < MC; mc++)
#pragma unroll
      for (int e = 0; e < NACC; e += 4) {
        const float4 v = __ldcg(sum_of(ws, b, cw, wtid, mc, e));
        acc[mc][e] += v.x;
        acc[mc][e + 1] += v.y;
        acc[mc][e + 2] += v.z;
        acc[mc][e + 3] += v.w;
      }
  }
}
#endif

#endif

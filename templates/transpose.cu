/* transpose.cu -- tiled out-of-place transpose of a row-major matrix of
 * 1-, 2-, 4- or 8-byte elements (fp8/int8, fp16/bf16, fp32, fp64), moved
 * as bits.
 *
 * out (cols x rows) = transpose(in (rows x cols)), any rows and cols.
 * Rendered by the tuner, which defines before this text:
 *   TN_TILE             tile edge in elements (8 .. 256, a power of two):
 *                       its columns, and its rows unless TN_TILE_ROWS
 *   TN_ROWS_PER_THREAD  tile rows each thread moves (divides TN_TILE and
 *                       TN_TILE_R)
 *   TN_VEC              elements each thread moves per row (1 .. 16, at
 *                       most 16 bytes): the width of its global accesses
 *   TN_PAD, TN_PAD_UNIT padding at the end of each tile row, in elements
 *                       (TN_PAD_UNIT 0) or 4-byte words (4)
 *   TN_SWIZZLE_B, _M, _S  Swizzle<B, M, S> of the tile's element offsets
 *                       (B = 0: none)
 *   TN_GROUP            tile rows per group in the order blocks take tiles
 *   TN_TMA              1: the copy engine (TMA, sm_90+) loads the tile
 *   TN_TMA_STORE        with TN_TMA: 1 the copy engine stores it too
 *   TN_BOX_ROWS, TN_BOX_COLS  the box as configured (0: the default)
 *   TN_PACK             tile columns one shared load reads on the fast
 *                       paths (1 .. 16, at most 16 bytes), transposed in
 *                       registers into TN_PACK output rows
 *   TN_CACHE            the threads' global accesses: bit 0 evict-first
 *                       (.cs), bit 1 loads that fetch 256 bytes into the
 *                       L2 (.L2::256B); 0 plain
 * and the values its access plan derives from them (computed once, in
 * tn_transpose_shape_of() of tuner/family/transpose_plan.c):
 *   TN_ELEM_BYTES       bytes of an element: 1, 2, 4 or 8 (the problem's
 *                       elem)
 *   TN_PAD_ELEMS        the pad in elements
 *   TN_TILE_ROWS        the tile_rows parameter: 0 a square tile, else
 *                       its rows
 *   TN_TILE_R           the tile's rows, resolved: TN_TILE, or the
 *                       rectangle's TN_TILE_ROWS (the threads' path)
 *   TN_THREADS_X, TN_BLOCK_Y  the block: TN_TILE / TN_VEC x
 *                       TN_TILE_R / TN_ROWS_PER_THREAD threads
 *   TN_THREADS_X2, TN_BLOCK_Y2  the same threads as the transposed tile's
 *                       rows see them: TN_TILE_R / TN_VEC x
 *                       TN_TILE / TN_ROWS_PER_THREAD
 *   TN_THREADS          TN_THREADS_X * TN_BLOCK_Y
 *   TN_SW               width in elements of the fast path's shared stores
 *   TN_SMEM_ELEMS       elements of the padded tile (with TN_TMA: of the
 *                       tile, and of the transposed one TN_TMA_STORE needs)
 *   TN_BOXR, TN_BOXC    the copy engine's box, resolved: rows x columns
 *   TN_BATCHED          1 for the batched families (their tensor maps have
 *                       the matrix as a third dimension); else undefined
 * A block is (TN_TILE / TN_VEC) x (TN_TILE_R / TN_ROWS_PER_THREAD) threads
 * and moves one TN_TILE_R x TN_TILE tile.  The grid is one-dimensional:
 * block b takes tiles in groups of TN_GROUP tile rows, column by column
 * within a group, so that blocks running together touch compact regions
 * of both matrices (TN_GROUP = 1: row by row).  A batch of matrices (the
 * families transpose_batched and transpose_heads), each contiguous, one
 * after the other in both buffers: block (x, y, z) moves tile x of
 * matrix y + gridDim.y * z.
 *
 * TN_TMA = 1 (sm_90 and later) is the copy engine's path, below the
 * threads' one; TN_TMA_STORE, TN_BOXR x TN_BOXC (the box, resolved) and
 * the swizzle (none, or sw32/sw64/sw128 as the tensor maps have it) shape
 * it.
 *
 * In a matrix whose sizes are multiples of TN_VEC, tiles move as vectors:
 * TN_VEC-wide global accesses, shared stores TN_SW elements wide (the
 * widest the padding and swizzle keep contiguous and aligned) and column
 * reads TN_PACK elements wide: a thread reads TN_PACK adjacent columns of
 * each of its TN_VEC rows and writes TN_PACK output rows of TN_VEC
 * elements.  Whole tiles do so without bounds checks; a tile cut by the
 * matrix's edge checks each vector (which lies wholly inside or outside).
 * In other matrices every tile moves element by element, each access
 * predicated on lying in the matrix.  The threads' tile is dynamic shared
 * memory (TN_SMEM_ELEMS elements at launch).  The tuner's
 * access plan (tuner/family/transpose_plan.c) lists exactly these
 * shared-memory accesses; the TN_TRACE_* hooks (smem_trace.h) mark each
 * one for the drift test.
 */
#include "smem_layout.h"
#include "smem_trace.h"

#ifndef TN_BATCHED
#define TN_BATCHED 0
#endif

/* A type of B bytes: B bytes moved as one access, as bits (no value is
 * ever computed on; 4 to 16 bytes are fp32's types, as the code fp32
 * had before the other widths, which compiles to the same). */
template <int B> struct bits_of;
template <> struct bits_of<1> { typedef unsigned char type; };
template <> struct bits_of<2> { typedef unsigned short type; };
template <> struct bits_of<4> { typedef float type; };
template <> struct bits_of<8> { typedef float2 type; };
template <> struct bits_of<16> { typedef float4 type; };
typedef bits_of<TN_ELEM_BYTES>::type elem_t;
typedef bits_of<TN_ELEM_BYTES * TN_VEC>::type vec_t;
typedef bits_of<TN_ELEM_BYTES * TN_PACK>::type pack_t;

/* Element i of a vector or a packed word. */
#define ELEM(v, i) (reinterpret_cast<elem_t *>(&(v))[i])

#ifndef TN_CACHE
#define TN_CACHE 0
#endif

/* The threads' global accesses under TN_CACHE: bit 0 marks them
 * evict-first (.cs: each byte is touched once), bit 1 asks the L2 to
 * fetch 256 bytes a load miss (a tile row of 64 or 128 bytes brings its
 * neighbour's, which the next block reads).  0: plain accesses. */
#define TN_LD_HINTS "ld.global" TN_LD_CS ".nc" TN_LD_PF
#if TN_CACHE & 1
#define TN_LD_CS ".cs"
#else
#define TN_LD_CS ""
#endif
#if TN_CACHE & 2
#define TN_LD_PF ".L2::256B"
#else
#define TN_LD_PF ""
#endif

template <int B> struct global_io;
template <> struct global_io<1> {
  static __device__ __forceinline__ unsigned char ld(const void *p)
  {
    unsigned short v;
    asm(TN_LD_HINTS ".u8 %0, [%1];" : "=h"(v) : "l"(p));
    return (unsigned char)v;
  }
  static __device__ __forceinline__ void st(void *p, unsigned char v)
  {
    asm volatile("st.global.cs.u8 [%0], %1;" ::"l"(p), "h"((unsigned short)v));
  }
};
template <> struct global_io<2> {
  static __device__ __forceinline__ unsigned short ld(const void *p)
  {
    unsigned short v;
    asm(TN_LD_HINTS ".u16 %0, [%1];" : "=h"(v) : "l"(p));
    return v;
  }
  static __device__ __forceinline__ void st(void *p, unsigned short v)
  {
    asm volatile("st.global.cs.u16 [%0], %1;" ::"l"(p), "h"(v));
  }
};
template <> struct global_io<4> {
  static __device__ __forceinline__ float ld(const void *p)
  {
    float v;
    asm(TN_LD_HINTS ".f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
  }
  static __device__ __forceinline__ void st(void *p, float v)
  {
    asm volatile("st.global.cs.f32 [%0], %1;" ::"l"(p), "f"(v));
  }
};
template <> struct global_io<8> {
  static __device__ __forceinline__ float2 ld(const void *p)
  {
    float2 v;
    asm(TN_LD_HINTS ".v2.f32 {%0, %1}, [%2];"
        : "=f"(v.x), "=f"(v.y)
        : "l"(p));
    return v;
  }
  static __device__ __forceinline__ void st(void *p, float2 v)
  {
    asm volatile("st.global.cs.v2.f32 [%0], {%1, %2};" ::"l"(p), "f"(v.x),
                 "f"(v.y));
  }
};
template <> struct global_io<16> {
  static __device__ __forceinline__ float4 ld(const void *p)
  {
    float4 v;
    asm(TN_LD_HINTS ".v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p));
    return v;
  }
  static __device__ __forceinline__ void st(void *p, float4 v)
  {
    asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p),
                 "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w));
  }
};

/* A global load and store of T under TN_CACHE (0: as the compiler
 * emits them). */
template <typename T> __device__ __forceinline__ T gload(const T *p)
{
#if TN_CACHE
  return global_io<sizeof(T)>::ld(p);
#else
  return *p;
#endif
}
template <typename T> __device__ __forceinline__ void gstore(T *p, T v)
{
#if TN_CACHE & 1
  global_io<sizeof(T)>::st(p, v);
#else
  *p = v;
#endif
}

static_assert(TN_THREADS_X * TN_VEC == TN_TILE,
              "a tile row is TN_THREADS_X vectors of TN_VEC");
static_assert(TN_BLOCK_Y * TN_ROWS_PER_THREAD == TN_TILE_R,
              "TN_BLOCK_Y rows of threads cover the tile");
static_assert(TN_THREADS_X2 * TN_VEC == TN_TILE_R &&
                  TN_BLOCK_Y2 * TN_ROWS_PER_THREAD == TN_TILE &&
                  TN_THREADS_X2 * TN_BLOCK_Y2 == TN_THREADS,
              "the same threads cover the transposed tile");
static_assert(TN_THREADS == TN_THREADS_X * TN_BLOCK_Y, "threads");
static_assert(TN_ROWS_PER_THREAD % TN_PACK == 0,
              "a thread's rows are read TN_PACK columns at a time");
static_assert(sizeof(elem_t) == TN_ELEM_BYTES, "the element");

/* The fast paths' column reads: a thread's TN_PACK output rows r ..
 * r + TN_PACK - 1 of its TN_VEC elements each (tile rows c .. c + TN_VEC
 * - 1), from the tile whose element (row, col) AT gives: one load of
 * TN_PACK elements a tile row, transposed into v. */
#define READ_COLUMNS(v, AT, c, r)                                            \
  do {                                                                       \
    _Pragma("unroll") for (int k = 0; k < TN_VEC; k++) {                     \
      TN_TRACE_LD(&tile[AT((c) + k, (r))], TN_ELEM_BYTES * TN_PACK, true);   \
      pack_t w =                                                             \
          *reinterpret_cast<const pack_t *>(&tile[AT((c) + k, (r))]);        \
      _Pragma("unroll") for (int q = 0; q < TN_PACK; q++)                    \
        ELEM(v[q], k) = ELEM(w, q);                                          \
    }                                                                        \
  } while (0)

#if TN_TMA
/* The copy engine's path.  One thread loads the tile as TN_BOXR x TN_BOXC
 * boxes through map_in (rows x cols, zeros beyond the matrix) into `tile`
 * under the tensor map's swizzle, completing on an mbarrier; the threads
 * read it column-wise, as the threads' path does, and either store to
 * global memory themselves (predicated at the matrix's edges) or, with
 * TN_TMA_STORE, write the transposed tile row-wise into a second tile of
 * the same layout that one thread stores through map_out (cols x rows;
 * what lies beyond the matrix is clipped).  Both tiles start on 1024
 * bytes, so the swizzle the hardware applies by address is the one
 * tn_tma_offset computes from the tile's start. */
#include "tma_ops.h"

#define TMA_AT(row, col)                                                     \
  tn_tma_offset((row), (col), TN_TILE, TN_BOXR, TN_BOXC, TN_SWIZZLE_B,        \
                TN_SWIZZLE_M, TN_SWIZZLE_S)
#define TMA_BOXES_X (TN_TILE / TN_BOXC)
#define TMA_BOXES_Y (TN_TILE / TN_BOXR)
#define TMA_TILE (TN_TILE * TN_TILE)

static_assert(TN_PAD_ELEMS == 0, "the copy engine writes dense boxes");
static_assert(TN_TILE_R == TN_TILE, "the copy engine's tile is square");
static_assert(TN_TILE % TN_BOXC == 0 && TN_TILE % TN_BOXR == 0,
              "boxes tile the tile");
static_assert((TN_BOXC * TN_ELEM_BYTES) % 16 == 0 &&
                  TN_VEC * TN_ELEM_BYTES <= 16 &&
                  TN_PACK * TN_ELEM_BYTES <= 16,
              "a thread's vector and packed load stay in one 16-byte chunk");
static_assert((TMA_TILE * TN_ELEM_BYTES) % 1024 == 0,
              "the second tile starts on 1024 bytes too");
static_assert(TN_SMEM_ELEMS == TMA_TILE * (1 + TN_TMA_STORE), "the tiles");

/* A box at (c0, c1) of matrix b: the batched families' maps have rank 3. */
__device__ __forceinline__ void tma_load(void *dst, const tn_tensor_map *map,
                                         int c0, int c1, int b,
                                         unsigned long long *bar)
{
#if TN_BATCHED
  tn_tma_load_3d(dst, map, c0, c1, b, bar);
#else
  (void)b;
  tn_tma_load_2d(dst, map, c0, c1, bar);
#endif
}

__device__ __forceinline__ void tma_store(const tn_tensor_map *map,
                                          const void *src, int c0, int c1,
                                          int b)
{
#if TN_BATCHED
  tn_tma_store_3d(map, src, c0, c1, b);
#else
  (void)b;
  tn_tma_store_2d(map, src, c0, c1);
#endif
}

extern "C" __global__ void __launch_bounds__(TN_THREADS)
transpose(const __grid_constant__ tn_tensor_map map_in,
#if TN_TMA_STORE
          const __grid_constant__ tn_tensor_map map_out,
#endif
          const elem_t *__restrict__ in, elem_t *__restrict__ out, int rows,
          int cols)
{
  __shared__ __align__(1024) elem_t tile[TN_SMEM_ELEMS];
  __shared__ __align__(8) unsigned long long bar;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = tx + TN_THREADS_X * ty;
  /* the matrix (0 unbatched: the 2-D family's code as it was) */
  const int b = TN_BATCHED ? (int)(blockIdx.y + gridDim.y * blockIdx.z) : 0;
  const int tiles_r = (rows + TN_TILE - 1) / TN_TILE;
  const int tiles_c = (cols + TN_TILE - 1) / TN_TILE;
  const int per_group = TN_GROUP * tiles_c;
  const int group = blockIdx.x / per_group, in_group = blockIdx.x % per_group;
  const int first = group * TN_GROUP;
  const int height = min(tiles_r - first, TN_GROUP);
  const int row0 = (first + in_group % height) * TN_TILE;
  const int col0 = (in_group / height) * TN_TILE;
  const int c0 = TN_VEC * tx;
  (void)in;
  TN_TRACE_BASE(tile);

  if (tid == 0) {
    /* the model's layout assumes the alignment: never read a wrong one */
    if ((tn_smem_u32(tile) & 1023u) != 0)
      __trap();
    tn_mbar_init(&bar, 1);
    tn_mbar_init_fence();
  }
  __syncthreads();
  if (tid == 0) {
    /* boxes reaching beyond the matrix still deliver all their bytes */
    tn_mbar_expect_tx(&bar, TMA_TILE * TN_ELEM_BYTES);
#pragma unroll
    for (int by = 0; by < TMA_BOXES_Y; by++)
#pragma unroll
      for (int bx = 0; bx < TMA_BOXES_X; bx++)
        tma_load(&tile[(by * TMA_BOXES_X + bx) * TN_BOXR * TN_BOXC], &map_in,
                 col0 + bx * TN_BOXC, row0 + by * TN_BOXR, b, &bar);
  }
  tn_mbar_wait(&bar, 0);

#if TN_TMA_STORE
  /* every read and write lies in the tiles, at the edges too */
#pragma unroll
  for (int j = 0; j < TN_ROWS_PER_THREAD / TN_PACK; j++) {
    const int r = TN_PACK * (ty + j * TN_BLOCK_Y);
    vec_t v[TN_PACK];
    READ_COLUMNS(v, TMA_AT, c0, r);
#pragma unroll
    for (int q = 0; q < TN_PACK; q++) {
      TN_TRACE_ST(&tile[TMA_TILE + TMA_AT(r + q, c0)],
                  TN_ELEM_BYTES * TN_VEC, true);
      *reinterpret_cast<vec_t *>(&tile[TMA_TILE + TMA_AT(r + q, c0)]) = v[q];
    }
  }
#else
  /* The threads store: a full tile of a matrix whose rows are a multiple
   * of TN_VEC with vector stores; elsewhere element by element, each read
   * made only where its store is (the compiler would sink the reads into
   * the predicated stores anyway, which ncu counted: the plan says so). */
  elem_t *dst = out + (size_t)b * rows * cols + (size_t)col0 * rows + row0;
  if (row0 + TN_TILE <= rows && col0 + TN_TILE <= cols &&
      (rows & (TN_VEC - 1)) == 0) {
#pragma unroll
    for (int j = 0; j < TN_ROWS_PER_THREAD / TN_PACK; j++) {
      const int r = TN_PACK * (ty + j * TN_BLOCK_Y);
      vec_t v[TN_PACK];
      READ_COLUMNS(v, TMA_AT, c0, r);
#pragma unroll
      for (int q = 0; q < TN_PACK; q++)
        gstore(reinterpret_cast<vec_t *>(dst + (size_t)(r + q) * rows + c0),
               v[q]);
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
    int r = ty + j * TN_BLOCK_Y;
#pragma unroll
    for (int k = 0; k < TN_VEC; k++) {
      const bool in = col0 + r < cols && row0 + c0 + k < rows;
      TN_TRACE_LD(&tile[TMA_AT(c0 + k, r)], TN_ELEM_BYTES, in);
      if (in)
        gstore(&dst[(size_t)r * rows + c0 + k], tile[TMA_AT(c0 + k, r)]);
    }
  }
#endif
#if TN_TMA_STORE
  tn_tma_store_fence();
  __syncthreads();
  if (tid == 0) {
#pragma unroll
    for (int by = 0; by < TMA_BOXES_Y; by++)
#pragma unroll
      for (int bx = 0; bx < TMA_BOXES_X; bx++)
        tma_store(
            &map_out,
            &tile[TMA_TILE + (by * TMA_BOXES_X + bx) * TN_BOXR * TN_BOXC],
            row0 + bx * TN_BOXC, col0 + by * TN_BOXR, b);
    tn_tma_store_drain();
  }
#endif
}

#else /* the threads' path */

#define TILE_AT(row, col)                                                    \
  tn_smem_offset((row), (col), TN_TILE, TN_PAD_ELEMS, TN_SWIZZLE_B,           \
                 TN_SWIZZLE_M, TN_SWIZZLE_S)

/* What the plan assumes of the defines. */
static_assert(TN_SW == 1 || TN_SW == 2 || TN_SW == 4 || TN_SW == 8 ||
                  TN_SW == 16,
              "store width");
static_assert(TN_VEC % TN_SW == 0, "the store width divides the vector");
static_assert(TN_PAD_ELEMS % TN_SW == 0 && TN_PAD_ELEMS % TN_PACK == 0,
              "the pad keeps the stores and the packed loads aligned");
static_assert(TN_SWIZZLE_B == 0 || ((1 << TN_SWIZZLE_M) >= TN_SW &&
                                    (1 << TN_SWIZZLE_M) >= TN_PACK),
              "the swizzle keeps the stores' and the loads' pieces whole");
static_assert(TN_SMEM_ELEMS == TN_TILE_R * (TN_TILE + TN_PAD_ELEMS),
              "the padded tile");

typedef bits_of<TN_ELEM_BYTES * TN_SW>::type store_t;

/* The vector paths of a matrix whose sizes are multiples of TN_VEC: a
 * thread moves TN_VEC-wide vectors of its rows into the tile with
 * TN_SW-wide shared stores, reads TN_PACK columns of its TN_VEC rows a
 * load and stores TN_PACK output rows of TN_VEC elements.  CHECKED (a
 * tile cut by the matrix's edge): a vector lies wholly inside or wholly
 * outside the matrix, so each moves only where it is inside, and a packed
 * read only where its first column is, each of its rows stored only
 * where that row is. */
template <bool CHECKED>
__device__ __forceinline__ void move_vectors(elem_t *tile,
                                             const elem_t *__restrict__ src,
                                             elem_t *__restrict__ dst,
                                             int rows, int cols, int row0,
                                             int col0, int ty, int c0,
                                             int ty2, int c2)
{
#pragma unroll
  for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
    const int r = ty + j * TN_BLOCK_Y;
    const bool in = !CHECKED || (row0 + r < rows && col0 + c0 < cols);
    vec_t v;
    if (in)
      v = gload(reinterpret_cast<const vec_t *>(src + (size_t)r * cols + c0));
#pragma unroll
    for (int k = 0; k < TN_VEC; k += TN_SW) {
      TN_TRACE_ST(&tile[TILE_AT(r, c0 + k)], TN_ELEM_BYTES * TN_SW, in);
      if (in)
        *reinterpret_cast<store_t *>(&tile[TILE_AT(r, c0 + k)]) =
            *reinterpret_cast<const store_t *>(&ELEM(v, k));
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < TN_ROWS_PER_THREAD / TN_PACK; j++) {
    const int r = TN_PACK * (ty2 + j * TN_BLOCK_Y2);
    const bool in = !CHECKED || (col0 + r < cols && row0 + c2 < rows);
    if (!in) {
#pragma unroll
      for (int k = 0; k < TN_VEC; k++)
        TN_TRACE_LD(&tile[TILE_AT(c2 + k, r)], TN_ELEM_BYTES * TN_PACK,
                    false);
      continue;
    }
    vec_t v[TN_PACK];
    READ_COLUMNS(v, TILE_AT, c2, r);
#pragma unroll
    for (int q = 0; q < TN_PACK; q++)
      if (!CHECKED || col0 + r + q < cols)
        gstore(reinterpret_cast<vec_t *>(dst + (size_t)(r + q) * rows + c2),
               v[q]);
  }
}

extern "C" __global__ void __launch_bounds__(TN_THREADS)
transpose(const elem_t *__restrict__ in, elem_t *__restrict__ out,
          int rows, int cols)
{
  /* dynamic: a 64 KiB tile (int8's 256, fp32's 128) is past the 48 KiB a
   * block may declare statically */
  extern __shared__ __align__(16) elem_t tile[];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tiles_r = (rows + TN_TILE_R - 1) / TN_TILE_R;
  const int tiles_c = (cols + TN_TILE - 1) / TN_TILE;
  const int per_group = TN_GROUP * tiles_c;
  const int group = blockIdx.x / per_group, in_group = blockIdx.x % per_group;
  const int first = group * TN_GROUP;
  const int height = min(tiles_r - first, TN_GROUP);
  const int row0 = (first + in_group % height) * TN_TILE_R;
  const int col0 = (in_group / height) * TN_TILE;
  const int c0 = TN_VEC * tx;
  /* the transposed tile's rows are TN_TILE_R long: a rectangle's
   * threads take them as TN_THREADS_X2 x TN_BLOCK_Y2 (a square's as they
   * are) */
#if TN_TILE_R == TN_TILE
  const int tx2 = tx, ty2 = ty;
#else
  const int tx2 = (tx + TN_THREADS_X * ty) % TN_THREADS_X2;
  const int ty2 = (tx + TN_THREADS_X * ty) / TN_THREADS_X2;
#endif
  const int c2 = TN_VEC * tx2;
  /* the matrix: block (x, y, z) moves a tile of matrix y + gridDim.y * z
   * (unbatched 0: the 2-D family's code as it was) */
  const size_t mat = TN_BATCHED ? (size_t)(blockIdx.y + gridDim.y *
                                           blockIdx.z) * rows * cols
                                : 0;
  const elem_t *src = in + mat + (size_t)row0 * cols + col0;
  elem_t *dst = out + mat + (size_t)col0 * rows + row0;
  TN_TRACE_BASE(tile);

  if (((rows | cols) & (TN_VEC - 1)) == 0) {
    if (row0 + TN_TILE_R <= rows && col0 + TN_TILE <= cols)
      move_vectors<false>(tile, src, dst, rows, cols, row0, col0, ty, c0,
                          ty2, c2);
    else
      move_vectors<true>(tile, src, dst, rows, cols, row0, col0, ty, c0,
                         ty2, c2);
    return;
  }
  /* a matrix of no vectors: element by element, its rows' loop kept
   * rolled (unrolled, 256 elements a thread took NVRTC 20 s) */
#pragma unroll 1
  for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
    int r = ty + j * TN_BLOCK_Y;
#pragma unroll
    for (int k = 0; k < TN_VEC; k++) {
      const bool in = row0 + r < rows && col0 + c0 + k < cols;
      TN_TRACE_ST(&tile[TILE_AT(r, c0 + k)], TN_ELEM_BYTES, in);
      if (in)
        tile[TILE_AT(r, c0 + k)] = gload(&src[(size_t)r * cols + c0 + k]);
    }
  }
  __syncthreads();
#pragma unroll 1
  for (int j = 0; j < TN_ROWS_PER_THREAD; j++) {
    int r = ty2 + j * TN_BLOCK_Y2;
#pragma unroll
    for (int k = 0; k < TN_VEC; k++) {
      const bool in = col0 + r < cols && row0 + c2 + k < rows;
      TN_TRACE_LD(&tile[TILE_AT(c2 + k, r)], TN_ELEM_BYTES, in);
      if (in)
        gstore(&dst[(size_t)r * rows + c2 + k], tile[TILE_AT(c2 + k, r)]);
    }
  }
}
#endif

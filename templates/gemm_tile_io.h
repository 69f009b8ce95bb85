/* gemm_tile_io.h -- the register-tiled SIMT GEMM's operand tiles between
 * global and shared memory (templates/gemm.cu, kernel 1): the threads'
 * copies (16-byte loads held in registers, or cp.async, stored as they lie
 * or transposed) and the copy engine's box a tile for the TMA ring.
 * Included by gemm.cu after its G_* macros, G_ASYNC and G_TMA (with
 * tma_ops.h), whose static_asserts state what these assume. */
#ifndef TN_GEMM_TILE_IO_H
#define TN_GEMM_TILE_IO_H

__device__ __forceinline__ void cp_async16(float *dst, const float *src,
                                           bool valid)
{
#if G_ASYNC
  unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  int bytes = valid ? 16 : 0; /* 0: the 16 bytes are zero-filled */
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d),
               "l"(src), "r"(bytes)
               : "memory");
#else
  (void)dst;
  (void)src;
  (void)valid;
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if G_ASYNC
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void cp_async_wait_all()
{
#if G_ASYNC
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

__device__ __forceinline__ float4 ldg4(const float *p)
{
  return *reinterpret_cast<const float4 *>(p);
}

/* One operand's tile in shared memory: MN x BK elements of op(X), MN = BM
 * for A and BN for B.  KCONTIG: X is contiguous along k in global memory
 * (A not transposed, B transposed).  KMAJOR: stored as Xs[k][mn] (rows of
 * MN), else Xs[mn][k] (rows of BK).
 *
 * Threads move the tile in slots of 4 elements adjacent in global memory,
 * slot s = it * THREADS + tid at (o, c) = (s / (CL / 4), 4 * (s % (CL / 4)))
 * of the tile's global view (o along the strided dimension, c along the
 * contiguous one), so a warp reads whole runs of a row.  COPY (the
 * contiguous dimension is also the shared row): one 16-byte store at
 * Xs[o][c]; otherwise four 4-byte stores Xs[c + e][o].
 *
 * Each slot keeps a pointer to its first element in the current k-tile and
 * klim: the slot is inside op(X) while k0 < klim (klim = K - its k, or -1
 * when its mn is outside), so a k-tile costs a compare and an add. */
template <int WHICH> struct operand_defs;
template <> struct operand_defs<0> {
  enum {
    MN = G_BM, KCONTIG = TN_A_KCONTIG, KMAJOR = TN_A_KMAJOR, PAD = TN_PAD_A,
    SB = TN_SWIZZLE_A_B, SM = TN_SWIZZLE_A_M, SS = TN_SWIZZLE_A_S,
    CL = TN_A_CL, SLOTS = TN_A_SLOTS, ITERS = TN_A_ITERS, ROWS = TN_A_ROWS,
    WIDTH = TN_A_WIDTH, ELEMS = TN_A_ELEMS, VEC = TN_A_VEC, COPY = TN_A_COPY
  };
};
template <> struct operand_defs<1> {
  enum {
    MN = G_BN, KCONTIG = TN_B_KCONTIG, KMAJOR = TN_B_KMAJOR, PAD = TN_PAD_B,
    SB = TN_SWIZZLE_B_B, SM = TN_SWIZZLE_B_M, SS = TN_SWIZZLE_B_S,
    CL = TN_B_CL, SLOTS = TN_B_SLOTS, ITERS = TN_B_ITERS, ROWS = TN_B_ROWS,
    WIDTH = TN_B_WIDTH, ELEMS = TN_B_ELEMS, VEC = TN_B_VEC, COPY = TN_B_COPY
  };
};

/* WHICH: 0 for A, 1 for B. */
template <int WHICH> struct tile_io {
  typedef operand_defs<WHICH> D;
  enum {
    MN = D::MN, KCONTIG = D::KCONTIG, KMAJOR = D::KMAJOR, PAD = D::PAD,
    SB = D::SB, SM = D::SM, SS = D::SS, CL = D::CL, CL4 = D::CL / 4,
    SLOTS = D::SLOTS, ITERS = D::ITERS, WIDTH = D::WIDTH, ROWS = D::ROWS,
    ELEMS = D::ELEMS, VEC = D::VEC, COPY = D::COPY
  };
  static_assert(COPY == (KCONTIG != KMAJOR), "copy: rows run the same way");
  static_assert(CL == (KCONTIG ? G_BK : MN) && CL % 4 == 0,
                "slots run along the contiguous dimension");
  static_assert(SLOTS * 4 == MN * G_BK && ITERS * G_THREADS >= SLOTS &&
                    (ITERS - 1) * G_THREADS < SLOTS,
                "the slots cover the tile in ITERS rounds");
  static_assert(ROWS == (KMAJOR ? G_BK : MN) &&
                    WIDTH == (KMAJOR ? MN : G_BK) &&
                    ELEMS == (G_TMA ? (ROWS * WIDTH + 255) / 256 * 256
                                    : ROWS * (WIDTH + PAD)),
                "the shared tile (a TMA ring's buffers on 1024 bytes)");
  static_assert(!G_TMA || (COPY && PAD == 0 && WIDTH <= 256),
                "the copy engine writes the tile as it lies, one box");
  static_assert(VEC == 1 || VEC == 2 || VEC == 4, "access width");
  static_assert(VEC == (KMAJOR && !COPY ? (WHICH ? G_VN : G_VM) : 4),
                "the widest access: VM (VN) floats k-major, else float4");
  static_assert(PAD % VEC == 0, "the pad keeps the accesses aligned");
  static_assert(SB == 0 || (1 << SM) >= VEC,
                "the swizzle keeps the accesses whole");

  const float *ptr[ITERS];
  int klim[ITERS];

  static __device__ __forceinline__ int at(int row, int col)
  {
    return tn_smem_offset(row, col, WIDTH, PAD, SB, SM, SS);
  }

  /* SPLIT: at() of an unpadded swizzled tile separates into a part known
   * when compiled and a part of the lane's own.  The swizzle is linear
   * under xor, so for rows r0 (the warp's, whose bits lie above every bit
   * the swizzle reads), rc (the unrolled loop's) and rl (the lane's) on
   * disjoint bits, at(r0 + rc + rl, col) = (r0 + rc) * WIDTH + at(rl, col
   * ^ h(rc)), h(rc) the bits the swizzle xors into rc's row: the lane
   * keeps WIDTH / 4 offsets in registers instead of rebuilding the xor
   * for every load (4 to 5 integer instructions each). */
  enum {
    SPLIT = SB > 0 && PAD == 0 && (WIDTH & (WIDTH - 1)) == 0 && SB <= SS &&
            (1 << (SM + SB)) <= WIDTH &&
            ((WHICH ? G_WN : G_WM) * WIDTH) % (1 << (SS + SM + SB)) == 0
  };

  /* at(r0 + rc + rl, col), r0 a multiple of the warp's rows, rc and rl
   * on disjoint bits (the callers' runs and lanes) */
  static __device__ __forceinline__ int at_split(int r0, int rc, int rl,
                                                 int col)
  {
    if constexpr (SPLIT) {
      const int h = tn_swizzle_offset(rc * WIDTH, SB, SM, SS) ^ (rc * WIDTH);
      return (r0 + rc) * WIDTH + at(rl, col ^ h);
    } else {
      return at(r0 + rc + rl, col);
    }
  }

  static __device__ __forceinline__ int slot(int it)
  {
    return it * G_THREADS + (int)threadIdx.x;
  }

  static __device__ __forceinline__ bool live(int s)
  {
    return SLOTS % G_THREADS == 0 || s < SLOTS;
  }

  /* X: op(X) is mn_total x K, stored with rows of ld elements; the block's
   * tile starts at mn0, k-tile 0. */
  __device__ __forceinline__ void init(const float *X, int mn_total, int K,
                                       int ld, int mn0)
  {
#pragma unroll
    for (int it = 0; it < ITERS; it++) {
      const int s = slot(it), o = s / CL4, c = 4 * (s % CL4);
      const int mn = mn0 + (KCONTIG ? o : c), k = KCONTIG ? c : o;
      ptr[it] = X + (KCONTIG ? (size_t)mn * ld + k : (size_t)k * ld + mn);
      klim[it] = live(s) && mn < mn_total ? K - k : -1;
    }
  }

  /* On to the next k-tile. */
  __device__ __forceinline__ void advance(int ld)
  {
#pragma unroll
    for (int it = 0; it < ITERS; it++)
      ptr[it] += KCONTIG ? (size_t)G_BK : (size_t)G_BK * ld;
  }

  /* The k-tile at k0 into registers.  vec: ld % 4 == 0 and X 16-byte
   * aligned, so a slot is all inside or all outside op(X); otherwise each
   * element is checked (mn0, mn_total: as for init). */
  __device__ __forceinline__ void load(int k0, bool vec, int mn_total,
                                       int mn0, float4 *st) const
  {
#pragma unroll
    for (int it = 0; it < ITERS; it++) {
      const int s = slot(it);
      if (!live(s))
        continue;
      const float *p = ptr[it];
      if (vec) {
        st[it] = k0 < klim[it] ? ldg4(p) : make_float4(0.f, 0.f, 0.f, 0.f);
      } else if (KCONTIG) {
        /* the four run along k */
        st[it].x = k0 + 0 < klim[it] ? p[0] : 0.0f;
        st[it].y = k0 + 1 < klim[it] ? p[1] : 0.0f;
        st[it].z = k0 + 2 < klim[it] ? p[2] : 0.0f;
        st[it].w = k0 + 3 < klim[it] ? p[3] : 0.0f;
      } else {
        /* the four run along mn */
        const bool in = k0 < klim[it];
        const int room = mn_total - (mn0 + 4 * (s % CL4));
        st[it].x = in && 0 < room ? p[0] : 0.0f;
        st[it].y = in && 1 < room ? p[1] : 0.0f;
        st[it].z = in && 2 < room ? p[2] : 0.0f;
        st[it].w = in && 3 < room ? p[3] : 0.0f;
      }
    }
  }

  /* The instrumented build's hooks of store() and load_async(), in a loop
   * of their own so that the code without them stays as it was. */
  static __device__ __forceinline__ void trace_stores(const float *Xs,
                                                     bool async)
  {
#if TN_TRACE_ON
#pragma unroll
    for (int it = 0; it < ITERS; it++) {
      const int s = slot(it), c = 4 * (s % CL4);
      const int o = (s / CL4) & (COPY ? ROWS - 1 : WIDTH - 1);
      if (async) {
        TN_TRACE_CP_ASYNC(Xs + at(o, c), 16, live(s));
      } else if (COPY) {
        TN_TRACE_ST(Xs + at(o, c), 16, live(s));
      } else {
        for (int e = 0; e < 4; e++)
          TN_TRACE_ST(Xs + at(c + e, o), 4, live(s));
      }
    }
#else
    (void)Xs;
    (void)async;
#endif
  }

  static __device__ __forceinline__ void store(float *Xs, const float4 *st)
  {
    trace_stores(Xs, false);
#pragma unroll
    for (int it = 0; it < ITERS; it++) {
      const int s = slot(it);
      if (!live(s))
        continue;
      /* s < SLOTS, so o < ROWS (COPY) or o < WIDTH: the mask changes
       * nothing but lets the compiler fold the offsets */
      const int o = (s / CL4) & (COPY ? ROWS - 1 : WIDTH - 1);
      const int c = 4 * (s % CL4);
      if constexpr (COPY) {
        *reinterpret_cast<float4 *>(Xs + at(o, c)) = st[it];
      } else {
        Xs[at(c + 0, o)] = st[it].x;
        Xs[at(c + 1, o)] = st[it].y;
        Xs[at(c + 2, o)] = st[it].z;
        Xs[at(c + 3, o)] = st[it].w;
      }
    }
  }

  /* The COPY case straight to shared memory (vec only); X: any valid
   * address, the source of the zero-filled slots. */
  __device__ __forceinline__ void load_async(float *Xs, int k0,
                                             const float *X) const
  {
    trace_stores(Xs, true);
#pragma unroll
    for (int it = 0; it < ITERS; it++) {
      const int s = slot(it);
      if (!live(s))
        continue;
      const int o = (s / CL4) & (ROWS - 1), c = 4 * (s % CL4);
      const bool in = k0 < klim[it];
      cp_async16(Xs + at(o, c), in ? ptr[it] : X, in);
    }
  }

#if G_TMA
  /* Pipeline 3, by one thread: the k-tile at k0 of the block's tile at
   * mn0, one box, completing on bar (the copy engine reads zeros outside
   * the matrix). */
  static __device__ __forceinline__ void fill(float *Xs,
                                              const tn_tensor_map *map,
                                              int k0, int mn0,
                                              unsigned long long *bar)
  {
    if constexpr (KCONTIG)
      tn_tma_load_2d(Xs, map, k0, mn0, bar);
    else
      tn_tma_load_2d(Xs, map, mn0, k0, bar);
  }
#endif
};

typedef tile_io<0> tile_a;
typedef tile_io<1> tile_b;

#endif

/* smem_layout.h -- shared-memory addressing of tiles, written once.
 *
 * Included by the CUDA templates (compiled with NVRTC) and by the tuner's
 * C model, so the layout the model prices is the layout the kernel uses.
 * Keep it C and CUDA at once: no C++ features, no libc.
 *
 * A tile is `width` elements wide (a power of two), stored row-major with
 * `pad` extra elements at the end of every row.  An optional swizzle of the
 * CuTe form Swizzle<B, M, S> permutes the unpadded element offset first:
 *
 *     off ^= (off >> S) & (((1 << B) - 1) << M)
 *
 * i.e. the B bits above bit M+S are xor-ed into the B bits above bit M.
 * B = 0 means no swizzle.  The classic transpose swizzle "column ^= row"
 * of a W-wide tile is Swizzle<log2(min(W, 32)), 0, log2(W)>; the Hopper
 * 32/64/128-byte swizzles of a 4-byte-element tile are Swizzle<1|2|3, 2, 3>
 * (16-byte chunks, xor-ed with the row within 8 rows of 128 bytes).
 */
#ifndef TN_SMEM_LAYOUT_H
#define TN_SMEM_LAYOUT_H

#if defined(__CUDACC__)
#define TN_LAYOUT_FN static __host__ __device__ __forceinline__
#else
#define TN_LAYOUT_FN static inline
#endif

/* Applies Swizzle<b, m, s> to an element offset. */
TN_LAYOUT_FN int tn_swizzle_offset(int off, int b, int m, int s)
{
  return b > 0 ? off ^ ((off >> s) & (((1 << b) - 1) << m)) : off;
}

/* Element offset of (row, col) in a tile of `width` columns (a power of
 * two), `pad` padding elements per row, swizzled by Swizzle<b, m, s>. */
TN_LAYOUT_FN int tn_smem_offset(int row, int col, int width, int pad,
                                int b, int m, int s)
{
  int off = tn_swizzle_offset(row * width + col, b, m, s);
  return (off / width) * (width + pad) + off % width;
}

/* Elements a tile of `rows` x `width` occupies with its padding. */
TN_LAYOUT_FN int tn_smem_elems(int rows, int width, int pad)
{
  return rows * (width + pad);
}

/* Element offset of (row, col) in a tile of `width` columns that the copy
 * engine (TMA) fills box by box: boxes of box_rows x box_cols elements
 * (both dividing the tile), row of boxes after row of boxes, each box's
 * rows dense; the whole swizzled by Swizzle<b, m, s> on the element offset
 * from the tile's start.  The hardware's SWIZZLE_32B/64B/128B xor the
 * 16-byte chunk index (shared address bits 4..) with bits 7.. of the
 * address itself (CuTe Swizzle<1|2|3, 4, 3> on bytes; <b, 4 - log2(elem
 * bytes), 3> on elements, what tn_swizzle_resolve gives), so with the
 * tile aligned to 1024 bytes the offset from its start is what they see. */
TN_LAYOUT_FN int tn_tma_offset(int row, int col, int width, int box_rows,
                               int box_cols, int b, int m, int s)
{
  int box = (row / box_rows) * (width / box_cols) + col / box_cols;
  int off = box * box_rows * box_cols + (row % box_rows) * box_cols +
            col % box_cols;
  return tn_swizzle_offset(off, b, m, s);
}

#endif

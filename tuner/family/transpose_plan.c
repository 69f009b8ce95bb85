/* transpose_plan.c -- the transpose family's shape of a point and its
 * shared-memory access plan (transpose_shape.h).
 *
 * The plan lists exactly the shared-memory instructions of
 * templates/transpose.cu, element width by element width (the order of
 * tiles does not change them).  With tma = 1 the copy engine's own writes
 * and reads of shared memory are not warp accesses: the plan then lists
 * the threads' accesses only. */
#include <string.h>

#include "family/transpose_shape.h"
#include "../../templates/smem_layout.h"

static const tn_elem_type elem_types[TP_N_ELEMS] = {
    [TP_ELEM_FP32] = TN_ELEM_F32, [TP_ELEM_FP16] = TN_ELEM_F16,
    [TP_ELEM_BF16] = TN_ELEM_BF16, [TP_ELEM_FP8] = TN_ELEM_U8,
    [TP_ELEM_INT8] = TN_ELEM_I8,  [TP_ELEM_FP64] = TN_ELEM_F64,
};

tn_elem_type tn_transpose_elem(const tn_problem *prob)
{
  double v = prob->opt[TP_OPT_ELEM];
  int k = v >= 0 && v < TP_N_ELEMS ? (int)v : 0;
  return elem_types[k];
}

int tn_transpose_elem_bytes(const tn_problem *prob)
{
  return tn_elem_bytes(tn_transpose_elem(prob));
}

int tn_transpose_batch_grid(long long batch, unsigned *y, unsigned *z)
{
  long long q;
  /* the smallest z (so the largest y) whose quotient fits */
  for (q = (batch + 65534) / 65535; q <= 65535 && q <= batch; q++)
    if (batch % q == 0 && batch / q <= 65535) {
      *y = (unsigned)(batch / q);
      *z = (unsigned)q;
      return 0;
    }
  return -1;
}

int tn_transpose_pad_elems(const tn_params *p, int eb)
{
  int pad = (int)p->v[TP_PAD].i;
  return p->v[TP_PAD_UNIT].i ? pad * 4 / eb : pad;
}

/* Width in elements of the template's shared stores on its fast path
 * (TN_SW): the widest piece of a thread's vec elements that padding and
 * swizzle keep contiguous and aligned. */
static int store_width(const tn_params *p, int vec, int pad)
{
  const tn_swizzle *sw = &p->v[TP_SWIZZLE].sw;
  int w;
  for (w = vec; w > 1; w /= 2)
    if (pad % w == 0 && (sw->b == 0 || (1 << sw->m) >= w))
      return w;
  return 1;
}

void tn_transpose_shape_of(const tn_params *p, const tn_problem *prob,
                           tn_transpose_shape *s)
{
  int span = tn_swizzle_tma_span(&p->v[TP_SWIZZLE].sw);
  s->eb = tn_transpose_elem_bytes(prob);
  s->tile = (int)p->v[TP_TILE].i;
  s->tile_rows = p->v[TP_TILE_ROWS].i ? (int)p->v[TP_TILE_ROWS].i : s->tile;
  s->rpt = (int)p->v[TP_ROWS].i;
  s->vec = (int)p->v[TP_VEC].i;
  s->pad = tn_transpose_pad_elems(p, s->eb);
  s->pack = (int)p->v[TP_PACK].i;
  s->nx = s->tile / s->vec;
  s->by = s->tile_rows / s->rpt;
  s->threads = s->nx * s->by;
  s->nx2 = s->tile_rows / s->vec;
  s->by2 = s->tile / s->rpt;
  s->sw = store_width(p, s->vec, s->pad);
  s->tma = (int)p->v[TP_TMA].i;
  s->tma_store = (int)p->v[TP_TMA_STORE].i;
  /* the box, its zeros resolved: the tile's rows, and the swizzle's span
   * (none: the tile's columns) */
  s->box_rows = p->v[TP_BOX_ROWS].i ? (int)p->v[TP_BOX_ROWS].i : s->tile;
  s->box_cols = p->v[TP_BOX_COLS].i ? (int)p->v[TP_BOX_COLS].i
                : span > 0         ? span / s->eb
                                   : s->tile;
  /* the copy engine's path: the tile, and the transposed one it stores */
  s->smem_elems = s->tma ? s->tile * s->tile * (1 + s->tma_store)
                         : tn_smem_elems(s->tile_rows, s->tile, s->pad);
}

static int offset(const tn_params *p, const tn_transpose_shape *s, int row,
                  int col)
{
  const tn_swizzle *sw = &p->v[TP_SWIZZLE].sw;
  return tn_smem_offset(row, col, s->tile, s->pad, sw->b, sw->m, sw->s);
}

static int tma_offset(const tn_params *p, const tn_transpose_shape *s,
                      int row, int col)
{
  const tn_swizzle *sw = &p->v[TP_SWIZZLE].sw;
  return tn_tma_offset(row, col, s->tile, s->box_rows, s->box_cols, sw->b,
                       sw->m, sw->s);
}

/* The layout of the tile the threads read: the padded one, or the copy
 * engine's boxes. */
static int tile_offset(const tn_params *p, const tn_transpose_shape *s,
                       int row, int col)
{
  return s->tma ? tma_offset(p, s, row, col) : offset(p, s, row, col);
}

/* The reads of the tile's columns by warp w in round j: out[col0 + r +
 * q][row0 + c0 + k] = tile[c0 + k][r + q] for q < pack, one load of pack
 * elements per k (pack 1: element by element), the threads numbered
 * along the transposed tile's rows (nx2 x by2).  fast: every lane reads
 * (the template's unchecked paths); else a lane reads only where its
 * store lies in the valid_rows x valid_cols part of the tile. */
static void column_reads(const tn_params *p, const tn_transpose_shape *s,
                         int w, int j, int pack, int fast, int valid_rows,
                         int valid_cols, long long times,
                         tn_access_sink *sink)
{
  int k, lane;
  for (k = 0; k < s->vec; k++) {
    tn_warp_access ld;
    tn_warp_access_init(&ld, TN_OP_LD, s->eb * pack);
    for (lane = 0; lane < 32 && w * 32 + lane < s->threads; lane++) {
      int lin = w * 32 + lane, c = s->vec * (lin % s->nx2) + k;
      int r = pack * (lin / s->nx2 + j * s->by2);
      ld.addr[lane] = (unsigned)s->eb * (unsigned)tile_offset(p, s, c, r);
      if (fast || (r < valid_cols && c < valid_rows))
        ld.active |= 1u << lane;
    }
    if (ld.active)
      tn_sink_access(sink, &ld, times);
  }
}

/* The threads' accesses of one block of the copy engine's path whose tile
 * has valid_rows x valid_cols elements inside the matrix, executed by
 * `times` blocks.  A warp reads columns of the tile (tile[c0 + k][r]),
 * `pack` of them a load on the fast path.  Storing by TMA, every read lies
 * in the tile (zeros beyond the matrix), always on the fast path, and the
 * warp then writes the vec elements of each of its pack rows as one
 * access into the transposed tile, a row of it; the threads storing, the
 * fast path is a full tile of a matrix whose rows are a multiple of vec,
 * elsewhere a lane reads only where it stores, element by element. */
static void plan_tma(const tn_params *p, const tn_transpose_shape *s,
                     int valid_rows, int valid_cols, int fast,
                     long long times, tn_access_sink *sink)
{
  int pack = fast || s->tma_store ? s->pack : 1, w, j, q, lane;

  for (w = 0; w * 32 < s->threads; w++) {
    for (j = 0; j < s->rpt / pack; j++) {
      column_reads(p, s, w, j, pack, fast || s->tma_store, valid_rows,
                   valid_cols, times, sink);
      if (!s->tma_store)
        continue;
      for (q = 0; q < pack; q++) {
        tn_warp_access st;
        tn_warp_access_init(&st, TN_OP_ST, s->eb * s->vec);
        for (lane = 0; lane < 32 && w * 32 + lane < s->threads; lane++) {
          int lin = w * 32 + lane, c = s->vec * (lin % s->nx);
          int r = pack * (lin / s->nx + j * s->by) + q;
          st.addr[lane] = (unsigned)s->eb *
                          (unsigned)(s->tile * s->tile +
                                     tma_offset(p, s, r, c));
          st.active |= 1u << lane;
        }
        tn_sink_access(sink, &st, times);
      }
    }
  }
}

/* The accesses of one block of the threads' path whose tile has
 * valid_rows x valid_cols elements inside the matrix, executed by `times`
 * blocks; vectors: the vector paths (a matrix whose sizes are multiples
 * of vec), with stores sw elements wide and column reads pack elements
 * wide, else element by element.  Either way a lane accesses only what
 * lies inside the matrix: on the vector paths a vector is wholly inside
 * or outside, and a packed read goes where its first column is inside. */
static void plan_block(const tn_params *p, const tn_transpose_shape *s,
                       int valid_rows, int valid_cols, int vectors,
                       long long times, tn_access_sink *sink)
{
  int sw = vectors ? s->sw : 1, pack = vectors ? s->pack : 1, w, j, k, lane;

  for (w = 0; w * 32 < s->threads; w++) {
    /* tile[r][c0 + k .. + sw - 1] = in[row0 + r][col0 + c0 + k ..] */
    for (j = 0; j < s->rpt; j++) {
      for (k = 0; k < s->vec; k += sw) {
        tn_warp_access st;
        tn_warp_access_init(&st, TN_OP_ST, s->eb * sw);
        for (lane = 0; lane < 32 && w * 32 + lane < s->threads; lane++) {
          int lin = w * 32 + lane, c = s->vec * (lin % s->nx) + k;
          int r = lin / s->nx + j * s->by;
          st.addr[lane] = (unsigned)s->eb * (unsigned)offset(p, s, r, c);
          if (r < valid_rows && c < valid_cols)
            st.active |= 1u << lane;
        }
        if (st.active)
          tn_sink_access(sink, &st, times);
      }
    }
    for (j = 0; j < s->rpt / pack; j++)
      column_reads(p, s, w, j, pack, 0, valid_rows, valid_cols, times,
                   sink);
  }
}

void tn_transpose_plan(const tn_family *fam, const tn_params *p,
                       const tn_problem *prob, tn_access_sink *sink)
{
  tn_transpose_shape s;
  tn_transpose_dims d;
  long long rows, cols, full_r, full_c, b;
  int rem_r, rem_c, aligned;

  (void)fam;
  tn_transpose_shape_of(p, prob, &s);
  tn_transpose_dims_of(prob, &d);
  rows = d.rows;
  cols = d.cols;
  b = d.batch; /* every matrix's blocks are those of one */
  full_r = rows / s.tile_rows;
  full_c = cols / s.tile;
  rem_r = (int)(rows % s.tile_rows);
  rem_c = (int)(cols % s.tile);
  aligned = rows % s.vec == 0 && cols % s.vec == 0;

  if (s.tma && s.tma_store) {
    plan_tma(p, &s, s.tile, s.tile, 1,
             b * (full_r + (rem_r != 0)) * (full_c + (rem_c != 0)), sink);
    return;
  }
  if (s.tma) {
    /* the threads store: full tiles with vector stores where the rows
     * are a multiple of vec */
    plan_tma(p, &s, s.tile, s.tile, rows % s.vec == 0, b * full_r * full_c,
             sink);
    if (rem_c)
      plan_tma(p, &s, s.tile, rem_c, 0, b * full_r, sink);
    if (rem_r)
      plan_tma(p, &s, rem_r, s.tile, 0, b * full_c, sink);
    if (rem_r && rem_c)
      plan_tma(p, &s, rem_r, rem_c, 0, b, sink);
    return;
  }

  /* Interior blocks, the right edge, the bottom edge and the corner: all
   * of them vectors where the sizes are multiples of vec. */
  plan_block(p, &s, s.tile_rows, s.tile, aligned, b * full_r * full_c,
             sink);
  if (rem_c)
    plan_block(p, &s, s.tile_rows, rem_c, aligned, b * full_r, sink);
  if (rem_r)
    plan_block(p, &s, rem_r, s.tile, aligned, b * full_c, sink);
  if (rem_r && rem_c)
    plan_block(p, &s, rem_r, rem_c, aligned, b, sink);
}

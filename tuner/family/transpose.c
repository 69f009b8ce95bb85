/* transpose.c -- the transpose family: out = in^T for row-major fp32.
 *
 * Mirrors templates/transpose.cu: a block of tile x (tile / rows_per_thread)
 * threads moves one tile x tile tile through shared memory; `group` orders
 * the tiles among blocks.  The access plan below lists exactly the
 * shared-memory instructions of that template (the order of tiles does not
 * change them).  With tma = 1 the copy engine (sm_90+) loads the tile in
 * boxes under a tensor map's swizzle, and stores it with tma_store = 1:
 * the plan then lists the threads' accesses only (the copy engine's own
 * writes and reads of shared memory are not warp accesses). */
#include <stdio.h>
#include <string.h>

#include "family/family.h"
#include "family/transpose_check.h"
#include "../../templates/smem_layout.h"

enum {
  P_TILE,
  P_ROWS,
  P_VEC,
  P_PAD,
  P_SWIZZLE,
  P_GROUP,
  P_TMA,
  P_TMA_STORE,
  P_BOX_ROWS,
  P_BOX_COLS,
  N_PARAMS
};

static const tn_param_desc params[N_PARAMS] = {
    {"tile", TN_PARAM_INT, 0, 8, 64, 32,
     "tile edge in elements, a power of two", 0},
    {"rows_per_thread", TN_PARAM_INT, 0, 1, 64, 4,
     "tile rows each thread moves; divides tile", 0},
    {"vec", TN_PARAM_INT, 0, 1, 4, 1,
     "elements each thread moves per row: 1, 2 or 4 (global access width)", 0},
    {"pad", TN_PARAM_INT, 1, 0, 32, 0,
     "padding elements at the end of each tile row", 0},
    {"swizzle", TN_PARAM_SWIZZLE, 1, 0, 0, 0,
     "swizzle of the tile: none, xor, sw32, sw64, sw128, cute(B,M,S)", 0},
    {"group", TN_PARAM_INT, 0, 1, 64, 1,
     "tile rows per group in the order blocks take tiles (1: row by row)", 0},
    {"tma", TN_PARAM_INT, 0, 0, 1, 0,
     "1: the copy engine (TMA, sm_90+) loads the tile, 0: the threads",
     1},
    {"tma_store", TN_PARAM_INT, 0, 0, 1, 0,
     "with tma = 1: 1 the copy engine stores the tile, 0 the threads", 1},
    {"box_rows", TN_PARAM_INT, 1, 0, 256, 0,
     "with tma = 1: rows of a copy engine box (0: the tile)", 1},
    {"box_cols", TN_PARAM_INT, 1, 0, 256, 0,
     "with tma = 1: columns of a box (0: the swizzle's span, else the "
     "tile)",
     1},
};

/* Bytes of the copy engine's swizzle for the swizzle parameter (0: none),
 * or -1 for one it does not have. */
static int tma_span(const tn_swizzle *sw)
{
  switch (sw->kind) {
  case TN_SWZ_NONE:
    return 0;
  case TN_SWZ_SW32:
    return 32;
  case TN_SWZ_SW64:
    return 64;
  case TN_SWZ_SW128:
    return 128;
  default:
    return -1;
  }
}

/* The box of the copy engine's path, its zeros resolved. */
static void tma_box(const tn_params *p, int *box_rows, int *box_cols)
{
  int tile = (int)p->v[P_TILE].i, span = tma_span(&p->v[P_SWIZZLE].sw);
  *box_rows = p->v[P_BOX_ROWS].i ? (int)p->v[P_BOX_ROWS].i : tile;
  *box_cols = p->v[P_BOX_COLS].i ? (int)p->v[P_BOX_COLS].i
              : span > 0         ? span / 4
                                 : tile;
}

/* The tensor maps of the copy engine's path: the input (cols inner, rows
 * outer) and, storing by TMA, the output (rows inner, cols outer), both in
 * boxes of box_rows x box_cols under the swizzle. */
static int tensor_maps(const tn_family *fam, const tn_params *p,
                       const tn_problem *prob, tn_tmap_desc *out)
{
  unsigned long long rows = (unsigned long long)prob->size.dims[0];
  unsigned long long cols = (unsigned long long)prob->size.dims[1];
  int br, bc, span = tma_span(&p->v[P_SWIZZLE].sw), i;

  if (!p->v[P_TMA].i)
    return 0;
  tma_box(p, &br, &bc);
  for (i = 0; i < 1 + (int)p->v[P_TMA_STORE].i; i++) {
    tn_tmap_desc *d = &out[i];
    memset(d, 0, sizeof(*d));
    d->buffer = i; /* BUF_IN, BUF_OUT */
    d->elem = TN_ELEM_F32;
    d->rank = 2;
    d->dims[0] = i == 0 ? cols : rows;
    d->dims[1] = i == 0 ? rows : cols;
    d->strides[0] = d->dims[0] * 4;
    d->box[0] = (unsigned)bc;
    d->box[1] = (unsigned)br;
    d->swizzle = span < 0 ? 0 : span;
    d->l2_promotion = 128;
  }
  return i;
}

/* The copy engine's path's rules, each failing one with its reason. */
static int prepare_tma(const tn_family *fam, tn_params *p,
                       const tn_problem *prob, char *why, size_t n)
{
  tn_tmap_desc maps[TN_MAX_TMAPS];
  tn_swizzle *sw = &p->v[P_SWIZZLE].sw;
  int tile = (int)p->v[P_TILE].i, span = tma_span(sw), br, bc, nm, i;
  long long box_bytes, period;
  char name[64];

  if (span < 0) {
    snprintf(why, n, "the copy engine swizzles as none, sw32, sw64 or "
                     "sw128, not %s", tn_swizzle_name(sw, name, sizeof(name)));
    return 1;
  }
  if (p->v[P_PAD].i != 0) {
    snprintf(why, n, "pad %lld: the copy engine writes dense boxes (pad 0 "
                     "with tma = 1)", p->v[P_PAD].i);
    return 1;
  }
  if (tile < 16) {
    snprintf(why, n, "tile %d: the copy engine's tiles start on 1024 bytes, "
                     "a tile of at least 16 x 16 keeps the second there",
             tile);
    return 1;
  }
  tma_box(p, &br, &bc);
  if (tile % br != 0 || tile % bc != 0) {
    snprintf(why, n, "a box of %d x %d does not divide the %dx%d tile", br,
             bc, tile, tile);
    return 1;
  }
  if (span > 0 && bc * 4 != span) {
    /* the driver takes narrower boxes; their layout is not modelled */
    snprintf(why, n, "a %d-byte swizzle needs boxes %d elements wide (its "
                     "span), not %d", span, span / 4, bc);
    return 1;
  }
  box_bytes = 4LL * br * bc;
  period = span > 0 ? 8LL * span : 128;
  if (box_bytes % period != 0) {
    snprintf(why, n, "a box of %lld bytes: each box must start on %lld "
                     "bytes (%s)", box_bytes, period,
             span > 0 ? "the swizzle's period, 8 rows of its span"
                      : "the copy engine's shared-memory alignment");
    return 1;
  }
  if (tn_swizzle_resolve(sw, bc, 4, why, n) != 0)
    return 1;
  memset(maps, 0, sizeof(maps));
  nm = tensor_maps(fam, p, prob, maps);
  for (i = 0; i < nm; i++)
    if (tn_tmap_check(&maps[i], why, n) != 0) {
      size_t used = strlen(why);
      snprintf(why + used, n - used, " (%s: %lld x %lld)",
               i == 0 ? "the input" : "the output",
               prob->size.dims[i == 0 ? 0 : 1],
               prob->size.dims[i == 0 ? 1 : 0]);
      return 1;
    }
  return 0;
}

static int prepare(const tn_family *fam, tn_params *p, const tn_problem *prob,
                   char *why, size_t n)
{
  long long tile = p->v[P_TILE].i, rows = p->v[P_ROWS].i;
  long long vec = p->v[P_VEC].i;
  tn_swizzle *sw = &p->v[P_SWIZZLE].sw;
  if (!tn_is_pow2(tile)) {
    snprintf(why, n, "tile %lld is not a power of two", tile);
    return 1;
  }
  if (vec != 1 && vec != 2 && vec != 4) {
    snprintf(why, n, "vec %lld is not 1, 2 or 4", vec);
    return 1;
  }
  if (tile % rows != 0) {
    snprintf(why, n, "rows_per_thread %lld does not divide tile %lld", rows,
             tile);
    return 1;
  }
  if (((prob->size.dims[0] + tile - 1) / tile) *
          ((prob->size.dims[1] + tile - 1) / tile) >
      2147483647LL) {
    snprintf(why, n, "more than 2^31 - 1 tiles of %lld", tile);
    return 1;
  }
  if (p->v[P_TMA].i)
    return prepare_tma(fam, p, prob, why, n);
  if (p->v[P_TMA_STORE].i || p->v[P_BOX_ROWS].i || p->v[P_BOX_COLS].i) {
    snprintf(why, n,
             "tma_store, box_rows and box_cols belong to the copy "
             "engine's path (tma = 1)");
    return 1;
  }
  if (tn_swizzle_resolve(sw, (int)tile, 4, why, n) != 0)
    return 1;
  if ((tile * tile) % (1LL << (sw->m + sw->b)) != 0 ||
      sw->m + sw->b + sw->s > 20) {
    snprintf(why, n, "swizzle spans more than the %lldx%lld tile", tile,
             tile);
    return 1;
  }
  return 0;
}

static int offset(const tn_params *p, int row, int col)
{
  const tn_swizzle *sw = &p->v[P_SWIZZLE].sw;
  return tn_smem_offset(row, col, (int)p->v[P_TILE].i, (int)p->v[P_PAD].i,
                        sw->b, sw->m, sw->s);
}

/* Width in elements of the template's shared stores on its fast path
 * (TN_SW): the widest piece of a thread's vec elements that padding and
 * swizzle keep contiguous and aligned. */
static int store_width(const tn_params *p)
{
  int vec = (int)p->v[P_VEC].i, pad = (int)p->v[P_PAD].i, w;
  const tn_swizzle *sw = &p->v[P_SWIZZLE].sw;
  for (w = vec; w > 1; w /= 2)
    if (pad % w == 0 && (sw->b == 0 || (1 << sw->m) >= w))
      return w;
  return 1;
}

/* What the launch, the template (through defines()) and the plan derive
 * from a point, computed here once. */
typedef struct {
  int tile, rpt, vec, pad;
  int nx, by, threads; /* block of nx x by threads */
  int sw;              /* fast-path store width in elements */
  int smem_elems;
  int tma, tma_store;  /* the copy engine's path, and its store */
  int box_rows, box_cols;
} shape;

static void shape_of(const tn_params *p, shape *s)
{
  s->tile = (int)p->v[P_TILE].i;
  s->rpt = (int)p->v[P_ROWS].i;
  s->vec = (int)p->v[P_VEC].i;
  s->pad = (int)p->v[P_PAD].i;
  s->nx = s->tile / s->vec;
  s->by = s->tile / s->rpt;
  s->threads = s->nx * s->by;
  s->sw = store_width(p);
  s->tma = (int)p->v[P_TMA].i;
  s->tma_store = (int)p->v[P_TMA_STORE].i;
  tma_box(p, &s->box_rows, &s->box_cols);
  /* the copy engine's path: the tile, and the transposed one it stores */
  s->smem_elems = s->tma ? s->tile * s->tile * (1 + s->tma_store)
                         : tn_smem_elems(s->tile, s->tile, s->pad);
}

static void launch(const tn_family *fam, const tn_params *p,
                   const tn_problem *prob, tn_launch *l)
{
  long long rows = prob->size.dims[0], cols = prob->size.dims[1];
  shape s;
  shape_of(p, &s);
  memset(l, 0, sizeof(*l));
  l->block[0] = (unsigned)s.nx;
  l->block[1] = (unsigned)s.by;
  l->block[2] = 1;
  l->grid[0] = (unsigned)(((cols + s.tile - 1) / s.tile) *
                          ((rows + s.tile - 1) / s.tile));
  l->grid[1] = 1;
  l->grid[2] = 1;
  l->threads = s.threads;
  l->smem_static = s.smem_elems * 4;
  if (s.tma) {
    l->smem_static += 8; /* the mbarrier */
    l->min_cc = 90;
    l->needs = "the copy engine (TMA)";
  }
}

/* The layout values the template reads, from shape_of(). */
static void defines(const tn_family *fam, const tn_params *p,
                    const tn_problem *prob, tn_defines *d)
{
  shape s;
  (void)prob;
  shape_of(p, &s);
  tn_defines_add(d, "TN_THREADS_X", "%d", s.nx);
  tn_defines_add(d, "TN_BLOCK_Y", "%d", s.by);
  tn_defines_add(d, "TN_THREADS", "%d", s.threads);
  tn_defines_add(d, "TN_SW", "%d", s.sw);
  tn_defines_add(d, "TN_SMEM_ELEMS", "%d", s.smem_elems);
  tn_defines_add(d, "TN_BOXR", "%d", s.box_rows);
  tn_defines_add(d, "TN_BOXC", "%d", s.box_cols);
}

static int tma_offset(const tn_params *p, const shape *s, int row, int col)
{
  const tn_swizzle *sw = &p->v[P_SWIZZLE].sw;
  return tn_tma_offset(row, col, s->tile, s->box_rows, s->box_cols, sw->b,
                       sw->m, sw->s);
}

/* The threads' accesses of one block of the copy engine's path whose tile
 * has valid_rows x valid_cols elements inside the matrix, executed by
 * `times` blocks.  A warp reads a column of the tile (tile[c0 + k][r]).
 * Storing by TMA, every read lies in the tile (zeros beyond the matrix)
 * and the warp then writes its vec elements as one access into the
 * transposed tile, a row of it; the threads storing, a lane reads only
 * where it stores (all of a full tile). */
static void plan_tma(const tn_params *p, int valid_rows, int valid_cols,
                     long long times, tn_access_sink *sink)
{
  shape s;
  int w, j, k, lane;

  shape_of(p, &s);
  for (w = 0; w * 32 < s.threads; w++) {
    for (j = 0; j < s.rpt; j++) {
      for (k = 0; k < s.vec; k++) {
        tn_warp_access ld;
        tn_warp_access_init(&ld, TN_OP_LD, 4);
        for (lane = 0; lane < 32 && w * 32 + lane < s.threads; lane++) {
          int lin = w * 32 + lane, c = s.vec * (lin % s.nx) + k;
          int r = lin / s.nx + j * s.by;
          ld.addr[lane] = 4u * (unsigned)tma_offset(p, &s, c, r);
          if (s.tma_store || (r < valid_cols && c < valid_rows))
            ld.active |= 1u << lane;
        }
        if (ld.active)
          tn_sink_access(sink, &ld, times);
      }
      if (s.tma_store) {
        tn_warp_access st;
        tn_warp_access_init(&st, TN_OP_ST, 4 * s.vec);
        for (lane = 0; lane < 32 && w * 32 + lane < s.threads; lane++) {
          int lin = w * 32 + lane, c = s.vec * (lin % s.nx);
          int r = lin / s.nx + j * s.by;
          st.addr[lane] = 4u * (unsigned)(s.tile * s.tile +
                                          tma_offset(p, &s, r, c));
          st.active |= 1u << lane;
        }
        tn_sink_access(sink, &st, times);
      }
    }
  }
}

/* The accesses of one block whose tile has valid_rows x valid_cols elements
 * inside the matrix, executed by `times` blocks; fast: the unchecked path
 * (a full tile of a matrix whose sizes are multiples of vec). */
static void plan_block(const tn_params *p, int valid_rows, int valid_cols,
                       int fast, long long times, tn_access_sink *sink)
{
  shape s;
  int rpt, vec, sw, nx, by, threads, w, j, k, lane;

  shape_of(p, &s);
  rpt = s.rpt;
  vec = s.vec;
  sw = fast ? s.sw : 1;
  nx = s.nx;
  by = s.by;
  threads = s.threads;

  for (w = 0; w * 32 < threads; w++) {
    for (j = 0; j < rpt; j++) {
      /* tile[r][c0 + k .. + sw - 1] = in[row0 + r][col0 + c0 + k ..] */
      for (k = 0; k < vec; k += sw) {
        tn_warp_access st;
        memset(&st, 0, sizeof(st));
        st.op = TN_OP_ST;
        st.width = 4 * sw;
        for (lane = 0; lane < 32 && w * 32 + lane < threads; lane++) {
          int lin = w * 32 + lane, c = vec * (lin % nx) + k;
          int r = lin / nx + j * by;
          st.addr[lane] = 4u * (unsigned)offset(p, r, c);
          if (fast || (r < valid_rows && c < valid_cols))
            st.active |= 1u << lane;
        }
        if (st.active)
          tn_sink_access(sink, &st, times);
      }
      /* out[col0 + r][row0 + c0 + k] = tile[c0 + k][r] */
      for (k = 0; k < vec; k++) {
        tn_warp_access ld;
        memset(&ld, 0, sizeof(ld));
        ld.op = TN_OP_LD;
        ld.width = 4;
        for (lane = 0; lane < 32 && w * 32 + lane < threads; lane++) {
          int lin = w * 32 + lane, c = vec * (lin % nx) + k;
          int r = lin / nx + j * by;
          ld.addr[lane] = 4u * (unsigned)offset(p, c, r);
          if (fast || (r < valid_cols && c < valid_rows))
            ld.active |= 1u << lane;
        }
        if (ld.active)
          tn_sink_access(sink, &ld, times);
      }
    }
  }
}

static void plan(const tn_family *fam, const tn_params *p,
                 const tn_problem *prob, tn_access_sink *sink)
{
  long long tile = p->v[P_TILE].i, vec = p->v[P_VEC].i;
  long long rows = prob->size.dims[0], cols = prob->size.dims[1];
  long long full_r = rows / tile, full_c = cols / tile;
  int rem_r = (int)(rows % tile), rem_c = (int)(cols % tile);
  int aligned = rows % vec == 0 && cols % vec == 0;

  if (p->v[P_TMA].i && p->v[P_TMA_STORE].i) {
    plan_tma(p, (int)tile, (int)tile,
             (full_r + (rem_r != 0)) * (full_c + (rem_c != 0)), sink);
    return;
  }
  if (p->v[P_TMA].i) {
    /* interior blocks read alike with vector stores or without */
    plan_tma(p, (int)tile, (int)tile, full_r * full_c, sink);
    if (rem_c)
      plan_tma(p, (int)tile, rem_c, full_r, sink);
    if (rem_r)
      plan_tma(p, rem_r, (int)tile, full_c, sink);
    if (rem_r && rem_c)
      plan_tma(p, rem_r, rem_c, 1, sink);
    return;
  }

  /* Interior blocks, the right edge, the bottom edge and the corner. */
  plan_block(p, (int)tile, (int)tile, aligned, full_r * full_c, sink);
  if (rem_c)
    plan_block(p, (int)tile, rem_c, 0, full_r, sink);
  if (rem_r)
    plan_block(p, rem_r, (int)tile, 0, full_c, sink);
  if (rem_r && rem_c)
    plan_block(p, rem_r, rem_c, 0, 1, sink);
}

#define BUF_IN TN_TRANSPOSE_BUF_IN
#define BUF_OUT TN_TRANSPOSE_BUF_OUT

static int buffers(const tn_family *fam, const tn_problem *prob,
                   tn_buffer_desc *out)
{
  size_t bytes = (size_t)prob->size.dims[0] * (size_t)prob->size.dims[1] * 4;
  out[BUF_IN].name = "in";
  out[BUF_IN].bytes = bytes;
  out[BUF_IN].role = TN_BUF_IN;
  out[BUF_OUT].name = "out";
  out[BUF_OUT].bytes = bytes;
  out[BUF_OUT].role = TN_BUF_OUT;
  return 2;
}

static void args(const tn_family *fam, const tn_params *p,
                 const tn_problem *prob, const tn_devptr *bufs, tn_args *a)
{
  int rows = (int)prob->size.dims[0], cols = (int)prob->size.dims[1];
  tn_args_add(a, &bufs[0], sizeof(bufs[0]));
  tn_args_add(a, &bufs[1], sizeof(bufs[1]));
  tn_args_add(a, &rows, sizeof(rows));
  tn_args_add(a, &cols, sizeof(cols));
}

static double work(const tn_family *fam, const tn_problem *prob)
{
  /* bytes read plus bytes written, as a copy of the matrix counts them */
  return 2.0 * (double)prob->size.dims[0] * (double)prob->size.dims[1] * 4.0;
}

/* Per thread: a global load of vec elements a row it moves (none when
 * the copy engine loads), vec scalar stores (none when it stores), the
 * plan's shared accesses; an IMAD or two of addressing each, and three
 * lane ops (shift, and, xor) more for each swizzled shared access. */
static void estimate(const tn_family *fam, const tn_params *p,
                     const tn_problem *prob, tn_time_work *w)
{
  shape s;
  tn_launch l;
  double g_ld, g_st, s_acc, lanes;
  shape_of(p, &s);
  launch(fam, p, prob, &l);
  lanes = (double)l.grid[0] * s.threads;
  g_ld = s.tma ? 0 : s.rpt;
  g_st = s.tma_store ? 0 : (double)s.rpt * s.vec;
  s_acc = s.rpt * (double)(s.tma ? s.vec + s.tma_store : s.vec / s.sw +
                                                         s.vec);
  memset(w, 0, sizeof(*w));
  w->dram_bytes = work(fam, prob);
  /* a tile's rows are read and written tile * 4 bytes at a time */
  w->dram_row_bytes = 4.0 * s.tile;
  w->load_bytes = w->dram_bytes / 2;
  /* in flight at once: a thread's loads, or the copy engine's whole tile
   * for the block (its threads wait on one mbarrier for all of it), in
   * bytes a thread so that Little's law sees the same resident bytes */
  w->bytes_in_flight = s.tma ? 4.0 * s.tile * s.tile / s.threads
                             : 4.0 * s.rpt * s.vec;
  w->other_insts = lanes / 32 * (g_ld + g_st + 2);
  w->imad_ops = lanes * (2 * (g_ld + g_st) + s_acc);
  w->lop_ops = p->v[P_SWIZZLE].sw.b > 0 ? lanes * 3 * s_acc : 0;
  w->regs = 24 + s.rpt * s.vec;
  /* the copy engine's boxes: a tile's load (and store) in boxes of
   * box_rows rows of box_cols floats, each tile whole (the engine fills
   * or clips the edge tiles' outside, box by box) */
  if (s.tma) {
    double boxes = (double)l.grid[0] * (s.tile / s.box_rows) *
                   (s.tile / s.box_cols);
    int op;
    for (op = 0; op < 1 + s.tma_store; op++) {
      w->tma_boxes[op] = boxes;
      w->tma_box_rows[op] = s.box_rows;
      w->tma_row_bytes[op] = 4.0 * s.box_cols;
    }
  }
}

/* One tile; ragged: one row and three columns short of it. */
static int one_block(const tn_family *fam, const tn_params *p,
                     const tn_problem *base, int ragged, tn_problem *out,
                     char *why, size_t n)
{
  long long tile = p->v[P_TILE].i;
  (void)why;
  (void)n;
  *out = *base;
  out->size.n_dims = 2;
  out->size.dims[0] = ragged ? tile - 1 : tile;
  out->size.dims[1] = ragged ? tile - 3 : tile;
  if (ragged && p->v[P_TMA].i) {
    /* the tensor maps' rows must be multiples of 16 bytes */
    out->size.dims[0] = tile - 4;
    out->size.dims[1] = tile - 4;
  }
  return 0;
}

static const char *const baselines[] = {"memcpy"};

/* "memcpy": a device-to-device copy of the input into the output, the
 * same bytes read and written as a transpose of it. */
static int baseline(const char *name, tn_baseline_env *env, char *why,
                    size_t n)
{
  if (strcmp(name, "memcpy") != 0) {
    snprintf(why, n, "transpose has no baseline '%s'", name);
    return -1;
  }
  if (env->descs[BUF_OUT].bytes < env->descs[BUF_IN].bytes) {
    snprintf(why, n, "memcpy: the output is smaller than the input");
    return -1;
  }
  return env->copy(env, env->dev[BUF_OUT], env->dev[BUF_IN],
                   env->descs[BUF_IN].bytes, why, n);
}

/* A transpose's tile is chosen by the shape and the amount of the matrix
 * (how many tiles, how square), not by rows and cols one by one: its
 * per-size entries are told apart by aspect and elements. */
static const tn_size_key size_keys[] = {
    {"aspect", {1, -1}},  /* rows / cols */
    {"elements", {1, 1}}, /* rows * cols */
};

const tn_family tn_family_transpose = {
    .name = "transpose",
    .kernel = "transpose",
    .params = params,
    .n_params = N_PARAMS,
    .n_dims = 2,
    .dim_names = "rows, cols",
    .prepare = prepare,
    .launch = launch,
    .defines = defines,
    .one_block = one_block,
    .plan = plan,
    .estimate = estimate,
    .buffers = buffers,
    .args = args,
    .tensor_maps = tensor_maps,
    .reference_source = tn_transpose_reference_source,
    .verify = tn_transpose_verify,
    .verify_device = tn_transpose_verify_device,
    .work = work,
    .unit = "GB/s",
    .unit_scale = 1e9,
    .baselines = baselines,
    .n_baselines = 1,
    .baseline = baseline,
    .size_keys = size_keys,
    .n_size_keys = 2,
};

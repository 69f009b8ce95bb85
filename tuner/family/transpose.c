/* transpose.c -- the transpose family: out = in^T for a row-major matrix
 * of 1-, 2-, 4- or 8-byte elements (the problem's `elem`: fp32 by
 * default, fp16, bf16, fp8, int8, fp64; a transpose moves bits, so each
 * is its width).
 *
 * Mirrors templates/transpose.cu: a block of tile / vec x tile_rows /
 * rows_per_thread threads moves one tile_rows x tile tile through shared
 * memory (tile_rows 0: tile x tile); `group` orders the tiles among
 * blocks; `cache` puts hints on the threads' global accesses;
 * `smem_claim` caps the blocks an SM by the shared memory each claims at
 * launch.  The layouts the space
 * holds for each width: a pad in elements or in 4-byte words (pad_unit),
 * xor at the granularity of the bank (4-byte words for narrower elements,
 * elements for fp64) and CuTe-form swizzles, vectors of up to 16 bytes,
 * and `pack`: the tile's columns read pack at a time and transposed in
 * registers (two fp16 of a word, four bytes).  With tma = 1 the copy
 * engine (sm_90+) loads the tile in boxes under a tensor map's swizzle,
 * and stores it with tma_store = 1.  The rules of a point and the copy
 * engine's tensor maps are in transpose_rules.c, the shape of a point and
 * the access plan in transpose_plan.c, the check in transpose_check.c.
 *
 * The same kernels over a batch of contiguous matrices are the families
 * transpose_batched ([batch, rows, cols]) and transpose_heads ([batch,
 * heads, rows, cols]), defined at the end: the batch in the grid's y and
 * z, the copy engine's maps of rank 3. */
#include <stdio.h>
#include <string.h>

#include "family/transpose_check.h"
#include "family/transpose_shape.h"

static const char *const elem_names[TP_N_ELEMS] = {
    [TP_ELEM_FP32] = "fp32", [TP_ELEM_FP16] = "fp16",
    [TP_ELEM_BF16] = "bf16", [TP_ELEM_FP8] = "fp8",
    [TP_ELEM_INT8] = "int8", [TP_ELEM_FP64] = "fp64",
};

static const tn_option_desc options[TP_N_OPTIONS] = {
    {"elem", TN_OPT_CHOICE, TP_ELEM_FP32, 0, 0,
     "the element type: fp32, fp16, bf16, fp8, int8 or fp64 (moved as "
     "bits: 4, 2, 2, 1, 1 or 8 bytes)",
     elem_names, TP_N_ELEMS},
};

static const tn_param_desc params[TP_N_PARAMS] = {
    {"tile", TN_PARAM_INT, 0, 8, 256, 32,
     "tile edge in elements, a power of two", 0},
    {"rows_per_thread", TN_PARAM_INT, 0, 1, 64, 4,
     "tile rows each thread moves; divides tile (and tile_rows)", 0},
    {"vec", TN_PARAM_INT, 0, 1, 16, 1,
     "elements each thread moves per row: 1, 2, 4, 8 or 16, at most 16 "
     "bytes (global access width)", 0},
    {"pad", TN_PARAM_INT, 1, 0, 32, 0,
     "padding at the end of each tile row, in pad_unit", 0},
    {"swizzle", TN_PARAM_SWIZZLE, 1, 0, 0, 0,
     "swizzle of the tile: none, xor (column ^= row; other widths than "
     "fp32: 4-byte words, fp64's elements, ^= row or 128-byte line), "
     "sw32, sw64, sw128, cute(B,M,S) on element offsets", 0},
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
    {"pad_unit", TN_PARAM_INT, 1, 0, 4, 0,
     "what pad counts: 0 elements, 4 4-byte words (a bank's width)", 1},
    {"pack", TN_PARAM_INT, 0, 1, 16, 1,
     "tile columns one shared load reads, transposed in registers before "
     "the global stores: 1, 2, 4, 8 or 16, at most 16 bytes; divides "
     "rows_per_thread",
     1},
    {"cache", TN_PARAM_INT, 0, 0, 3, 0,
     "the threads' global accesses: 0 plain, 1 evict-first (.cs) loads "
     "and stores, 2 loads that fetch 256 bytes into the L2 (.L2::256B), "
     "3 both",
     1},
    {"tile_rows", TN_PARAM_INT, 0, 0, 256, 0,
     "the threads' tile's rows: 0 the square tile x tile, else a power of "
     "two (8 .. 256) other than tile: a rectangle whose rows read are "
     "tile elements long and whose rows written are tile_rows long",
     1},
    {"smem_claim", TN_PARAM_INT, 0, 0, 227, 0,
     "KiB of shared memory a block claims at launch, at least (0: its "
     "tiles' own): fewer blocks an SM, which the model's occupancy sees",
     1},
};

static void launch(const tn_family *fam, const tn_params *p,
                   const tn_problem *prob, tn_launch *l)
{
  tn_transpose_shape s;
  tn_transpose_dims m;
  long long rows, cols;
  int claim;
  (void)fam;
  tn_transpose_shape_of(p, prob, &s);
  tn_transpose_dims_of(prob, &m);
  rows = m.rows;
  cols = m.cols;
  memset(l, 0, sizeof(*l));
  l->block[0] = (unsigned)s.nx;
  l->block[1] = (unsigned)s.by;
  l->block[2] = 1;
  l->grid[0] = (unsigned)(((cols + s.tile - 1) / s.tile) *
                          ((rows + s.tile_rows - 1) / s.tile_rows));
  /* the matrices of a batch in y and z (check_problem() refused a batch
   * that does not split so) */
  if (tn_transpose_batch_grid(m.batch, &l->grid[1], &l->grid[2]) != 0)
    l->grid[1] = l->grid[2] = 0;
  l->threads = s.threads;
  claim = (int)p->v[TP_SMEM_CLAIM].i * 1024;
  if (!s.tma) {
    /* the template's tile is extern: a tile of 64 KiB is past the static
     * 48 KiB */
    l->smem_dynamic = s.smem_elems * s.eb;
    if (claim > l->smem_dynamic)
      l->smem_dynamic = claim;
    /* PTX has the loads' 256-byte L2 fetch from sm_80 on */
    if (p->v[TP_CACHE].i & 2) {
      l->min_cc = 80;
      l->needs = "the L2's 256-byte fetch (cache 2 or 3)";
    }
  } else {
    l->smem_static = s.smem_elems * s.eb + 8; /* the mbarrier */
    /* a claim past the static tiles is dynamic memory the kernel leaves
     * unused */
    if (claim > l->smem_static)
      l->smem_dynamic = claim - l->smem_static;
    l->min_cc = 90;
    l->needs = "the copy engine (TMA)";
  }
}

/* The layout values the template reads, from tn_transpose_shape_of(). */
static void defines(const tn_family *fam, const tn_params *p,
                    const tn_problem *prob, tn_defines *d)
{
  tn_transpose_shape s;
  (void)fam;
  tn_transpose_shape_of(p, prob, &s);
  tn_defines_add(d, "TN_THREADS_X", "%d", s.nx);
  tn_defines_add(d, "TN_BLOCK_Y", "%d", s.by);
  tn_defines_add(d, "TN_THREADS", "%d", s.threads);
  tn_defines_add(d, "TN_TILE_R", "%d", s.tile_rows);
  tn_defines_add(d, "TN_THREADS_X2", "%d", s.nx2);
  tn_defines_add(d, "TN_BLOCK_Y2", "%d", s.by2);
  tn_defines_add(d, "TN_SW", "%d", s.sw);
  tn_defines_add(d, "TN_SMEM_ELEMS", "%d", s.smem_elems);
  tn_defines_add(d, "TN_BOXR", "%d", s.box_rows);
  tn_defines_add(d, "TN_BOXC", "%d", s.box_cols);
  tn_defines_add(d, "TN_ELEM_BYTES", "%d", s.eb);
  tn_defines_add(d, "TN_PAD_ELEMS", "%d", s.pad);
  /* the batched families' tensor maps have a third dimension, the
   * matrix (the 2-D family's sources stay as they were) */
  if (prob->size.n_dims > 2)
    tn_defines_add(d, "TN_BATCHED", "1");
}

#define BUF_IN TN_TRANSPOSE_BUF_IN
#define BUF_OUT TN_TRANSPOSE_BUF_OUT

/* The input's values: fp32, fp16 and bf16 from the shipped generator
 * (tn_random_elem); fp64 uniform in [-1, 1) from 53 random bits, the
 * byte types every byte: inputs whose bits all vary, so that a misplaced
 * element shows. */
static tn_buffer_init input_init(tn_elem_type t)
{
  tn_buffer_init init;
  memset(&init, 0, sizeof(init));
  if (t == TN_ELEM_F64) {
    init.kind = TN_INIT_UNIFORM;
    init.a = -1.0;
    init.b = 1.0;
  } else if (t == TN_ELEM_U8 || t == TN_ELEM_I8) {
    init.kind = TN_INIT_UNIFORM;
    init.a = t == TN_ELEM_U8 ? 0 : -128;
    init.b = t == TN_ELEM_U8 ? 255 : 127;
  }
  return init;
}

static int buffers(const tn_family *fam, const tn_problem *prob,
                   tn_buffer_desc *out)
{
  tn_elem_type t = tn_transpose_elem(prob);
  tn_transpose_dims m;
  size_t bytes;
  (void)fam;
  tn_transpose_dims_of(prob, &m); /* check_problem(): no overflow */
  bytes = (size_t)m.batch * (size_t)m.rows * (size_t)m.cols *
          (size_t)tn_elem_bytes(t);
  out[BUF_IN].name = "in";
  out[BUF_IN].bytes = bytes;
  out[BUF_IN].role = TN_BUF_IN;
  out[BUF_IN].elem = t;
  out[BUF_IN].init = input_init(t);
  out[BUF_OUT].name = "out";
  out[BUF_OUT].bytes = bytes;
  out[BUF_OUT].role = TN_BUF_OUT;
  out[BUF_OUT].elem = t;
  return 2;
}

static void args(const tn_family *fam, const tn_params *p,
                 const tn_problem *prob, const tn_devptr *bufs, tn_args *a)
{
  tn_transpose_dims m;
  int rows, cols;
  (void)fam;
  (void)p;
  tn_transpose_dims_of(prob, &m);
  rows = (int)m.rows;
  cols = (int)m.cols;
  tn_args_add(a, &bufs[0], sizeof(bufs[0]));
  tn_args_add(a, &bufs[1], sizeof(bufs[1]));
  tn_args_add(a, &rows, sizeof(rows));
  tn_args_add(a, &cols, sizeof(cols));
}

static double work(const tn_family *fam, const tn_problem *prob)
{
  /* bytes read plus bytes written, as a copy of the matrices counts them */
  tn_transpose_dims m;
  (void)fam;
  tn_transpose_dims_of(prob, &m);
  return 2.0 * (double)m.batch * (double)m.rows * (double)m.cols *
         (double)tn_transpose_elem_bytes(prob);
}

/* Per thread: a global load of vec elements a row it moves (none when
 * the copy engine loads), vec scalar stores (none when it stores), the
 * plan's shared accesses; an IMAD or two of addressing each, and three
 * lane ops (shift, and, xor) more for each swizzled shared access; for
 * elements narrower than a register, one byte permute (PRMT) for each
 * element a thread places into a vector or takes out of a packed word. */
static void estimate(const tn_family *fam, const tn_params *p,
                     const tn_problem *prob, tn_time_work *w)
{
  tn_transpose_shape s;
  tn_launch l;
  double g_ld, g_st, s_acc, lanes, reads;
  tn_transpose_shape_of(p, prob, &s);
  launch(fam, p, prob, &l);
  lanes = (double)l.grid[0] * l.grid[1] * l.grid[2] * s.threads;
  g_ld = s.tma ? 0 : s.rpt;
  g_st = s.tma_store ? 0 : (double)s.rpt * s.vec;
  reads = (double)(s.rpt / s.pack) * s.vec; /* column reads a thread */
  s_acc = s.tma ? reads + (double)s.rpt * s.tma_store
                : (double)s.rpt * (s.vec / s.sw) + reads;
  memset(w, 0, sizeof(*w));
  w->dram_bytes = work(fam, prob);
  /* a tile's rows are read tile * eb bytes at a time and written
   * tile_rows * eb (a square's alike) */
  w->dram_row_bytes = (double)s.eb * s.tile;
  w->dram_write_row_bytes = (double)s.eb * s.tile_rows;
  w->load_bytes = w->dram_bytes / 2;
  /* in flight at once: a thread's loads, or the copy engine's whole tile
   * for the block (its threads wait on one mbarrier for all of it), in
   * bytes a thread so that Little's law sees the same resident bytes */
  w->bytes_in_flight = s.tma ? (double)s.eb * s.tile * s.tile / s.threads
                             : (double)s.eb * s.rpt * s.vec;
  w->other_insts = lanes / 32 * (g_ld + g_st + 2);
  w->imad_ops = lanes * (2 * (g_ld + g_st) + s_acc);
  w->lop_ops = p->v[TP_SWIZZLE].sw.b > 0 ? lanes * 3 * s_acc : 0;
  if (s.eb < 4 || s.pack > 1)
    w->lop_ops += lanes * s.rpt * s.vec * (s.pack > 1 ? 2 : 1);
  w->regs = 24 + (s.rpt * s.vec * s.eb + 3) / 4;
  /* the copy engine's boxes: a tile's load (and store) in boxes of
   * box_rows rows of box_cols elements, each tile whole (the engine fills
   * or clips the edge tiles' outside, box by box) */
  if (s.tma) {
    double boxes = (double)l.grid[0] * l.grid[1] * l.grid[2] *
                   (s.tile / s.box_rows) * (s.tile / s.box_cols);
    int op;
    for (op = 0; op < 1 + s.tma_store; op++) {
      w->tma_boxes[op] = boxes;
      w->tma_box_rows[op] = s.box_rows;
      w->tma_row_bytes[op] = (double)s.eb * s.box_cols;
    }
  }
}

/* One tile; ragged: one row and three columns short of it (the copy
 * engine's: 16 bytes short in both, its rows' rule). */
static int one_block(const tn_family *fam, const tn_params *p,
                     const tn_problem *base, int ragged, tn_problem *out,
                     char *why, size_t n)
{
  long long tile = p->v[TP_TILE].i;
  long long trows = p->v[TP_TILE_ROWS].i ? p->v[TP_TILE_ROWS].i : tile;
  int nd = fam->n_dims, i;
  (void)why;
  (void)n;
  *out = *base;
  out->size.n_dims = nd;
  for (i = 0; i < nd - 2; i++)
    out->size.dims[i] = 1; /* one matrix */
  out->size.dims[nd - 2] = ragged ? trows - 1 : trows;
  out->size.dims[nd - 1] = ragged ? tile - 3 : tile;
  if (ragged && p->v[TP_TMA].i) {
    /* the tensor maps' rows must be multiples of 16 bytes */
    long long short_by = 16 / tn_transpose_elem_bytes(base);
    out->size.dims[nd - 2] = tile - short_by;
    out->size.dims[nd - 1] = tile - short_by;
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

/* The limits of a problem beyond each dimension's: the buffers' bytes
 * within 2^62 (size_t offsets, with room for the sum of both buffers),
 * and the matrices of a batch within the grid's y and z (65535 each). */
static int check_problem(const tn_family *fam, const tn_problem *prob,
                         char *why, size_t n)
{
  const unsigned long long limit = 1ULL << 62;
  unsigned long long bytes = (unsigned long long)tn_transpose_elem_bytes(prob);
  tn_transpose_dims m;
  unsigned y, z;
  int i;

  if (prob->size.n_dims != fam->n_dims) {
    snprintf(why, n, "%d dimensions, not %d (%s)", prob->size.n_dims,
             fam->n_dims, fam->dim_names);
    return 1;
  }
  for (i = 0; i < prob->size.n_dims; i++) {
    if (prob->size.dims[i] < 1) {
      snprintf(why, n, "dimension %d is %lld, not at least 1", i,
               prob->size.dims[i]);
      return 1;
    }
    if (bytes > limit / (unsigned long long)prob->size.dims[i]) {
      snprintf(why, n, "more than 2^62 bytes in a buffer (each dimension's "
                       "product times %d-byte elements)",
               tn_transpose_elem_bytes(prob));
      return 1;
    }
    bytes *= (unsigned long long)prob->size.dims[i];
  }
  tn_transpose_dims_of(prob, &m);
  if (tn_transpose_batch_grid(m.batch, &y, &z) != 0) {
    snprintf(why, n, "a batch of %lld matrices does not split into a "
                     "grid's y and z of at most 65535 each (a batch above "
                     "65535^2, or with no divisor that fits)",
             m.batch);
    return 1;
  }
  return 0;
}

/* A transpose's tile is chosen by the shape and the amount of the matrix
 * (how many tiles, how square), not by rows and cols one by one: its
 * per-size entries are told apart by aspect and elements. */
static const tn_size_key size_keys[] = {
    {"aspect", {1, -1}},  /* rows / cols */
    {"elements", {1, 1}}, /* rows * cols */
};

/* What the three transpose families share: all but the dimensions. */
#define TRANSPOSE_FAMILY \
    .kernel = "transpose", \
    .params = params, \
    .n_params = TP_N_PARAMS, \
    .options = options, \
    .n_options = TP_N_OPTIONS, \
    .prepare = tn_transpose_prepare, \
    .launch = launch, \
    .defines = defines, \
    .one_block = one_block, \
    .plan = tn_transpose_plan, \
    .estimate = estimate, \
    .buffers = buffers, \
    .args = args, \
    .tensor_maps = tn_transpose_tensor_maps, \
    .reference_source = tn_transpose_reference_source, \
    .verify = tn_transpose_verify, \
    .verify_device = tn_transpose_verify_device, \
    .work = work, \
    .unit = "GB/s", \
    .unit_scale = 1e9, \
    .baselines = baselines, \
    .n_baselines = 1, \
    .baseline = baseline, \
    .check_problem = check_problem

const tn_family tn_family_transpose = {
    TRANSPOSE_FAMILY,
    .name = "transpose",
    .n_dims = 2,
    .dim_names = "rows, cols",
    .options_added = 1u << TP_OPT_ELEM,
    .size_keys = size_keys,
    .n_size_keys = 2,
};

/* The batched transposes, [batch, rows, cols] -> [batch, cols, rows] and
 * [batch, heads, rows, cols] -> [batch, heads, cols, rows] (attention's
 * heads): the same kernels, one matrix after the other, the matrix from
 * the grid's y and z.  Families of their own, so that the batch is part
 * of each size: every size has its winner, and the headers' lookup by
 * size takes the batch (a problem option would be one batch a config).
 * Their sizes are told apart by the matrices' aspect, all the elements
 * moved and the number of matrices ([4, 32, ...] and [32, 4, ...] are
 * one size: the same launch). */
static const tn_size_key batched_keys[] = {
    {"aspect", {0, 1, -1}},    /* rows / cols */
    {"elements", {1, 1, 1}},   /* batch * rows * cols */
    {"matrices", {1, 0, 0}},   /* batch */
};

static const tn_size_key heads_keys[] = {
    {"aspect", {0, 0, 1, -1}},
    {"elements", {1, 1, 1, 1}},
    {"matrices", {1, 1, 0, 0}}, /* batch * heads */
};

const tn_family tn_family_transpose_batched = {
    TRANSPOSE_FAMILY,
    .name = "transpose_batched",
    .n_dims = 3,
    .dim_names = "batch, rows, cols",
    .size_keys = batched_keys,
    .n_size_keys = 3,
};

const tn_family tn_family_transpose_heads = {
    TRANSPOSE_FAMILY,
    .name = "transpose_heads",
    .n_dims = 4,
    .dim_names = "batch, heads, rows, cols",
    .size_keys = heads_keys,
    .n_size_keys = 3,
};

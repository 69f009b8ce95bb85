/* transpose.c -- the transpose family: out = in^T for row-major fp32.
 *
 * Mirrors templates/transpose.cu: a block of tile x (tile / rows_per_thread)
 * threads moves one tile x tile tile through shared memory; `group` orders
 * the tiles among blocks.  The access plan below lists exactly the
 * shared-memory instructions of that template (the order of tiles does not
 * change them). */
#include <stdio.h>
#include <string.h>

#include "family/family.h"
#include "../../templates/smem_layout.h"

enum { P_TILE, P_ROWS, P_VEC, P_PAD, P_SWIZZLE, P_GROUP, N_PARAMS };

static const tn_param_desc params[N_PARAMS] = {
    {"tile", TN_PARAM_INT, 0, 8, 64, 32,
     "tile edge in elements, a power of two"},
    {"rows_per_thread", TN_PARAM_INT, 0, 1, 64, 4,
     "tile rows each thread moves; divides tile"},
    {"vec", TN_PARAM_INT, 0, 1, 4, 1,
     "elements each thread moves per row: 1, 2 or 4 (global access width)"},
    {"pad", TN_PARAM_INT, 1, 0, 32, 0,
     "padding elements at the end of each tile row"},
    {"swizzle", TN_PARAM_SWIZZLE, 1, 0, 0, 0,
     "swizzle of the tile: none, xor, sw32, sw64, sw128, cute(B,M,S)"},
    {"group", TN_PARAM_INT, 0, 1, 64, 1,
     "tile rows per group in the order blocks take tiles (1: row by row)"},
};

static int prepare(tn_params *p, const tn_problem *prob, char *why, size_t n)
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
  s->smem_elems = tn_smem_elems(s->tile, s->tile, s->pad);
}

static void launch(const tn_params *p, const tn_problem *prob, tn_launch *l)
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
}

/* The layout values the template reads, from shape_of(). */
static void defines(const tn_params *p, const tn_problem *prob,
                    tn_defines *d)
{
  shape s;
  (void)prob;
  shape_of(p, &s);
  tn_defines_add(d, "TN_THREADS_X", "%d", s.nx);
  tn_defines_add(d, "TN_BLOCK_Y", "%d", s.by);
  tn_defines_add(d, "TN_THREADS", "%d", s.threads);
  tn_defines_add(d, "TN_SW", "%d", s.sw);
  tn_defines_add(d, "TN_SMEM_ELEMS", "%d", s.smem_elems);
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

static void plan(const tn_params *p, const tn_problem *prob,
                 tn_access_sink *sink)
{
  long long tile = p->v[P_TILE].i, vec = p->v[P_VEC].i;
  long long rows = prob->size.dims[0], cols = prob->size.dims[1];
  long long full_r = rows / tile, full_c = cols / tile;
  int rem_r = (int)(rows % tile), rem_c = (int)(cols % tile);
  int aligned = rows % vec == 0 && cols % vec == 0;

  /* Interior blocks, the right edge, the bottom edge and the corner. */
  plan_block(p, (int)tile, (int)tile, aligned, full_r * full_c, sink);
  if (rem_c)
    plan_block(p, (int)tile, rem_c, 0, full_r, sink);
  if (rem_r)
    plan_block(p, rem_r, (int)tile, 0, full_c, sink);
  if (rem_r && rem_c)
    plan_block(p, rem_r, rem_c, 0, 1, sink);
}

enum { BUF_IN, BUF_OUT };

static int buffers(const tn_problem *prob, tn_buffer_desc *out)
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

static void args(const tn_problem *prob, const tn_devptr *bufs, tn_args *a)
{
  int rows = (int)prob->size.dims[0], cols = (int)prob->size.dims[1];
  tn_args_add(a, &bufs[0], sizeof(bufs[0]));
  tn_args_add(a, &bufs[1], sizeof(bufs[1]));
  tn_args_add(a, &rows, sizeof(rows));
  tn_args_add(a, &cols, sizeof(cols));
}

/* The transpose moves bits: every element must match exactly. */
static int verify(tn_verify_env *env, char *why, size_t n)
{
  const float *in = env->host[0], *out = env->host[1];
  long long rows = env->problem->size.dims[0];
  long long cols = env->problem->size.dims[1];
  long long bad = 0, first = -1, r;

#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (r = 0; r < rows; r++) {
    long long c;
    for (c = 0; c < cols; c++)
      if (memcmp(&out[c * rows + r], &in[r * cols + c], 4) != 0)
        bad++;
  }
  if (bad == 0)
    return 0;
  for (r = 0; r < rows && first < 0; r++) {
    long long c;
    for (c = 0; c < cols; c++)
      if (memcmp(&out[c * rows + r], &in[r * cols + c], 4) != 0) {
        snprintf(why, n,
                 "%lld of %lld elements differ; first out[%lld][%lld] = %g, "
                 "expected %g",
                 bad, rows * cols, c, r, (double)out[c * rows + r],
                 (double)in[r * cols + c]);
        first = r;
        break;
      }
  }
  return 1;
}

/* The same comparison on the GPU: mismatches counted, the first (in the
 * host's order, by input index) kept; st[0] count, st[1] that index. */
static const char reference_source[] =
    "extern \"C\" __global__ void tn_transpose_check_init(\n"
    "    unsigned long long *st)\n"
    "{\n"
    "  st[0] = 0ULL;\n"
    "  st[1] = ~0ULL;\n"
    "}\n"
    "extern \"C\" __global__ void tn_transpose_check(const unsigned *in,\n"
    "    const unsigned *out, long long rows, long long cols,\n"
    "    unsigned long long *st)\n"
    "{\n"
    "  long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  unsigned long long bad = 0ULL, first = ~0ULL;\n"
    "  if (r >= rows)\n"
    "    return;\n"
    "  for (long long c = blockIdx.y; c < cols; c += gridDim.y)\n"
    "    if (out[c * rows + r] != in[r * cols + c]) {\n"
    "      unsigned long long i = (unsigned long long)(r * cols + c);\n"
    "      bad++;\n"
    "      first = i < first ? i : first;\n"
    "    }\n"
    "  if (bad) {\n"
    "    atomicAdd(&st[0], bad);\n"
    "    atomicMin(&st[1], first);\n"
    "  }\n"
    "}\n";

static int verify_device(tn_verify_env *env, char *why, size_t n)
{
  long long rows = env->problem->size.dims[0];
  long long cols = env->problem->size.dims[1];
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned long long st[2];
  long long r, c;
  float got, want;
  tn_devptr dst;
  tn_args a;

  if (env->alloc(env, sizeof(st), &dst) != 0) {
    snprintf(why, n, "transpose: no device memory for the check");
    return -1;
  }
  memset(&a, 0, sizeof(a));
  tn_args_add(&a, &dst, sizeof(dst));
  if (env->launch(env, "tn_transpose_check_init", grid, block, &a) != 0)
    goto failed;
  memset(&a, 0, sizeof(a));
  tn_args_add(&a, &env->dev[BUF_IN], sizeof(tn_devptr));
  tn_args_add(&a, &env->dev[BUF_OUT], sizeof(tn_devptr));
  tn_args_add(&a, &rows, sizeof(rows));
  tn_args_add(&a, &cols, sizeof(cols));
  tn_args_add(&a, &dst, sizeof(dst));
  block[0] = 256;
  grid[0] = (unsigned)((rows + 255) / 256);
  grid[1] = (unsigned)(cols < 64 ? cols : 64);
  if (env->launch(env, "tn_transpose_check", grid, block, &a) != 0 ||
      env->download(env, st, dst, sizeof(st)) != 0)
    goto failed;
  if (st[0] == 0)
    return 0;
  r = (long long)(st[1] / (unsigned long long)cols);
  c = (long long)(st[1] % (unsigned long long)cols);
  if (env->download(env, &got,
                    env->dev[BUF_OUT] + (tn_devptr)(c * rows + r) * 4,
                    4) != 0 ||
      env->download(env, &want,
                    env->dev[BUF_IN] + (tn_devptr)(r * cols + c) * 4, 4) != 0)
    goto failed;
  snprintf(why, n,
           "%llu of %lld elements differ; first out[%lld][%lld] = %g, "
           "expected %g",
           st[0], rows * cols, c, r, (double)got, (double)want);
  return 1;
failed:
  snprintf(why, n, "transpose: the check on the GPU failed to run");
  return -1;
}

static double work(const tn_problem *prob)
{
  /* bytes read plus bytes written, as a copy of the matrix counts them */
  return 2.0 * (double)prob->size.dims[0] * (double)prob->size.dims[1] * 4.0;
}

/* One tile; ragged: one row and three columns short of it. */
static int one_block(const tn_params *p, const tn_problem *base, int ragged,
                     tn_problem *out, char *why, size_t n)
{
  long long tile = p->v[P_TILE].i;
  (void)why;
  (void)n;
  *out = *base;
  out->size.n_dims = 2;
  out->size.dims[0] = ragged ? tile - 1 : tile;
  out->size.dims[1] = ragged ? tile - 3 : tile;
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
    .buffers = buffers,
    .args = args,
    .reference_source = reference_source,
    .verify = verify,
    .verify_device = verify_device,
    .work = work,
    .unit = "GB/s",
    .unit_scale = 1e9,
    .baselines = baselines,
    .n_baselines = 1,
    .baseline = baseline,
    .size_keys = size_keys,
    .n_size_keys = 2,
};

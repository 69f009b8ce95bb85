/* gemm.c -- the GEMM family: C = alpha * op(A) * op(B) + beta * C in fp32.
 *
 * Mirrors templates/gemm.cu: the textbook kernel (kernel = 0: TILE x TILE
 * threads, one output each, TILE = bm) and a register-tiled SIMT kernel
 * (kernel = 1: block tile bm x bn x bk, thread tile tm x tn, warps of
 * lanes_m x (32 / lanes_m) threads, As and Bs k-major or not, padding and
 * swizzle for each, one or two shared buffers, cp.async on sm_80+).  The
 * access plan below lists, lane by lane, every shared-memory instruction
 * of that template; the template never skips them at the matrix edges
 * (it stores zeros there), so one block's plan, times the blocks and
 * k-tiles, is the launch's.
 *
 * The check runs a fp64 reference on the GPU (reference_source below) and
 * accepts an element when |c - ref| <= (K + 2) * 2^-24 * absref, absref =
 * |alpha| * sum |a||b| + |beta||c0|: the error bound of fp32 accumulation
 * in any order, and no more.  The baseline is cuBLAS SGEMM (tuner/cublas.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cublas.h"
#include "../family.h"
#include "../../templates/smem_layout.h"

enum {
  P_KERNEL,
  P_BM,
  P_BN,
  P_BK,
  P_TM,
  P_TN,
  P_LANES_M,
  P_A_KMAJOR,
  P_B_KMAJOR,
  P_PIPELINE,
  P_MIN_BLOCKS,
  P_PAD_A,
  P_PAD_B,
  P_SWIZZLE_A,
  P_SWIZZLE_B,
  N_PARAMS
};

static const tn_param_desc params[N_PARAMS] = {
    {"kernel", TN_PARAM_INT, 0, 0, 1, 1,
     "0: textbook (TILE x TILE threads, one output each, TILE = bm; uses "
     "only bm and the pads and swizzles), 1: register-tiled"},
    {"bm", TN_PARAM_INT, 0, 8, 256, 128,
     "block tile rows (of C and op(A)), a power of two"},
    {"bn", TN_PARAM_INT, 0, 8, 256, 128, "block tile columns, a power of two"},
    {"bk", TN_PARAM_INT, 0, 4, 64, 8, "block tile depth (k), a power of two"},
    {"tm", TN_PARAM_INT, 0, 1, 16, 8,
     "thread tile rows in registers, a power of two"},
    {"tn", TN_PARAM_INT, 0, 1, 16, 8,
     "thread tile columns in registers, a power of two"},
    {"lanes_m", TN_PARAM_INT, 0, 1, 32, 4,
     "lanes of a warp along m (a divisor of 32); the warp tile is "
     "lanes_m * tm x (32 / lanes_m) * tn"},
    {"a_kmajor", TN_PARAM_INT, 0, 0, 1, 1,
     "1: As[k][m] (A transposed in shared memory), 0: As[m][k]"},
    {"b_kmajor", TN_PARAM_INT, 0, 0, 1, 1, "1: Bs[k][n], 0: Bs[n][k]"},
    {"pipeline", TN_PARAM_INT, 0, 0, 2, 2,
     "0: one shared buffer; 1: two, next tile staged in registers; "
     "2: as 1 with cp.async for untransposed copies (sm_80+)"},
    {"min_blocks", TN_PARAM_INT, 0, 0, 8, 0,
     "minimum resident blocks per SM for __launch_bounds__ (0: none)"},
    {"pad_a", TN_PARAM_INT, 1, 0, 32, 0,
     "padding elements at the end of each As row"},
    {"pad_b", TN_PARAM_INT, 1, 0, 32, 0,
     "padding elements at the end of each Bs row"},
    {"swizzle_a", TN_PARAM_SWIZZLE, 1, 0, 0, 0,
     "swizzle of As: none, xor, sw32, sw64, sw128, cute(B,M,S)"},
    {"swizzle_b", TN_PARAM_SWIZZLE, 1, 0, 0, 0,
     "swizzle of Bs: none, xor, sw32, sw64, sw128, cute(B,M,S)"},
};

#define STATIC_SMEM_MAX (48 * 1024)

/* One shared array: an operand's tile (A: mn = m, B: mn = n). */
typedef struct {
  int mn;           /* bm or bn */
  int kcontig;      /* contiguous along k in global memory */
  int kmajor;       /* shared rows are k (Xs[k][mn]), else mn */
  int copy;         /* global and shared rows run the same way */
  int cl;           /* tile extent along the global contiguous dimension */
  int slots, iters; /* 4-element slots of the tile, per-thread rounds */
  int rows, width, pad, elems; /* shared rows x width (+ pad), per buffer */
  int vec;          /* widest access in floats: pad and swizzle keep it */
  int base;         /* element offset of buffer 0 in shared memory */
  tn_swizzle sw;
} operand;

/* Everything the template derives from a point, computed once here. */
typedef struct {
  int kernel, bm, bn, bk, tm, tn, wm, wn;
  int threads, stages, vm, vn, lm, ln, warps_n;
  int tb_vec; /* textbook: floats per As row load */
  operand op[2];
  long long smem_bytes;
  long long m, n, k;
} geometry;

static int is_pow2(long long x)
{
  return x > 0 && (x & (x - 1)) == 0;
}

static int log2i(long long x)
{
  int k = 0;
  while ((1LL << k) < x)
    k++;
  return k;
}

/* Fills the shape of one operand of the tiled kernel. */
static void operand_shape(operand *o, const geometry *g, int mn,
                          int kcontig, int kmajor, int read_vec, int pad,
                          const tn_swizzle *sw)
{
  o->mn = mn;
  o->kcontig = kcontig;
  o->kmajor = kmajor;
  o->copy = kcontig != kmajor;
  o->cl = kcontig ? g->bk : mn;
  o->slots = mn * g->bk / 4;
  o->iters = (o->slots + g->threads - 1) / g->threads;
  o->rows = kmajor ? g->bk : mn;
  o->width = kmajor ? mn : g->bk;
  o->pad = pad;
  o->elems = o->rows * (o->width + pad);
  /* reads: k-major runs of VM (VN) floats, else float4 along k; stores:
   * float4 when copying, floats when transposing */
  o->vec = kmajor ? read_vec : 4;
  if (o->copy && o->vec < 4)
    o->vec = 4;
  o->sw = *sw;
}

static void geometry_of(const tn_params *p, const tn_problem *prob,
                        geometry *g)
{
  memset(g, 0, sizeof(*g));
  g->kernel = (int)p->v[P_KERNEL].i;
  g->bm = (int)p->v[P_BM].i;
  g->bn = (int)p->v[P_BN].i;
  g->bk = (int)p->v[P_BK].i;
  g->tm = (int)p->v[P_TM].i;
  g->tn = (int)p->v[P_TN].i;
  g->lm = (int)p->v[P_LANES_M].i;
  g->ln = 32 / g->lm;
  g->wm = g->lm * g->tm;
  g->wn = g->ln * g->tn;
  g->m = prob->size.dims[0];
  g->n = prob->size.dims[1];
  g->k = prob->size.dims[2];
  if (g->kernel == 0) {
    int tile = g->bm, pa = (int)p->v[P_PAD_A].i;
    const tn_swizzle *sa = &p->v[P_SWIZZLE_A].sw;
    /* TILE x TILE x TILE tiles, one output per thread */
    g->bn = g->bk = tile;
    g->tm = g->tn = 1;
    g->threads = tile * tile;
    g->stages = 1;
    /* the widest load of an As row the padding (and swizzle) keep
     * aligned; the same rule prepare() resolves the swizzle with */
    g->tb_vec = 4;
    while (g->tb_vec > 1 && (tile + pa) % g->tb_vec != 0)
      g->tb_vec /= 2;
    if (sa->kind == TN_SWZ_CUTE && sa->b > 0)
      while (g->tb_vec > (1 << sa->m))
        g->tb_vec /= 2;
    g->op[0].rows = g->op[0].width = tile;
    g->op[0].pad = pa;
    g->op[0].elems = tile * (tile + pa);
    g->op[0].vec = g->tb_vec;
    g->op[0].sw = *sa;
    g->op[1].rows = g->op[1].width = tile;
    g->op[1].pad = (int)p->v[P_PAD_B].i;
    g->op[1].elems = tile * (tile + g->op[1].pad);
    g->op[1].vec = 1;
    g->op[1].base = g->op[0].elems;
    g->op[1].sw = p->v[P_SWIZZLE_B].sw;
    g->smem_bytes = 4LL * (g->op[0].elems + g->op[1].elems);
    return;
  }
  g->threads = (g->bm / g->tm) * (g->bn / g->tn);
  g->stages = p->v[P_PIPELINE].i ? 2 : 1;
  g->vm = g->tm < 4 ? g->tm : 4;
  g->vn = g->tn < 4 ? g->tn : 4;
  g->warps_n = g->bn / g->wn;
  g->tb_vec = 1;
  operand_shape(&g->op[0], g, g->bm, !prob->trans_a,
                (int)p->v[P_A_KMAJOR].i, g->vm, (int)p->v[P_PAD_A].i,
                &p->v[P_SWIZZLE_A].sw);
  operand_shape(&g->op[1], g, g->bn, prob->trans_b != 0,
                (int)p->v[P_B_KMAJOR].i, g->vn, (int)p->v[P_PAD_B].i,
                &p->v[P_SWIZZLE_B].sw);
  g->op[0].base = 0;
  g->op[1].base = g->stages * g->op[0].elems;
  g->smem_bytes = 4LL * g->stages * (g->op[0].elems + g->op[1].elems);
}

/* Resolves the swizzle of a shared array whose accesses are up to `vec`
 * floats wide: "xor" permutes vec-float chunks (column chunk ^= row), so it
 * never splits a vector access; every swizzle must keep vec-float chunks
 * whole (M >= log2 vec) and stay inside the tile.  Returns 0 or 1 (why). */
static int resolve_swizzle(tn_swizzle *sw, const char *pname, int rows,
                           int width, int vec, char *why, size_t n)
{
  char buf[32];
  int lv = log2i(vec);
  if (sw->kind == TN_SWZ_XOR) {
    if (tn_swizzle_resolve(sw, width / vec, 4 * vec, why, n) != 0)
      return 1;
    if (sw->b == 0) {
      snprintf(why, n,
               "%s xor has nothing to permute: rows of %d floats are one "
               "%d-float chunk",
               pname, width, vec);
      return 1;
    }
    sw->m += lv;
  } else if (tn_swizzle_resolve(sw, width, 4, why, n) != 0) {
    return 1;
  }
  if (sw->b == 0)
    return 0;
  if (sw->m < lv) {
    snprintf(why, n,
             "%s %s splits the %d-float accesses of its array (needs "
             "M >= %d)",
             pname, tn_swizzle_name(sw, buf, sizeof(buf)), vec, lv);
    return 1;
  }
  if (((long long)rows * width) % (1LL << (sw->m + sw->b)) != 0 ||
      sw->m + sw->b + sw->s > 24) {
    snprintf(why, n, "%s %s spans more than the %dx%d tile", pname,
             tn_swizzle_name(sw, buf, sizeof(buf)), rows, width);
    return 1;
  }
  return 0;
}

static int prepare_textbook(tn_params *p, char *why, size_t n)
{
  static const int unused[] = {P_BN,      P_BK,       P_TM,
                               P_TN,      P_LANES_M,  P_A_KMAJOR,
                               P_B_KMAJOR, P_PIPELINE, P_MIN_BLOCKS};
  long long tile = p->v[P_BM].i;
  int i, vec, pa = (int)p->v[P_PAD_A].i;

  if (!is_pow2(tile) || tile > 32) {
    snprintf(why, n, "the textbook kernel has TILE x TILE threads: TILE = "
                     "bm = %lld must be 8, 16 or 32", tile);
    return 1;
  }
  /* It uses bm (TILE), the pads and the swizzles.  The others stay at
   * their defaults, so the space holds each textbook kernel once (a
   * cross product with the tiled kernel's values would repeat it). */
  for (i = 0; i < (int)(sizeof(unused) / sizeof(unused[0])); i++) {
    if (p->v[unused[i]].i != params[unused[i]].def) {
      snprintf(why, n,
               "the textbook kernel (kernel = 0) does not use %s; it must "
               "keep its default %lld",
               params[unused[i]].name, params[unused[i]].def);
      return 1;
    }
  }
  vec = 4;
  while (vec > 1 && (tile + pa) % vec != 0)
    vec /= 2;
  if (p->v[P_SWIZZLE_A].sw.kind == TN_SWZ_CUTE && p->v[P_SWIZZLE_A].sw.b > 0)
    while (vec > (1 << p->v[P_SWIZZLE_A].sw.m))
      vec /= 2;
  if (resolve_swizzle(&p->v[P_SWIZZLE_A].sw, "swizzle_a", (int)tile,
                      (int)tile, vec, why, n) != 0 ||
      resolve_swizzle(&p->v[P_SWIZZLE_B].sw, "swizzle_b", (int)tile,
                      (int)tile, 1, why, n) != 0)
    return 1;
  return 0;
}

static int prepare_tiled(tn_params *p, const tn_problem *prob, char *why,
                         size_t n)
{
  geometry g;
  long long bm = p->v[P_BM].i, bn = p->v[P_BN].i, bk = p->v[P_BK].i;
  long long tm = p->v[P_TM].i, tn = p->v[P_TN].i;
  long long lm = p->v[P_LANES_M].i, wm, wn, threads;
  int i;

  if (!is_pow2(bm) || !is_pow2(bn) || !is_pow2(bk) || !is_pow2(tm) ||
      !is_pow2(tn)) {
    snprintf(why, n, "bm, bn, bk, tm and tn must be powers of two");
    return 1;
  }
  if (bm < 16 || bn < 16) {
    snprintf(why, n, "bm and bn must be at least 16");
    return 1;
  }
  if (32 % lm != 0) {
    snprintf(why, n, "lanes_m %lld does not divide the 32 lanes of a warp",
             lm);
    return 1;
  }
  wm = lm * tm;
  wn = (32 / lm) * tn;
  if (bm % wm != 0 || bn % wn != 0) {
    snprintf(why, n, "the warp tile %lldx%lld does not divide the block "
                     "tile %lldx%lld", wm, wn, bm, bn);
    return 1;
  }
  threads = (bm / tm) * (bn / tn);
  if (threads > 1024) {
    snprintf(why, n, "%lld threads per block (over 1024)", threads);
    return 1;
  }
  if (tm * tn > 128) {
    snprintf(why, n, "a %lldx%lld thread tile needs more than the 255 "
                     "registers a thread has", tm, tn);
    return 1;
  }
  if (p->v[P_MIN_BLOCKS].i > 0 && threads * p->v[P_MIN_BLOCKS].i > 2048) {
    snprintf(why, n, "min_blocks %lld of %lld threads exceed 2048 threads "
                     "per SM", p->v[P_MIN_BLOCKS].i, threads);
    return 1;
  }
  geometry_of(p, prob, &g);
  for (i = 0; i < 2; i++) {
    const operand *o = &g.op[i];
    const char *arr = i ? "Bs" : "As";
    if (o->pad % o->vec != 0) {
      snprintf(why, n,
               "pad_%c %d breaks the %d-byte alignment of the accesses of "
               "%s (use a multiple of %d)",
               i ? 'b' : 'a', o->pad, 4 * o->vec, arr, o->vec);
      return 1;
    }
    if (resolve_swizzle(&p->v[i ? P_SWIZZLE_B : P_SWIZZLE_A].sw,
                        i ? "swizzle_b" : "swizzle_a", o->rows, o->width,
                        o->vec, why, n) != 0)
      return 1;
  }
  return 0;
}

static int prepare(tn_params *p, const tn_problem *prob, char *why, size_t n)
{
  long long m = prob->size.dims[0], nn = prob->size.dims[1];
  long long k = prob->size.dims[2], bm = p->v[P_BM].i;
  int rc;

  if (m > 2147483647LL - 1024 || nn > 2147483647LL - 1024 ||
      k > 2147483647LL - 1024) {
    snprintf(why, n, "dimensions beyond 2^31 - 1024 overflow int indices");
    return 1;
  }
  rc = p->v[P_KERNEL].i == 0 ? prepare_textbook(p, why, n)
                             : prepare_tiled(p, prob, why, n);
  if (rc)
    return rc;
  if ((m + bm - 1) / bm > 65535) {
    snprintf(why, n, "%lld rows need more than 65535 blocks of %lld", m,
             bm);
    return 1;
  }
  return 0;
}

static void launch(const tn_params *p, const tn_problem *prob, tn_launch *l)
{
  geometry g;
  geometry_of(p, prob, &g);
  memset(l, 0, sizeof(*l));
  l->grid[0] = (unsigned)((g.n + g.bn - 1) / g.bn);
  l->grid[1] = (unsigned)((g.m + g.bm - 1) / g.bm);
  l->grid[2] = 1;
  if (g.kernel == 0) {
    l->block[0] = (unsigned)g.bm;
    l->block[1] = (unsigned)g.bm;
  } else {
    l->block[0] = (unsigned)g.threads;
    l->block[1] = 1;
  }
  l->block[2] = 1;
  l->threads = g.threads;
  if (g.smem_bytes > STATIC_SMEM_MAX)
    l->smem_dynamic = (int)g.smem_bytes;
  else
    l->smem_static = (int)g.smem_bytes;
}

static void defines(const tn_params *p, const tn_problem *prob,
                    tn_defines *d)
{
  geometry g;
  geometry_of(p, prob, &g);
  tn_defines_add(d, "TN_TRANS_A", "%d", prob->trans_a ? 1 : 0);
  tn_defines_add(d, "TN_TRANS_B", "%d", prob->trans_b ? 1 : 0);
  tn_defines_add(d, "TN_THREADS", "%d", g.threads);
  tn_defines_add(d, "TN_DYNAMIC_SMEM", "%d",
                 g.smem_bytes > STATIC_SMEM_MAX ? 1 : 0);
  tn_defines_add(d, "TN_TB_VEC", "%d", g.tb_vec);
}

/* ---- The access plan. ---- */

static uint32_t byte_addr(const operand *o, int buffer, int row, int col)
{
  int off = tn_smem_offset(row, col, o->width, o->pad, o->sw.b, o->sw.m,
                           o->sw.s);
  return 4u * (uint32_t)(o->base + buffer * o->elems + off);
}

static void access_init(tn_warp_access *a, tn_op op, int width)
{
  memset(a, 0, sizeof(*a));
  a->op = op;
  a->width = width;
}

/* The textbook kernel: per warp and tile, the stores As[ty][tx] and
 * Bs[ty][tx], then for every k step a load of tb_vec floats of As row ty
 * and a 4-byte load Bs[k][tx]. */
static void plan_textbook(const geometry *g, long long times,
                          tn_access_sink *sink)
{
  const operand *A = &g->op[0], *B = &g->op[1];
  int tile = g->bm, w, lane, k;

  for (w = 0; w * 32 < g->threads; w++) {
    tn_warp_access sa, sb;
    access_init(&sa, TN_OP_ST, 4);
    access_init(&sb, TN_OP_ST, 4);
    for (lane = 0; lane < 32 && w * 32 + lane < g->threads; lane++) {
      int t = w * 32 + lane, tx = t % tile, ty = t / tile;
      sa.addr[lane] = byte_addr(A, 0, ty, tx);
      sb.addr[lane] = byte_addr(B, 0, ty, tx);
      sa.active |= 1u << lane;
    }
    sb.active = sa.active;
    tn_sink_access(sink, &sa, times);
    tn_sink_access(sink, &sb, times);
    for (k = 0; k < tile; k++) {
      tn_warp_access la, lb;
      access_init(&la, TN_OP_LD, 4 * g->tb_vec);
      access_init(&lb, TN_OP_LD, 4);
      for (lane = 0; lane < 32 && w * 32 + lane < g->threads; lane++) {
        int t = w * 32 + lane, tx = t % tile, ty = t / tile;
        la.addr[lane] = byte_addr(A, 0, ty, k - k % g->tb_vec);
        lb.addr[lane] = byte_addr(B, 0, k, tx);
        lb.active |= 1u << lane;
      }
      la.active = lb.active;
      if (k % g->tb_vec == 0)
        tn_sink_access(sink, &la, times);
      tn_sink_access(sink, &lb, times);
    }
  }
}

/* The stores of one operand's tile by warp w into buffer `buffer`.  A
 * cp.async copy (pipeline 2) is planned as the 16-byte store of its shared
 * side, not with the cp.async rule of model_async.c: inside a running GEMM
 * Nsight Compute counts a copy's wavefronts by when its data arrives, not
 * by its addresses alone (the same copy counted 4 where alone it counts 8,
 * copies of one shape in one kernel 7 and 17: results/model-validation/
 * README.md); the store's count is what ncu showed on 80 of the 128 GEMM
 * launches with cp.async measured there. */
static void plan_tile_stores(const geometry *g, const operand *o, int w,
                             int buffer, long long times,
                             tn_access_sink *sink)
{
  int it, e, lane;
  for (it = 0; it < o->iters; it++) {
    tn_warp_access st[4];
    for (e = 0; e < 4; e++)
      access_init(&st[e], TN_OP_ST, o->copy ? 16 : 4);
    for (lane = 0; lane < 32; lane++) {
      int s = it * g->threads + w * 32 + lane;
      int oo = s / (o->cl / 4), c = 4 * (s % (o->cl / 4));
      if (s >= o->slots)
        continue;
      for (e = 0; e < (o->copy ? 1 : 4); e++) {
        st[e].addr[lane] = o->copy ? byte_addr(o, buffer, oo, c)
                                   : byte_addr(o, buffer, c + e, oo);
        st[e].active |= 1u << lane;
      }
    }
    for (e = 0; e < (o->copy ? 1 : 4); e++)
      if (st[e].active)
        tn_sink_access(sink, &st[e], times);
  }
}

/* The fragment loads of one operand by warp w from buffer `buffer`:
 * w0 is the warp's first row (A) or column (B) in the tile, lanes along
 * this operand's dimension are lane / div % mod, t is tm (tn), v is vm
 * (vn), lanes_dim lm (ln). */
static void plan_fragment_loads(const geometry *g, const operand *o, int w0,
                                int div, int mod, int t, int v,
                                int lanes_dim, int buffer, long long times,
                                tn_access_sink *sink)
{
  int k, i, lane;
  if (o->kmajor) {
    for (k = 0; k < g->bk; k++) {
      for (i = 0; i < t / v; i++) {
        tn_warp_access a;
        access_init(&a, TN_OP_LD, 4 * v);
        a.active = 0xffffffffu;
        for (lane = 0; lane < 32; lane++) {
          int l = lane / div % mod;
          a.addr[lane] = byte_addr(o, buffer, k, w0 + i * lanes_dim * v +
                                                     l * v);
        }
        tn_sink_access(sink, &a, times);
      }
    }
  } else {
    for (k = 0; k < g->bk; k += 4) {
      for (i = 0; i < t; i++) {
        tn_warp_access a;
        access_init(&a, TN_OP_LD, 16);
        a.active = 0xffffffffu;
        for (lane = 0; lane < 32; lane++) {
          int l = lane / div % mod;
          int r = w0 + (i / v) * lanes_dim * v + l * v + i % v;
          a.addr[lane] = byte_addr(o, buffer, r, k);
        }
        tn_sink_access(sink, &a, times);
      }
    }
  }
}

static void plan(const tn_params *p, const tn_problem *prob,
                 tn_access_sink *sink)
{
  geometry g;
  long long blocks, ktiles, per_buffer[2];
  int w, b;

  geometry_of(p, prob, &g);
  blocks = ((g.m + g.bm - 1) / g.bm) * ((g.n + g.bn - 1) / g.bn);
  ktiles = (g.k + g.bk - 1) / g.bk;
  if (g.kernel == 0) {
    plan_textbook(&g, blocks * ktiles, sink);
    return;
  }
  /* tile t is stored into and read from buffer t % stages */
  per_buffer[0] = g.stages == 2 ? (ktiles + 1) / 2 : ktiles;
  per_buffer[1] = g.stages == 2 ? ktiles / 2 : 0;
  for (b = 0; b < g.stages; b++) {
    long long times = blocks * per_buffer[b];
    for (w = 0; w < g.threads / 32; w++) {
      int wr = (w / g.warps_n) * g.wm, wc = (w % g.warps_n) * g.wn;
      plan_tile_stores(&g, &g.op[0], w, b, times, sink);
      plan_tile_stores(&g, &g.op[1], w, b, times, sink);
      /* lane = lr * ln + lc */
      plan_fragment_loads(&g, &g.op[0], wr, g.ln, g.lm, g.tm, g.vm, g.lm, b,
                          times, sink);
      plan_fragment_loads(&g, &g.op[1], wc, 1, g.ln, g.tn, g.vn, g.ln, b,
                          times, sink);
    }
  }
}

/* ---- Worker side. ---- */

enum { BUF_A, BUF_B, BUF_C };

static int buffers(const tn_problem *prob, tn_buffer_desc *out)
{
  size_t m = (size_t)prob->size.dims[0], n = (size_t)prob->size.dims[1];
  size_t k = (size_t)prob->size.dims[2];
  out[BUF_A].name = "A";
  out[BUF_A].bytes = m * k * 4;
  out[BUF_A].role = TN_BUF_IN;
  out[BUF_B].name = "B";
  out[BUF_B].bytes = k * n * 4;
  out[BUF_B].role = TN_BUF_IN;
  out[BUF_C].name = "C";
  out[BUF_C].bytes = m * n * 4;
  /* beta == 0 must not read C: poisoned with NaN, a read shows */
  out[BUF_C].role = prob->beta == 0.0 ? TN_BUF_OUT : TN_BUF_INOUT;
  return 3;
}

static void args(const tn_problem *prob, const tn_devptr *bufs, tn_args *a)
{
  int m = (int)prob->size.dims[0], n = (int)prob->size.dims[1];
  int k = (int)prob->size.dims[2];
  float alpha = (float)prob->alpha, beta = (float)prob->beta;
  tn_args_add(a, &bufs[BUF_A], sizeof(bufs[BUF_A]));
  tn_args_add(a, &bufs[BUF_B], sizeof(bufs[BUF_B]));
  tn_args_add(a, &bufs[BUF_C], sizeof(bufs[BUF_C]));
  tn_args_add(a, &m, sizeof(m));
  tn_args_add(a, &n, sizeof(n));
  tn_args_add(a, &k, sizeof(k));
  tn_args_add(a, &alpha, sizeof(alpha));
  tn_args_add(a, &beta, sizeof(beta));
}

/* The reference: fp64 sums of a * b and |a| * |b| in k order (exact
 * products, so the host can reproduce them), ref and absref per element,
 * and the comparison with the candidate's C on the spot.  Each block of
 * 16 x 16 threads does a 64 x 64 tile of C (4 x 4 per thread) and writes 6
 * doubles: bad elements, the worst error / bound, its index, ref, bound
 * and c there.  ref[] keeps every reference value for the host's check. */
#define REF_TILE 64
#define REF_STATS 6
static const char reference_source[] =
    "#define RT 16\n"
    "#define RW 4\n"
    "#define RB (RT * RW)\n"
    "#define RK 16\n"
    "extern \"C\" __global__ void __launch_bounds__(RT * RT)\n"
    "tn_gemm_ref(const float *A, const float *B, const float *C0,\n"
    "            const float *C, double *ref, double *stats, int M, int N,\n"
    "            int K, int trans_a, int trans_b, double alpha,\n"
    "            double beta)\n"
    "{\n"
    "  __shared__ double sa[RK][RB + 1], sb[RK][RB + 1];\n"
    "  __shared__ double r_bad[RT * RT], r_ratio[RT * RT], r_idx[RT * RT];\n"
    "  __shared__ double r_ref[RT * RT], r_tol[RT * RT], r_c[RT * RT];\n"
    "  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * RT + tx;\n"
    "  const int m0 = blockIdx.y * RB, n0 = blockIdx.x * RB;\n"
    "  double s[RW][RW], u[RW][RW];\n"
    "  for (int i = 0; i < RW; i++)\n"
    "    for (int j = 0; j < RW; j++)\n"
    "      s[i][j] = u[i][j] = 0.0;\n"
    "  for (int k0 = 0; k0 < K; k0 += RK) {\n"
    "    for (int e = t; e < RB * RK; e += RT * RT) {\n"
    "      int am = m0 + e / RK, ak = k0 + e % RK;\n"
    "      int bk = k0 + e / RB, bn = n0 + e % RB;\n"
    "      float a = 0.0f, b = 0.0f;\n"
    "      if (am < M && ak < K)\n"
    "        a = trans_a ? A[(size_t)ak * M + am] : A[(size_t)am * K + ak];\n"
    "      if (bk < K && bn < N)\n"
    "        b = trans_b ? B[(size_t)bn * K + bk] : B[(size_t)bk * N + bn];\n"
    "      sa[e % RK][e / RK] = a;\n"
    "      sb[e / RB][e % RB] = b;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (int kk = 0; kk < RK; kk++) {\n"
    "      double a[RW], b[RW];\n"
    "      for (int i = 0; i < RW; i++)\n"
    "        a[i] = sa[kk][ty + RT * i];\n"
    "      for (int j = 0; j < RW; j++)\n"
    "        b[j] = sb[kk][tx + RT * j];\n"
    "      for (int i = 0; i < RW; i++)\n"
    "        for (int j = 0; j < RW; j++) {\n"
    "          s[i][j] += a[i] * b[j];\n"
    "          u[i][j] += fabs(a[i]) * fabs(b[j]);\n"
    "        }\n"
    "    }\n"
    "    __syncthreads();\n"
    "  }\n"
    "  double bad = 0.0, worst = -1.0, widx = -1.0, wref = 0.0, wtol = 0.0;\n"
    "  double wc = 0.0;\n"
    "  const double inf = __longlong_as_double(0x7ff0000000000000LL);\n"
    "  for (int i = 0; i < RW; i++)\n"
    "    for (int j = 0; j < RW; j++) {\n"
    "      int m = m0 + ty + RT * i, n = n0 + tx + RT * j;\n"
    "      if (m >= M || n >= N)\n"
    "        continue;\n"
    "      size_t idx = (size_t)m * N + n;\n"
    "      double c0 = beta != 0.0 ? (double)C0[idx] : 0.0;\n"
    "      double r = alpha * s[i][j] + beta * c0;\n"
    "      double tol = (K + 2.0) * 5.9604644775390625e-08 *\n"
    "                       (fabs(alpha) * u[i][j] + fabs(beta) * fabs(c0))\n"
    "                   + 1e-30;\n"
    "      double c = (double)C[idx], err = fabs(c - r);\n"
    "      double ratio = err <= tol ? err / tol : inf;\n"
    "      if (!(err <= tol)) {\n"
    "        bad += 1.0;\n"
    "        if (err == err && err < inf)\n"
    "          ratio = err / tol;\n"
    "      }\n"
    "      ref[idx] = r;\n"
    "      if (ratio > worst) {\n"
    "        worst = ratio;\n"
    "        widx = (double)idx;\n"
    "        wref = r;\n"
    "        wtol = tol;\n"
    "        wc = c;\n"
    "      }\n"
    "    }\n"
    "  r_bad[t] = bad;\n"
    "  r_ratio[t] = worst;\n"
    "  r_idx[t] = widx;\n"
    "  r_ref[t] = wref;\n"
    "  r_tol[t] = wtol;\n"
    "  r_c[t] = wc;\n"
    "  __syncthreads();\n"
    "  for (int h = RT * RT / 2; h > 0; h /= 2) {\n"
    "    if (t < h) {\n"
    "      r_bad[t] += r_bad[t + h];\n"
    "      if (r_ratio[t + h] > r_ratio[t]) {\n"
    "        r_ratio[t] = r_ratio[t + h];\n"
    "        r_idx[t] = r_idx[t + h];\n"
    "        r_ref[t] = r_ref[t + h];\n"
    "        r_tol[t] = r_tol[t + h];\n"
    "        r_c[t] = r_c[t + h];\n"
    "      }\n"
    "    }\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (t == 0) {\n"
    "    double *o = stats + 6 * ((size_t)blockIdx.y * gridDim.x +\n"
    "                             blockIdx.x);\n"
    "    o[0] = r_bad[0];\n"
    "    o[1] = r_ratio[0];\n"
    "    o[2] = r_idx[0];\n"
    "    o[3] = r_ref[0];\n"
    "    o[4] = r_tol[0];\n"
    "    o[5] = r_c[0];\n"
    "  }\n"
    "}\n";

static float elem_a(const tn_problem *prob, const float *a, long long m,
                    long long k)
{
  long long M = prob->size.dims[0], K = prob->size.dims[2];
  return prob->trans_a ? a[k * M + m] : a[m * K + k];
}

static float elem_b(const tn_problem *prob, const float *b, long long k,
                    long long n)
{
  long long N = prob->size.dims[1], K = prob->size.dims[2];
  return prob->trans_b ? b[n * K + k] : b[k * N + n];
}

/* Checks the GPU reference against the host at `count` positions (the four
 * corners first, then pseudo-random ones).  Returns 0, or -1 with why. */
static int check_reference(tn_verify_env *env, tn_devptr ref, int count,
                           char *why, size_t n)
{
  const tn_problem *prob = env->problem;
  const float *a = env->host[BUF_A], *b = env->host[BUF_B];
  const float *c0 = env->host_init[BUF_C];
  long long M = prob->size.dims[0], N = prob->size.dims[1];
  long long K = prob->size.dims[2];
  uint64_t state = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(M * 31 + N * 7 + K);
  int i;

  if (prob->beta != 0.0 && c0 == NULL) {
    snprintf(why, n, "gemm: the worker kept no starting values of C");
    return -1;
  }
  for (i = 0; i < count; i++) {
    long long m, nn, k, idx;
    double s = 0.0, u = 0.0, r, absr, dev;
    if (i < 4) {
      m = (i & 1) ? M - 1 : 0;
      nn = (i & 2) ? N - 1 : 0;
    } else {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      m = (long long)((state >> 33) % (uint64_t)M);
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      nn = (long long)((state >> 33) % (uint64_t)N);
    }
    for (k = 0; k < K; k++) {
      double x = elem_a(prob, a, m, k), y = elem_b(prob, b, k, nn);
      s += x * y;
      u += fabs(x) * fabs(y);
    }
    idx = m * N + nn;
    r = prob->alpha * s;
    absr = fabs(prob->alpha) * u;
    if (prob->beta != 0.0) {
      r += prob->beta * (double)c0[idx];
      absr += fabs(prob->beta) * fabs((double)c0[idx]);
    }
    if (env->download(env, &dev, ref + (tn_devptr)idx * 8, 8) != 0) {
      snprintf(why, n, "gemm: reading the reference back failed");
      return -1;
    }
    /* both sum exact products in k order: only the last roundings differ */
    if (!(fabs(dev - r) <= (K + 2) * ldexp(1.0, -50) * absr + 1e-300)) {
      snprintf(why, n,
               "gemm: the GPU reference disagrees with the host at "
               "C[%lld][%lld]: %.17g against %.17g",
               m, nn, dev, r);
      return -1;
    }
  }
  return 0;
}

static int verify(tn_verify_env *env, char *why, size_t n)
{
  const tn_problem *prob = env->problem;
  int M = (int)prob->size.dims[0], N = (int)prob->size.dims[1];
  int K = (int)prob->size.dims[2];
  int ta = prob->trans_a ? 1 : 0, tb = prob->trans_b ? 1 : 0;
  double alpha = prob->alpha, beta = prob->beta;
  unsigned grid[3], block[3] = {16, 16, 1};
  tn_devptr ref, stats, c0 = beta != 0.0 ? env->dev_init[BUF_C] : 0;
  size_t nblocks, i, worst = 0;
  double *st = NULL, bad = 0.0;
  tn_args a;
  int rc = -1;

  grid[0] = (unsigned)((N + REF_TILE - 1) / REF_TILE);
  grid[1] = (unsigned)((M + REF_TILE - 1) / REF_TILE);
  grid[2] = 1;
  nblocks = (size_t)grid[0] * grid[1];
  if (beta != 0.0 && c0 == 0) {
    snprintf(why, n, "gemm: no device copy of C's starting values");
    return -1;
  }
  if (env->alloc(env, (size_t)M * (size_t)N * 8, &ref) != 0 ||
      env->alloc(env, nblocks * REF_STATS * 8, &stats) != 0) {
    snprintf(why, n, "gemm: no device memory for the reference");
    return -1;
  }
  memset(&a, 0, sizeof(a));
  tn_args_add(&a, &env->dev[BUF_A], sizeof(tn_devptr));
  tn_args_add(&a, &env->dev[BUF_B], sizeof(tn_devptr));
  tn_args_add(&a, &c0, sizeof(c0));
  tn_args_add(&a, &env->dev[BUF_C], sizeof(tn_devptr));
  tn_args_add(&a, &ref, sizeof(ref));
  tn_args_add(&a, &stats, sizeof(stats));
  tn_args_add(&a, &M, sizeof(M));
  tn_args_add(&a, &N, sizeof(N));
  tn_args_add(&a, &K, sizeof(K));
  tn_args_add(&a, &ta, sizeof(ta));
  tn_args_add(&a, &tb, sizeof(tb));
  tn_args_add(&a, &alpha, sizeof(alpha));
  tn_args_add(&a, &beta, sizeof(beta));
  if (env->launch(env, "tn_gemm_ref", grid, block, &a) != 0) {
    snprintf(why, n, "gemm: the reference kernel failed to run");
    return -1;
  }
  st = malloc(nblocks * REF_STATS * sizeof(double));
  if (st == NULL) {
    snprintf(why, n, "gemm: out of memory for the reference's results");
    return -1;
  }
  if (env->download(env, st, stats, nblocks * REF_STATS * 8) != 0) {
    snprintf(why, n, "gemm: reading the reference's results failed");
    goto cleanup;
  }
  for (i = 0; i < nblocks; i++) {
    bad += st[i * REF_STATS];
    if (st[i * REF_STATS + 1] > st[worst * REF_STATS + 1])
      worst = i;
  }
  if (check_reference(env, ref, 256, why, n) != 0)
    goto cleanup;
  if (bad == 0.0) {
    rc = 0;
  } else {
    const double *w = st + worst * REF_STATS;
    long long idx = (long long)w[2];
    snprintf(why, n,
             "%.0f of %lld elements off by more than (K + 2) * 2^-24 * "
             "absref; worst C[%lld][%lld] = %.9g, expected %.17g (bound "
             "%.3g, error %.3g x bound)",
             bad, (long long)M * N, idx / N, idx % N, w[5], w[3], w[4],
             w[1]);
    rc = 1;
  }
cleanup:
  free(st);
  return rc;
}

static double work(const tn_problem *prob)
{
  return 2.0 * (double)prob->size.dims[0] * (double)prob->size.dims[1] *
         (double)prob->size.dims[2];
}

static const char *const baselines[] = {"cublas"};

static int baseline(const char *name, tn_baseline_env *env, char *why,
                    size_t n)
{
  const tn_problem *prob = env->problem;
  if (strcmp(name, "cublas") != 0) {
    snprintf(why, n, "gemm has no baseline '%s'", name);
    return -1;
  }
  return tn_cublas_sgemm(env->stream, prob->trans_a, prob->trans_b,
                         (int)prob->size.dims[0], (int)prob->size.dims[1],
                         (int)prob->size.dims[2], (float)prob->alpha,
                         env->dev[BUF_A], env->dev[BUF_B], (float)prob->beta,
                         env->dev[BUF_C], why, n);
}

const tn_family tn_family_gemm = {
    .name = "gemm",
    .kernel = "gemm",
    .summary = "fp32 C = alpha op(A) op(B) + beta C, row-major, any size",
    .params = params,
    .n_params = N_PARAMS,
    .n_dims = 3,
    .dim_names = "M, N, K",
    .has_gemm_options = 1,
    .prepare = prepare,
    .launch = launch,
    .defines = defines,
    .plan = plan,
    .buffers = buffers,
    .args = args,
    .reference_source = reference_source,
    .verify = verify,
    .unit = TN_UNIT_TFLOPS,
    .work = work,
    .baselines = baselines,
    .n_baselines = 1,
    .baseline = baseline,
};

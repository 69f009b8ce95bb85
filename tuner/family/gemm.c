/* gemm.c -- the GEMM family: C = alpha * op(A) * op(B) + beta * C in fp32.
 *
 * Mirrors templates/gemm.cu: the textbook kernel (kernel = 0: TILE x TILE
 * threads, one output each, TILE = bm) and a register-tiled SIMT kernel
 * (kernel = 1: block tile bm x bn x bk, thread tile tm x tn, warps of
 * lanes_m x (32 / lanes_m) threads, As and Bs k-major or not, padding and
 * swizzle for each, one or two shared buffers, cp.async on sm_80+).  The
 * access plan, lane by lane, is in gemm_plan.c.
 *
 * The check (gemm_check.c) runs a fp64 reference on the GPU and accepts an
 * element when |c - ref| <= (K + 2) * 2^-24 * absref, absref =
 * |alpha| * sum |a||b| + |beta||c0|: the error bound of fp32 accumulation
 * in any order, and no more.  The baseline is cuBLAS SGEMM, through the
 * baseline environment's gemm (the worker fills it: tuner/gpu/cublas.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../templates/smem_layout.h"
#include "family/gemm_ref.h"
#include "family/gemm_shape.h"

/* The problem's options beside M, N, K (problem = { trans_a = true; }). */
static const tn_option_desc options[N_OPTIONS] = {
    {"trans_a", TN_OPT_BOOL, 0, 0, 1, "A is stored K x M (op(A) = A^T)",
     NULL, 0},
    {"trans_b", TN_OPT_BOOL, 0, 0, 1, "B is stored N x K (op(B) = B^T)",
     NULL, 0},
    {"alpha", TN_OPT_NUMBER, 1.0, -1e30, 1e30, "the scale of op(A) op(B)",
     NULL, 0},
    {"beta", TN_OPT_NUMBER, 0.0, -1e30, 1e30,
     "the scale of C's starting values (0: C is not read)", NULL, 0},
};

static const tn_param_desc params[N_PARAMS] = {
    {"kernel", TN_PARAM_INT, 0, 0, 1, 1,
     "0: textbook (TILE x TILE threads, one output each, TILE = bm; uses "
     "only bm and the pads and swizzles), 1: register-tiled", 0},
    {"bm", TN_PARAM_INT, 0, 8, 256, 128,
     "block tile rows (of C and op(A)), a power of two", 0},
    {"bn", TN_PARAM_INT, 0, 8, 256, 128, "block tile columns, a power of two", 0},
    {"bk", TN_PARAM_INT, 0, 4, 64, 8, "block tile depth (k), a power of two", 0},
    {"tm", TN_PARAM_INT, 0, 1, 16, 8,
     "thread tile rows in registers, a power of two", 0},
    {"tn", TN_PARAM_INT, 0, 1, 16, 8,
     "thread tile columns in registers, a power of two", 0},
    {"lanes_m", TN_PARAM_INT, 0, 1, 32, 4,
     "lanes of a warp along m (a divisor of 32); the warp tile is "
     "lanes_m * tm x (32 / lanes_m) * tn", 0},
    {"a_kmajor", TN_PARAM_INT, 0, 0, 1, 1,
     "1: As[k][m] (A transposed in shared memory), 0: As[m][k]", 0},
    {"b_kmajor", TN_PARAM_INT, 0, 0, 1, 1, "1: Bs[k][n], 0: Bs[n][k]", 0},
    {"pipeline", TN_PARAM_INT, 0, 0, 3, 2,
     "0: one shared buffer; 1: two, next tile staged in registers; "
     "2: as 1 with cp.async for untransposed copies (sm_80+); 3: a ring "
     "of `stages` buffers the copy engine (TMA) fills (sm_90+)", 0},
    {"min_blocks", TN_PARAM_INT, 0, 0, 8, 0,
     "minimum resident blocks per SM for __launch_bounds__ (0: none)", 0},
    {"pad_a", TN_PARAM_INT, 1, 0, 32, 0,
     "padding elements at the end of each As row", 0},
    {"pad_b", TN_PARAM_INT, 1, 0, 32, 0,
     "padding elements at the end of each Bs row", 0},
    {"swizzle_a", TN_PARAM_SWIZZLE, 1, 0, 0, 0,
     "swizzle of As: none, xor, sw32, sw64, sw128, cute(B,M,S)", 0},
    {"swizzle_b", TN_PARAM_SWIZZLE, 1, 0, 0, 0,
     "swizzle of Bs: none, xor, sw32, sw64, sw128, cute(B,M,S)", 0},
    {"stages", TN_PARAM_INT, 0, 0, 8, 0,
     "pipeline 3: buffers of the ring, 2 to 8 (0 with the other "
     "pipelines)", 1},
    {"producer", TN_PARAM_INT, 0, 0, 1, 0,
     "pipeline 3: 0, thread 0 refills the ring between its products; 1, "
     "a warp of its own does (32 threads more)", 1},
    {"run_m", TN_PARAM_INT, 0, 0, 4, 0,
     "a thread's rows come in runs of run_m adjacent rows, 1, 2 or 4 (at "
     "most tm; 0: the widest, min(tm, 4)); with As k-major, the floats of "
     "one fragment load", 1},
    {"lane_order", TN_PARAM_INT, 0, 0, 1, 0,
     "0: lane = lr * (32 / lanes_m) + lc; 1: the lane's bits dealt to lc "
     "and lr in turn, so that 16-byte fragment loads of both operands "
     "pair (templates/gemm_lanes.h)", 1},
};

/* Resolves the swizzle of a shared array whose accesses are up to `vec`
 * floats wide: "xor" permutes vec-float chunks (column chunk ^= row), so it
 * never splits a vector access; every swizzle must keep vec-float chunks
 * whole (M >= log2 vec) and stay inside the tile.  Returns 0 or 1 (why). */
static int resolve_swizzle(tn_swizzle *sw, const char *pname, int rows,
                           int width, int vec, char *why, size_t n)
{
  char buf[32];
  int lv = tn_log2_ceil(vec);
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
  static const int unused[] = {P_BN,       P_BK,       P_TM,
                               P_TN,       P_LANES_M,  P_A_KMAJOR,
                               P_B_KMAJOR, P_PIPELINE, P_MIN_BLOCKS,
                               P_STAGES,   P_PRODUCER, P_RUN_M,
                               P_LANE_ORDER};
  long long tile = p->v[P_BM].i;
  int i, vec, pa = (int)p->v[P_PAD_A].i;

  if (!tn_is_pow2(tile) || tile > 32) {
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

/* Pipeline 3's tensor maps: A, then B, each over its matrix as stored
 * (innermost first), one box the operand's tile, its swizzle. */
static int tensor_maps(const tn_family *fam, const tn_params *p,
                       const tn_problem *prob, tn_tmap_desc *out)
{
  geometry g;
  int i;
  tn_gemm_geometry(p, prob, &g);
  if (!g.tma)
    return 0;
  for (i = 0; i < 2; i++) {
    const operand *o = &g.op[i];
    /* the stored matrix: A is M x K (K x M transposed), B K x N (N x K) */
    long long mn = i ? g.n : g.m;
    tn_tmap_desc *d = &out[i];
    memset(d, 0, sizeof(*d));
    d->buffer = i ? BUF_B : BUF_A;
    d->elem = TN_ELEM_F32;
    d->rank = 2;
    d->dims[0] = (unsigned long long)(o->kcontig ? g.k : mn);
    d->dims[1] = (unsigned long long)(o->kcontig ? mn : g.k);
    d->strides[0] = 4ULL * d->dims[0];
    d->box[0] = (unsigned)o->width;
    d->box[1] = (unsigned)o->rows;
    d->swizzle = o->span;
    d->l2_promotion = 256;
  }
  return 2;
}

/* Pipeline 3's rules: what the copy engine writes is the tile as it lies
 * in global memory, unpadded, swizzled by a hardware swizzle or not; the
 * maps must be ones the driver encodes. */
static int prepare_tma(const tn_params *p, const tn_problem *prob,
                       const geometry *g, char *why, size_t n)
{
  tn_tmap_desc maps[TN_MAX_TMAPS];
  int i, nm;
  if (g->stages < 2) {
    snprintf(why, n, "pipeline 3 needs a ring of 2 to 8 stages (stages = "
                     "%d)", g->stages);
    return 1;
  }
  for (i = 0; i < 2; i++) {
    const operand *o = &g->op[i];
    const tn_swizzle *sw = &p->v[i ? P_SWIZZLE_B : P_SWIZZLE_A].sw;
    char x = i ? 'b' : 'a';
    if (!o->copy) {
      snprintf(why, n,
               "pipeline 3: the copy engine writes %s's tile as it lies "
               "in global memory, so %c_kmajor must be %d",
               i ? "B" : "A", x, !o->kcontig);
      return 1;
    }
    if (o->pad != 0) {
      snprintf(why, n, "pipeline 3: the copy engine writes tiles without "
                       "padding (pad_%c = %d)", x, o->pad);
      return 1;
    }
    if (tn_swizzle_tma_span(sw) < 0) {
      snprintf(why, n, "pipeline 3: the copy engine swizzles as sw32, sw64 "
                       "or sw128 only (swizzle_%c)", x);
      return 1;
    }
    /* a span that is not the row would take boxes of one span each and
     * addresses the compiler cannot fold: 200 registers and more */
    if (o->span != 0 && o->span != 4 * o->width) {
      snprintf(why, n,
               "pipeline 3: swizzle_%c's %d-byte span is not %s's rows of "
               "%d bytes (sw32 takes rows of 8 floats, sw64 16, sw128 32)",
               x, o->span, i ? "Bs" : "As", 4 * o->width);
      return 1;
    }
  }
  nm = tensor_maps(NULL, p, prob, maps);
  for (i = 0; i < nm; i++)
    if (tn_tmap_check(&maps[i], why, n) != 0)
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

  if (!tn_is_pow2(bm) || !tn_is_pow2(bn) || !tn_is_pow2(bk) || !tn_is_pow2(tm) ||
      !tn_is_pow2(tn)) {
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
  if (p->v[P_RUN_M].i != 0 &&
      (!tn_is_pow2(p->v[P_RUN_M].i) || p->v[P_RUN_M].i > tm)) {
    snprintf(why, n, "run_m %lld: runs of 1, 2 or 4 rows, at most tm = %lld",
             p->v[P_RUN_M].i, tm);
    return 1;
  }
  /* so that the space does not hold one kernel twice */
  if (p->v[P_RUN_M].i == (tm < 4 ? tm : 4)) {
    snprintf(why, n, "run_m %lld is the default for tm = %lld: the space "
                     "holds it as run_m = 0", p->v[P_RUN_M].i, tm);
    return 1;
  }
  if (p->v[P_MIN_BLOCKS].i > 0 && threads * p->v[P_MIN_BLOCKS].i > 2048) {
    snprintf(why, n, "min_blocks %lld of %lld threads exceed 2048 threads "
                     "per SM", p->v[P_MIN_BLOCKS].i, threads);
    return 1;
  }
  tn_gemm_geometry(p, prob, &g);
  if (g.tma) {
    if (prepare_tma(p, prob, &g, why, n) != 0)
      return 1;
  } else if (p->v[P_STAGES].i != 0 || p->v[P_PRODUCER].i != 0) {
    snprintf(why, n, "stages and producer are pipeline 3's ring; pipeline "
                     "%lld must keep them at 0", p->v[P_PIPELINE].i);
    return 1;
  }
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

static int prepare(const tn_family *fam, tn_params *p, const tn_problem *prob,
                   char *why, size_t n)
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
  {
    /* the plan counts the launch's accesses in long long: block tiles
     * times k-tiles up to 2^40 (each step a few 2^20 wavefronts at most)
     * stay far below 2^63; past that, the launch would also run for days */
    long long bn = p->v[P_BN].i, bk = p->v[P_BK].i, steps;
    if (p->v[P_KERNEL].i == 0)
      bn = bk = bm;
    if (__builtin_mul_overflow((m + bm - 1) / bm, (nn + bn - 1) / bn,
                               &steps) ||
        __builtin_mul_overflow(steps, (k + bk - 1) / bk, &steps) ||
        steps > (1LL << 40)) {
      snprintf(why, n,
               "%lld x %lld x %lld is more than 2^40 block-tile steps of "
               "%lld x %lld x %lld: too large to model",
               m, nn, k, bm, bn, bk);
      return 1;
    }
  }
  return 0;
}

/* The shared array as the template declares it: pipeline 3's tiles from
 * a 1024-byte boundary it finds itself (1024 bytes of slack), the ring's
 * barriers after them; dynamic past 48 KiB. */
static long long array_bytes(const geometry *g)
{
  return g->smem_bytes + (g->tma ? 1024 + g->bar_bytes : 0);
}

static int dynamic_smem(const geometry *g)
{
  return array_bytes(g) > STATIC_SMEM_MAX;
}

static void launch(const tn_family *fam, const tn_params *p,
                   const tn_problem *prob, tn_launch *l)
{
  geometry g;
  tn_gemm_geometry(p, prob, &g);
  memset(l, 0, sizeof(*l));
  l->grid[0] = (unsigned)((g.n + g.bn - 1) / g.bn);
  l->grid[1] = (unsigned)((g.m + g.bm - 1) / g.bm);
  l->grid[2] = 1;
  if (g.kernel == 0) {
    l->block[0] = (unsigned)g.bm;
    l->block[1] = (unsigned)g.bm;
  } else {
    l->block[0] = (unsigned)(g.threads + 32 * g.producer);
    l->block[1] = 1;
  }
  l->block[2] = 1;
  l->threads = (int)(l->block[0] * l->block[1]);
  if (dynamic_smem(&g))
    l->smem_dynamic = (int)array_bytes(&g);
  else
    l->smem_static = (int)array_bytes(&g);
  if (g.tma) {
    l->min_cc = 90;
    l->needs = "the copy engine (TMA)";
  }
}

/* One operand's layout values, as TN_A_* or TN_B_*. */
static void operand_defines(const operand *o, char x, tn_defines *d)
{
  char name[32];
#define OPERAND_DEFINE(field, value)                                         \
  do {                                                                       \
    snprintf(name, sizeof(name), "TN_%c_%s", x, field);                      \
    tn_defines_add(d, name, "%d", value);                                    \
  } while (0)
  OPERAND_DEFINE("KCONTIG", o->kcontig);
  OPERAND_DEFINE("COPY", o->copy);
  OPERAND_DEFINE("CL", o->cl);
  OPERAND_DEFINE("SLOTS", o->slots);
  OPERAND_DEFINE("ITERS", o->iters);
  OPERAND_DEFINE("ROWS", o->rows);
  OPERAND_DEFINE("WIDTH", o->width);
  OPERAND_DEFINE("ELEMS", o->elems);
  OPERAND_DEFINE("VEC", o->vec);
  OPERAND_DEFINE("BASE", o->base);
#undef OPERAND_DEFINE
}

/* Every layout value the template reads beyond the parameters, from the
 * geometry the plan walks (tn_gemm_geometry). */
static void defines(const tn_family *fam, const tn_params *p,
                    const tn_problem *prob, tn_defines *d)
{
  geometry g;
  tn_gemm_geometry(p, prob, &g);
  tn_defines_add(d, "TN_TRANS_A", "%d", GEMM_TRANS_A(prob) ? 1 : 0);
  tn_defines_add(d, "TN_TRANS_B", "%d", GEMM_TRANS_B(prob) ? 1 : 0);
  tn_defines_add(d, "TN_THREADS", "%d", g.threads);
  tn_defines_add(d, "TN_DYNAMIC_SMEM", "%d", dynamic_smem(&g));
  tn_defines_add(d, "TN_TB_VEC", "%d", g.tb_vec);
  tn_defines_add(d, "TN_SMEM_FLOATS", "%lld", g.smem_bytes / 4);
  tn_defines_add(d, "TN_BUFFERS", "%d", g.stages);
  operand_defines(&g.op[0], 'A', d);
  operand_defines(&g.op[1], 'B', d);
  if (g.kernel == 0)
    return;
  tn_defines_add(d, "TN_VM", "%d", g.vm);
  tn_defines_add(d, "TN_VN", "%d", g.vn);
  tn_defines_add(d, "TN_LANE_ORDER", "%d", g.lane_order);
  tn_defines_add(d, "TN_LN", "%d", g.ln);
  tn_defines_add(d, "TN_WM", "%d", g.wm);
  tn_defines_add(d, "TN_WN", "%d", g.wn);
  tn_defines_add(d, "TN_WARPS_N", "%d", g.warps_n);
}

/* ---- Worker side. ---- */
static int buffers(const tn_family *fam, const tn_problem *prob,
                   tn_buffer_desc *out)
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
  out[BUF_C].role = GEMM_BETA(prob) == 0.0 ? TN_BUF_OUT : TN_BUF_INOUT;
  return 3;
}

static void args(const tn_family *fam, const tn_params *p,
                 const tn_problem *prob, const tn_devptr *bufs, tn_args *a)
{
  int m = (int)prob->size.dims[0], n = (int)prob->size.dims[1];
  int k = (int)prob->size.dims[2];
  float alpha = (float)GEMM_ALPHA(prob), beta = (float)GEMM_BETA(prob);
  tn_args_add(a, &bufs[BUF_A], sizeof(bufs[BUF_A]));
  tn_args_add(a, &bufs[BUF_B], sizeof(bufs[BUF_B]));
  tn_args_add(a, &bufs[BUF_C], sizeof(bufs[BUF_C]));
  tn_args_add(a, &m, sizeof(m));
  tn_args_add(a, &n, sizeof(n));
  tn_args_add(a, &k, sizeof(k));
  tn_args_add(a, &alpha, sizeof(alpha));
  tn_args_add(a, &beta, sizeof(beta));
}

static double work(const tn_family *fam, const tn_problem *prob)
{
  return 2.0 * (double)prob->size.dims[0] * (double)prob->size.dims[1] *
         (double)prob->size.dims[2];
}

/* The time model's view of a launch: fp32 FMAs over the padded tiles;
 * per thread and k-tile, the global loads of both tiles (an IMAD or two
 * of addressing each, and the stores that put them into shared memory),
 * a barrier or two and the loop; shared loads in the unrolled inner loop
 * have constant offsets, except through a swizzle, which costs three lane
 * ops (shift, and, xor) a load.  DRAM: A, B and C once each (the tiles'
 * re-reads hit L2).  Registers: the accumulators, a column of A and a row
 * of B, the staged next tiles, and some 24 for addresses and the loop.
 * Pipeline 3 has no copies in the threads and no block barrier, but a
 * wait on the buffer's mbarrier and an arrival a warp and k-tile tie the
 * warps as a barrier would (a buffer is refilled once its slowest warp
 * is done with it): one barrier's time a k-tile. */
static void estimate(const tn_family *fam, const tn_params *p,
                     const tn_problem *prob, tn_time_work *w)
{
  geometry g;
  tn_launch l;
  double blocks, ktiles, lanes, per_k, gl, a_ld, b_ld, sw_ops;
  tn_gemm_geometry(p, prob, &g);
  launch(fam, p, prob, &l);
  memset(w, 0, sizeof(*w));
  blocks = (double)l.grid[0] * l.grid[1];
  ktiles = (double)((g.k + g.bk - 1) / g.bk);
  lanes = blocks * g.threads;
  w->fp32_flops = 2.0 * blocks * g.bm * g.bn * ktiles * g.bk;
  w->dram_bytes = 4.0 * ((double)g.m * g.k + (double)g.k * g.n +
                         (double)g.m * g.n * (GEMM_BETA(prob) != 0 ? 2 : 1));
  if (g.kernel == 0) {
    /* one element of each tile a thread, TILE products a k-tile */
    gl = 2;
    a_ld = (double)g.bk / g.tb_vec;
    b_ld = g.bk;
    w->regs = 32;
  } else {
    gl = g.tma ? 0 : g.op[0].iters + g.op[1].iters;
    a_ld = g.bk * (g.op[0].kmajor ? (double)g.tm / g.op[0].vec : g.tm / 4.0);
    b_ld = g.bk * (g.op[1].kmajor ? (double)g.tn / g.op[1].vec : g.tn / 4.0);
    w->regs = g.tm * g.tn + g.tm + g.tn + 24 +
              (g.stages > 1 ? 4 * (int)gl : 0);
    if (w->regs > 255)
      w->regs = 255;
  }
  per_k = lanes * ktiles;
  sw_ops = (g.op[0].sw.b > 0 ? a_ld + (g.tma ? 0 : g.op[0].iters) : 0) +
           (g.op[1].sw.b > 0 ? b_ld + (g.tma ? 0 : g.op[1].iters) : 0);
  w->other_insts = per_k / 32 * (gl + (g.stages > 1 ? 1 : 2) + 2);
  w->imad_ops = per_k * 3 * gl;
  w->lop_ops = per_k * 3 * sw_ops;
  /* a barrier a k-tile with the two-stage pipeline, two without, the
   * ring's wait and arrival on the TMA ring */
  w->syncs = ktiles * (g.tma || g.stages > 1 ? 1 : 2);
  /* a register tile's next fragments load beside its products; the
   * textbook kernel's one product a k is a chain */
  w->ilp = g.kernel == 0 ? 1 : 2;
}

/* One block tile with two k-tiles (both buffers of a two-stage pipeline),
 * or with a TMA ring two more than its stages (each buffer filled, the
 * first two refilled); ragged: a row, three columns and a k short of
 * them, or with the copy engine, whose maps' rows are whole 16 bytes,
 * four of each. */
static int one_block(const tn_family *fam, const tn_params *p,
                     const tn_problem *base, int ragged, tn_problem *out,
                     char *why, size_t n)
{
  long long bm = p->v[P_BM].i, bn = p->v[P_BN].i, bk = p->v[P_BK].i;
  (void)why;
  (void)n;
  if (p->v[P_KERNEL].i == 0)
    bn = bk = bm; /* the textbook kernel's TILE x TILE tiles */
  *out = *base;
  out->size.n_dims = 3;
  if (p->v[P_PIPELINE].i == 3 && p->v[P_KERNEL].i == 1) {
    long long kt = p->v[P_STAGES].i + 2;
    out->size.dims[0] = ragged ? bm - 4 : bm;
    out->size.dims[1] = ragged ? bn - 4 : bn;
    out->size.dims[2] = ragged ? kt * bk - 4 : kt * bk;
    return 0;
  }
  out->size.dims[0] = ragged ? bm - 1 : bm;
  out->size.dims[1] = ragged ? bn - 3 : bn;
  out->size.dims[2] = ragged ? 2 * bk - 1 : 2 * bk;
  return 0;
}

/* fp32 sums rounded to nearest: u = 2^-24, no rounding beyond them. */
static int verify(tn_verify_env *env, char *why, size_t n)
{
  const tn_problem *prob = env->problem;
  tn_gemm_check_spec c;
  memset(&c, 0, sizeof(c));
  c.in = c.out = TN_ELEM_F32;
  c.buf_a = BUF_A;
  c.buf_b = BUF_B;
  c.buf_c = BUF_C;
  c.trans_a = GEMM_TRANS_A(prob);
  c.trans_b = GEMM_TRANS_B(prob);
  c.alpha = GEMM_ALPHA(prob);
  c.beta = GEMM_BETA(prob);
  c.u_acc = ldexp(1.0, -24);
  c.u_out = 0.0;
  c.bound_text = "(K + 2) * 2^-24 * absref";
  return tn_gemm_check(env, &c, why, n);
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
  return env->gemm(env, TN_ELEM_F32, TN_ELEM_F32, GEMM_TRANS_A(prob),
                   GEMM_TRANS_B(prob), (int)prob->size.dims[0],
                   (int)prob->size.dims[1], (int)prob->size.dims[2],
                   (float)GEMM_ALPHA(prob), env->dev[BUF_A], env->dev[BUF_B],
                   (float)GEMM_BETA(prob), env->dev[BUF_C], why, n);
}

/* NVRTC's time grows with the unrolled inner loop: tm x tn FMAs per k, bk
 * times (run 15 on the H200: 0.25 s at 4 x 4 x 16, 0.95 s at 8 x 8 x 16);
 * the textbook kernel is the smallest. */
static double compile_weight(const tn_family *fam, const tn_params *p)
{
  if (p->v[P_KERNEL].i == 0)
    return 1.0;
  return (double)(p->v[P_TM].i * p->v[P_TN].i * p->v[P_BK].i);
}

/* The table's form of tn_gemm_plan (whose tests call it without a family). */
static void plan(const tn_family *fam, const tn_params *p,
                 const tn_problem *prob, tn_access_sink *sink)
{
  tn_gemm_plan(p, prob, sink);
}

const tn_family tn_family_gemm = {
    .name = "gemm",
    .kernel = "gemm",
    .params = params,
    .n_params = N_PARAMS,
    .n_dims = 3,
    .dim_names = "M, N, K",
    .options = options,
    .n_options = N_OPTIONS,
    .prepare = prepare,
    .launch = launch,
    .defines = defines,
    .one_block = one_block,
    .tensor_maps = tensor_maps,
    .plan = plan,
    .compile_weight = compile_weight,
    .estimate = estimate,
    .buffers = buffers,
    .args = args,
    .reference_source = tn_gemm_reference_source,
    .verify = verify,
    .verify_device = verify, /* reads no host buffer: the seeds */
    .work = work,
    .unit = "TFLOP/s",
    .unit_scale = 1e12,
    .baselines = baselines,
    .n_baselines = 1,
    .baseline = baseline,
};

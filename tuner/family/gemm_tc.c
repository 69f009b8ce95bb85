/* gemm_tc.c -- the tensor-core GEMM family: C = alpha * op(A) * op(B) +
 * beta * C with bf16 or fp16 inputs, fp32 accumulation, and C in fp32 or
 * the inputs' type, on mma.sync m16n8k16 (sm_80 and later).
 *
 * Mirrors templates/gemm_tc.cu: block tile bm x bn x bk of warp tiles
 * warp_m x warp_n (bm / warp_m x bn / warp_n warps), a ring of `stages` shared buffers filled by cp.async,
 * fragments read by ldmatrix.x4; the tuned layouts are the pad and the
 * swizzle of each operand's shared tile (16-byte chunks: "xor" is chunk ^=
 * row over the rows one 128-byte bank row holds), and of the epilogue's
 * staging rows.  The access plan is in gemm_tc_plan.c.
 *
 * The check is the GEMM families' fp64 reference (gemm_check.c) with the
 * bound of the tensor cores' fp32 accumulation: their adds truncate
 * (round toward zero after aligning to the largest term: Fasi, Higham,
 * Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor cores",
 * PeerJ Comput. Sci. 2021), so each step errs by up to 2^-23 of the
 * magnitudes it sums, not 2^-24; a 16-bit C adds one rounding (2^-8 bf16,
 * 2^-11 fp16).  The baseline is cublasGemmEx with the same types and an
 * fp32 compute type (tuner/gpu/cublas.c). */
#include <stdio.h>
#include <string.h>

#include "family/gemm_ref.h"
#include "family/gemm_tc_shape.h"

static const char *const input_types[] = {"bf16", "fp16"};
static const char *const output_types[] = {"f32", "input"};

static const tn_option_desc options[TC_N_OPTIONS] = {
    {"trans_a", TN_OPT_BOOL, 0, 0, 1, "A is stored K x M (op(A) = A^T)",
     NULL, 0},
    {"trans_b", TN_OPT_BOOL, 0, 0, 1, "B is stored N x K (op(B) = B^T)",
     NULL, 0},
    {"alpha", TN_OPT_NUMBER, 1.0, -1e30, 1e30, "the scale of op(A) op(B)",
     NULL, 0},
    {"beta", TN_OPT_NUMBER, 0.0, -1e30, 1e30,
     "the scale of C's starting values (0: C is not read)", NULL, 0},
    {"input", TN_OPT_CHOICE, 0, 0, 0, "the type of A and B: bf16 or fp16",
     input_types, 2},
    {"output", TN_OPT_CHOICE, 0, 0, 0,
     "the type of C: f32, or input (the type of A and B)", output_types, 2},
};

static const tn_param_desc params[TC_N_PARAMS] = {
    {"bm", TN_PARAM_INT, 0, 16, 256, 128,
     "block tile rows (of C and op(A)), a power of two", 0},
    {"bn", TN_PARAM_INT, 0, 16, 256, 128, "block tile columns, a power of two", 0},
    {"bk", TN_PARAM_INT, 0, 16, 128, 32,
     "block tile depth (k), a power of two of at least 16", 0},
    {"warp_m", TN_PARAM_INT, 0, 16, 256, 64,
     "warp tile rows, a multiple of 16 dividing bm (bm / warp_m warps along "
     "m)", 0},
    {"warp_n", TN_PARAM_INT, 0, 16, 256, 64,
     "warp tile columns, a multiple of 16 dividing bn (bn / warp_n warps "
     "along n)", 0},
    {"stages", TN_PARAM_INT, 0, 2, 4, 3,
     "shared buffers of the cp.async ring (2 to 4)", 0},
    {"epilogue", TN_PARAM_INT, 0, 0, 2, 0,
     "0: fragments straight to C; 1: each warp's tile staged through "
     "shared memory in fp32, then whole 16-byte runs of C's rows; 2: "
     "staged as C's 16-bit values by stmatrix (sm_90 and later, output = "
     "\"input\"), then 16-byte runs", 0},
    {"group_m", TN_PARAM_INT, 0, 0, 64, 0,
     "0: tiles in row-major launch order; g: in groups of g tile rows, "
     "column by column (L2 reuse of A and B)", 0},
    {"min_blocks", TN_PARAM_INT, 0, 0, 8, 0,
     "minimum resident blocks per SM for __launch_bounds__ (0: none)", 0},
    {"pad_a", TN_PARAM_INT, 1, 0, 64, 0,
     "padding elements at the end of each As row (a multiple of 8)", 0},
    {"pad_b", TN_PARAM_INT, 1, 0, 64, 0,
     "padding elements at the end of each Bs row (a multiple of 8)", 0},
    {"pad_c", TN_PARAM_INT, 1, 0, 32, 0,
     "padding at the end of each staging row: epilogue 1 in floats (a "
     "multiple of 4), epilogue 2 in 16-bit elements (a multiple of 8)", 0},
    {"swizzle_a", TN_PARAM_SWIZZLE, 1, 0, 0, 0,
     "swizzle of As: none, xor, sw32, sw64, sw128, cute(B,M,S) (M >= 3)", 0},
    {"swizzle_b", TN_PARAM_SWIZZLE, 1, 0, 0, 0,
     "swizzle of Bs: none, xor, sw32, sw64, sw128, cute(B,M,S) (M >= 3)", 0},
};

/* Resolves an operand's swizzle on its rows x width tile of 2-byte
 * elements.  Every layout keeps 16-byte chunks whole (cp.async and
 * ldmatrix rows are 16 bytes): M >= 3.  "xor" is chunk ^= row, over the
 * chunks of one 128-byte bank row: with C chunks a row, Swizzle<log2
 * min(C, 8), 3, S> where the xored row bits start above the rows that one
 * bank row already separates.  Returns 0, or 1 with why. */
static int resolve_swizzle(tn_swizzle *sw, const char *pname,
                           const tc_operand *o, char *why, size_t n)
{
  char buf[32];
  int chunks = o->width / 8;
  if (sw->kind == TN_SWZ_XOR) {
    sw->b = tn_log2_ceil(chunks < 8 ? chunks : 8);
    sw->m = 3;
    sw->s = chunks >= 8 ? tn_log2_ceil(o->width) - 3 : 3;
    if (sw->b == 0) {
      snprintf(why, n, "%s xor has nothing to permute: rows of %d elements "
                       "are one 16-byte chunk", pname, o->width);
      return 1;
    }
  } else if (tn_swizzle_resolve(sw, o->width, 2, why, n) != 0) {
    return 1;
  }
  if (sw->b == 0)
    return 0;
  if (sw->m < 3) {
    snprintf(why, n, "%s %s splits the 16-byte chunks that cp.async and "
                     "ldmatrix move (needs M >= 3)",
             pname, tn_swizzle_name(sw, buf, sizeof(buf)));
    return 1;
  }
  if (((long long)o->rows * o->width) % (1LL << (sw->m + sw->b + sw->s)) !=
          0 ||
      sw->m + sw->b + sw->s > 24) {
    snprintf(why, n, "%s %s spans more than the %dx%d tile", pname,
             tn_swizzle_name(sw, buf, sizeof(buf)), o->rows, o->width);
    return 1;
  }
  return 0;
}

static int prepare(const tn_family *fam, tn_params *p, const tn_problem *prob,
                   char *why, size_t n)
{
  long long bm = p->v[TC_BM].i, bn = p->v[TC_BN].i, bk = p->v[TC_BK].i;
  long long wm = p->v[TC_WARP_M].i, wn = p->v[TC_WARP_N].i, wm_n, wn_n;
  long long m = prob->size.dims[0], nn = prob->size.dims[1];
  long long k = prob->size.dims[2], tiles, regs;
  tc_geometry g;
  int i;

  if (m > 2147483647LL - 1024 || nn > 2147483647LL - 1024 ||
      k > 2147483647LL - 1024) {
    snprintf(why, n, "dimensions beyond 2^31 - 1024 overflow int indices");
    return 1;
  }
  if (!tn_is_pow2(bm) || !tn_is_pow2(bn) || !tn_is_pow2(bk)) {
    snprintf(why, n, "bm, bn and bk must be powers of two");
    return 1;
  }
  if (wm % 16 != 0 || wn % 16 != 0 || bm % wm != 0 || bn % wn != 0) {
    snprintf(why, n, "the warp tile %lldx%lld is not made of 16x16 "
                     "fragments dividing the block tile %lldx%lld", wm, wn,
             bm, bn);
    return 1;
  }
  wm_n = bm / wm;
  wn_n = bn / wn;
  if (32 * wm_n * wn_n > 1024) {
    snprintf(why, n, "%lld warps per block (over 32)", wm_n * wn_n);
    return 1;
  }
  /* accumulators (4 floats per 16x8), fragments of A (4 per 16 rows) and
   * B (2 per 8 columns), addresses: past ~200 the 255 registers spill */
  regs = (bm / wm_n / 16) * (bn / wn_n / 8) * 4 + (bm / wm_n / 16) * 4 +
         (bn / wn_n / 8) * 2;
  if (regs > 200) {
    snprintf(why, n, "a %lldx%lld warp tile holds %lld registers of "
                     "accumulators and fragments per thread (more than "
                     "200 of the 255 spill)", bm / wm_n, bn / wn_n, regs);
    return 1;
  }
  if (p->v[TC_MIN_BLOCKS].i > 0 &&
      32 * wm_n * wn_n * p->v[TC_MIN_BLOCKS].i > 2048) {
    snprintf(why, n, "min_blocks %lld of %lld threads exceed 2048 threads "
                     "per SM", p->v[TC_MIN_BLOCKS].i, 32 * wm_n * wn_n);
    return 1;
  }
  if (p->v[TC_PAD_A].i % 8 != 0 || p->v[TC_PAD_B].i % 8 != 0) {
    snprintf(why, n, "pad_a and pad_b must be multiples of 8 elements: "
                     "cp.async and ldmatrix move 16-byte rows");
    return 1;
  }
  if (p->v[TC_EPILOGUE].i == 2 && p->v[TC_PAD_C].i % 8 != 0) {
    snprintf(why, n, "epilogue 2: pad_c counts 16-bit elements and must be "
                     "a multiple of 8: stmatrix writes and the staging "
                     "reads take 16-byte rows");
    return 1;
  }
  if (p->v[TC_PAD_C].i % 4 != 0) {
    snprintf(why, n, "pad_c must be a multiple of 4 floats: the staging "
                     "rows are read 16 bytes at a time");
    return 1;
  }
  if (p->v[TC_EPILOGUE].i == 2 && TC_OUT_F32(prob)) {
    snprintf(why, n, "epilogue 2 stages C's values as 16-bit elements "
                     "(stmatrix stores b16): C must have the inputs' type "
                     "(output = \"input\"), not f32");
    return 1;
  }
  if (p->v[TC_EPILOGUE].i == 0 && p->v[TC_PAD_C].i != 0) {
    /* the space would hold each direct epilogue once per pad_c */
    snprintf(why, n, "epilogue 0 stages nothing: pad_c must stay 0");
    return 1;
  }
  tn_gemm_tc_geometry(p, prob, &g);
  for (i = 0; i < 2; i++)
    if (resolve_swizzle(&p->v[i ? TC_SWIZZLE_B : TC_SWIZZLE_A].sw,
                        i ? "swizzle_b" : "swizzle_a", &g.op[i], why,
                        n) != 0)
      return 1;
  tiles = ((m + bm - 1) / bm) * ((nn + bn - 1) / bn);
  if (p->v[TC_GROUP_M].i > 0 ? tiles > 2147483647LL
                             : (m + bm - 1) / bm > 65535) {
    snprintf(why, n, "%lld x %lld needs more blocks of %lld x %lld than a "
                     "grid holds%s", m, nn, bm, bn,
             p->v[TC_GROUP_M].i > 0 ? "" : " (65535 rows: use group_m)");
    return 1;
  }
  if (tiles * ((k + bk - 1) / bk) > (1LL << 40)) {
    snprintf(why, n, "%lld x %lld x %lld is more than 2^40 block-tile "
                     "steps: too large to model", m, nn, k);
    return 1;
  }
  return 0;
}

static void launch(const tn_family *fam, const tn_params *p,
                   const tn_problem *prob, tn_launch *l)
{
  tc_geometry g;
  long long tm, tn;
  tn_gemm_tc_geometry(p, prob, &g);
  memset(l, 0, sizeof(*l));
  tm = (g.m + g.bm - 1) / g.bm;
  tn = (g.n + g.bn - 1) / g.bn;
  if (g.group_m > 0) {
    l->grid[0] = (unsigned)(tm * tn);
    l->grid[1] = 1;
  } else {
    l->grid[0] = (unsigned)tn;
    l->grid[1] = (unsigned)tm;
  }
  l->grid[2] = 1;
  l->block[0] = (unsigned)g.threads;
  l->block[1] = l->block[2] = 1;
  l->threads = g.threads;
  l->smem_dynamic = (int)g.smem_bytes; /* the template's is extern */
  if (g.epilogue == 2) {
    l->min_cc = 90; /* stmatrix (arch.h's has_stmatrix) */
    l->needs = "epilogue 2 (stmatrix)";
  }
}

static void defines(const tn_family *fam, const tn_params *p,
                    const tn_problem *prob, tn_defines *d)
{
  tc_geometry g;
  int i;
  tn_gemm_tc_geometry(p, prob, &g);
  tn_defines_add(d, "TN_TRANS_A", "%d", TC_TRANS_A(prob) ? 1 : 0);
  tn_defines_add(d, "TN_TRANS_B", "%d", TC_TRANS_B(prob) ? 1 : 0);
  tn_defines_add(d, "TN_IN_F16", "%d", TC_IN_F16(prob) ? 1 : 0);
  tn_defines_add(d, "TN_OUT_F32", "%d", TC_OUT_F32(prob) ? 1 : 0);
  tn_defines_add(d, "TN_WARPS_M", "%d", g.warps_m);
  tn_defines_add(d, "TN_WARPS_N", "%d", g.warps_n);
  tn_defines_add(d, "TN_THREADS", "%d", g.threads);
  tn_defines_add(d, "TN_SMEM_BYTES", "%lld", g.smem_bytes);
  for (i = 0; i < 2; i++) {
    const tc_operand *o = &g.op[i];
    const char x = i ? 'B' : 'A';
    char name[32];
    snprintf(name, sizeof(name), "TN_%c_ROWS", x);
    tn_defines_add(d, name, "%d", o->rows);
    snprintf(name, sizeof(name), "TN_%c_WIDTH", x);
    tn_defines_add(d, name, "%d", o->width);
    snprintf(name, sizeof(name), "TN_%c_ELEMS", x);
    tn_defines_add(d, name, "%d", o->elems);
    snprintf(name, sizeof(name), "TN_%c_BASE", x);
    tn_defines_add(d, name, "%d", o->base);
  }
}

/* One block tile, every stage filled once and one more k-tile (the ring
 * wraps); ragged: a row, three columns and a k short, so that no leading
 * dimension is a multiple of 8 and the element-wise copies run. */
static int one_block(const tn_family *fam, const tn_params *p,
                     const tn_problem *base, int ragged, tn_problem *out,
                     char *why, size_t n)
{
  long long bm = p->v[TC_BM].i, bn = p->v[TC_BN].i, bk = p->v[TC_BK].i;
  long long k = (p->v[TC_STAGES].i + 1) * bk;
  (void)why;
  (void)n;
  *out = *base;
  out->size.n_dims = 3;
  out->size.dims[0] = ragged ? bm - 1 : bm;
  out->size.dims[1] = ragged ? bn - 3 : bn;
  out->size.dims[2] = ragged ? k - 1 : k;
  return 0;
}

static tn_elem_type in_type(const tn_problem *prob)
{
  return TC_IN_F16(prob) ? TN_ELEM_F16 : TN_ELEM_BF16;
}

static tn_elem_type out_type(const tn_problem *prob)
{
  return TC_OUT_F32(prob) ? TN_ELEM_F32 : in_type(prob);
}

static int buffers(const tn_family *fam, const tn_problem *prob,
                   tn_buffer_desc *out)
{
  return tn_gemm_buffers(prob, in_type(prob), out_type(prob),
                         prob->opt[TC_OPT_BETA], out);
}

static void args(const tn_family *fam, const tn_params *p,
                 const tn_problem *prob, const tn_devptr *bufs, tn_args *a)
{
  int m = (int)prob->size.dims[0], n = (int)prob->size.dims[1];
  int k = (int)prob->size.dims[2];
  float alpha = (float)prob->opt[TC_OPT_ALPHA];
  float beta = (float)prob->opt[TC_OPT_BETA];
  tn_args_add(a, &bufs[TC_BUF_A], sizeof(bufs[TC_BUF_A]));
  tn_args_add(a, &bufs[TC_BUF_B], sizeof(bufs[TC_BUF_B]));
  tn_args_add(a, &bufs[TC_BUF_C], sizeof(bufs[TC_BUF_C]));
  tn_args_add(a, &m, sizeof(m));
  tn_args_add(a, &n, sizeof(n));
  tn_args_add(a, &k, sizeof(k));
  tn_args_add(a, &alpha, sizeof(alpha));
  tn_args_add(a, &beta, sizeof(beta));
}

/* The problem as the shared check and baseline read it (gemm_ref.h). */
static tn_gemm_tc_problem view(const tn_problem *prob)
{
  tn_gemm_tc_problem g;
  memset(&g, 0, sizeof(g)); /* no fp8 here: scale and fast_accum unused */
  g.in = in_type(prob);
  g.out = out_type(prob);
  g.trans_a = TC_TRANS_A(prob);
  g.trans_b = TC_TRANS_B(prob);
  g.alpha = prob->opt[TC_OPT_ALPHA];
  g.beta = prob->opt[TC_OPT_BETA];
  return g;
}

static int verify(tn_verify_env *env, char *why, size_t n)
{
  tn_gemm_tc_problem g = view(env->problem);
  return tn_gemm_tc_verify(env, &g, why, n);
}

static double work(const tn_family *fam, const tn_problem *prob)
{
  return 2.0 * (double)prob->size.dims[0] * (double)prob->size.dims[1] *
         (double)prob->size.dims[2];
}

/* The time model's view of a launch: mma.sync flops over the padded
 * tiles; per thread and k-tile, its cp.async copies (16 bytes each) with
 * their addressing, a barrier and the ring's waits; the ldmatrix
 * addresses of a warp tile through a swizzle cost three lane ops (shift,
 * and, xor) each, without one they are constant offsets.  DRAM: A, B and
 * C once each, C twice through the direct epilogue's half sectors.  Registers: the accumulators (four floats an m16n8 tile),
 * the fragments and some 40 for addresses and the ring. */
static void estimate(const tn_family *fam, const tn_params *p,
                     const tn_problem *prob, tn_time_work *w)
{
  tc_geometry g;
  tn_launch l;
  double blocks, ktiles, lanes, per_k, copies, ldm, sw_ops;
  tn_gemm_tc_geometry(p, prob, &g);
  launch(fam, p, prob, &l);
  memset(w, 0, sizeof(*w));
  blocks = (double)l.grid[0] * l.grid[1];
  ktiles = (double)((g.k + g.bk - 1) / g.bk);
  lanes = blocks * g.threads;
  per_k = lanes * ktiles;
  w->tensor_flops = 2.0 * blocks * g.bm * g.bn * ktiles * g.bk;
  /* the direct epilogue (0) writes a 16-bit C as 4 bytes a lane, four
   * lanes a row: 16 of each 32-byte sector a store, so the write path
   * moves C twice over; the staged ones write whole rows */
  w->dram_bytes = 2.0 * ((double)g.m * g.k + (double)g.k * g.n) +
                  (TC_OUT_F32(prob) ? 4.0 : g.epilogue == 0 ? 4.0 : 2.0) *
                      (double)g.m * g.n;
  copies = (double)(g.bm + g.bn) * g.bk * 2 / 16 / g.threads;
  /* ldmatrix.x4 a 16 x 16 piece of A, .x2 (or x4 for two) of B, a k16 */
  ldm = (g.bk / 16.0) * (g.mi + g.ni / 2.0);
  sw_ops = (g.op[0].sw.b > 0 ? (g.bk / 16.0) * g.mi : 0) +
           (g.op[1].sw.b > 0 ? (g.bk / 16.0) * g.ni / 2.0 : 0) +
           ((g.op[0].sw.b > 0) + (g.op[1].sw.b > 0)) * copies / 2;
  w->other_insts = per_k / 32 * (copies + 4 + (g.bk / 16.0) * g.mi * g.ni);
  /* the ring: stages - 1 k-tiles in flight ahead of the one computed */
  w->ring_ktiles = ktiles;
  w->ring_ahead = g.stages - 1;
  /* the next k16's ldmatrix beside this one's mma.sync, and the ring's
   * copies beside both */
  w->ilp = 2;
  w->imad_ops = per_k * (2 * copies + ldm);
  w->lop_ops = per_k * 3 * sw_ops;
  w->regs = 4 * g.mi * g.ni + 4 * g.mi + 2 * g.ni + 40;
  if (w->regs > 255)
    w->regs = 255;
}

static const char *const baselines[] = {"cublas"};

static int baseline(const char *name, tn_baseline_env *env, char *why,
                    size_t n)
{
  tn_gemm_tc_problem g = view(env->problem);
  return tn_gemm_tc_baseline("gemm_tc", name, env, &g, why, n);
}

/* NVRTC's time grows with the unrolled warp tile: its mma.sync per
 * k-tile, and the staged epilogue's stores beside them. */
static double compile_weight(const tn_family *fam, const tn_params *p)
{
  double mmas =
      (double)(p->v[TC_WARP_M].i / 16) * (double)(p->v[TC_WARP_N].i / 8);
  return mmas * (double)(p->v[TC_BK].i / 16) +
         (p->v[TC_EPILOGUE].i ? mmas / 2 : 0.0);
}

/* The table's form of tn_gemm_tc_plan (whose tests call it without a family).
 */
static void plan(const tn_family *fam, const tn_params *p,
                 const tn_problem *prob, tn_access_sink *sink)
{
  tn_gemm_tc_plan(p, prob, sink);
}

const tn_family tn_family_gemm_tc = {
    .name = "gemm_tc",
    .kernel = "gemm_tc",
    .params = params,
    .n_params = TC_N_PARAMS,
    .n_dims = 3,
    .dim_names = "M, N, K",
    .options = options,
    .n_options = TC_N_OPTIONS,
    .prepare = prepare,
    .launch = launch,
    .defines = defines,
    .one_block = one_block,
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

/* gemm_wg.c -- the wgmma GEMM family: C = alpha * op(A) * op(B) + beta * C
 * with bf16 or fp16 inputs, fp32 accumulation, and C in fp32 or the
 * inputs' type, on Hopper's warpgroup MMA (wgmma.mma_async, sm_90a only);
 * and C = alpha * scale_a * scale_b * A B^T + beta * C with fp8 inputs
 * (e4m3 or e5m2, per-tensor scales, both operands K-major as wgmma
 * takes 8-bit types), C in bf16 or fp32, each k-tile's sums added into
 * fp32 registers (promotion) unless fast_accum.
 *
 * Mirrors templates/gemm_wg.cu: the copy engine (TMA) fills a ring of
 * `stages` buffers of bm x bk of A and bn x bk of B under a swizzle of 32,
 * 64 or 128 bytes (the tuned layout: the shared tiles have no other), and
 * wgmma reads them through descriptors of the same swizzle; a producer
 * warpgroup or none, 1 or 2 consumer warpgroups, setmaxnreg, clusters of
 * 1 or 2, persistent blocks, the tile order and the epilogue are tuned.
 * The tile order is tile_order with group_m (templates/tile_order.h): 0
 * row-major (group_m 0) or groups of group_m tile rows walked column by
 * column; 1 a generalized Hilbert curve over any tile grid (group_m 0);
 * 2 the groups as a serpentine (group_m > 0): each column the other way
 * from the last, each group's first tile in the column where the group
 * before ended.  A cluster of 2 or 4 without multicast is blocks next
 * to each other in the order, each loading its own tile's k-tiles: any
 * order serves it.  multicast 1 puts a cluster's blocks on tiles of one
 * column (one B panel), 2 of one row (one A panel), and each block loads
 * 1 / cluster of the shared operand's k-tile for all of them (TMA
 * multicast; the order then walks units of `cluster` tiles, a ragged
 * last one padded and computed on zeros).  pingpong 1 has the two
 * consumers of a persistent block take its tiles in turn, each the whole
 * tile, their main loops one after the other, so that one's epilogue
 * runs beside the other's main loop.  Epilogue 1 stages C in columns of
 * 128 bytes, or of 64 or 32 where bn is one of wgmma's widths whose row
 * of C is not whole 128-byte ones (n144: 288 bytes of bf16); c_ring
 * stages the tile through a ring of those columns, each stored as soon as
 * it is written, so that an fp32 C's staging fits beside a deep ring.
 * stream_k splits the k-tiles of a ragged last wave's tiles among all the
 * persistent blocks (stream-K, templates/gemm_wg_schedule.h), the shares
 * added up through the launch's workspace (tn_launch.workspace_block).
 * tile_order, multicast, pingpong, c_ring and stream_k were added after
 * results files were written: at their default, 0, a point and its text
 * are as before.
 * Every point needs the sm_90a target (launch.arch_features), so a run on
 * an sm_90 GPU compiles for sm_90a (arch_features below).  The threads'
 * shared accesses, which the model prices, are only epilogue 1's staging
 * stores (gemm_wg_plan.c); the copy engine's writes and wgmma's reads are
 * not warp instructions and are not priced.
 *
 * The check and its bound are the tensor-core GEMM's (gemm_tc.c says why
 * 2^-23 per step: the tensor cores' fp32 adds truncate), through the GEMM
 * families' fp64 reference (gemm_check.c); fp8's bound is derived in
 * gemm_ref.h.  The baseline is cublasGemmEx with the same types
 * (tuner/gpu/cublas.c), for fp8 cuBLASLt's matmul with the same types,
 * scales and accumulation (tuner/gpu/cublaslt.c). */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "family/gemm_ref.h"
#include "family/gemm_wg_shape.h"

static const char *const input_types[] = {"bf16", "fp16", "e4m3", "e5m2"};
static const char *const output_types[] = {"f32", "input", "bf16"};

static const tn_option_desc options[WG_N_OPTIONS] = {
    {"trans_a", TN_OPT_BOOL, 0, 0, 1, "A is stored K x M (op(A) = A^T)",
     NULL, 0},
    {"trans_b", TN_OPT_BOOL, 0, 0, 1, "B is stored N x K (op(B) = B^T)",
     NULL, 0},
    {"alpha", TN_OPT_NUMBER, 1.0, -1e30, 1e30, "the scale of op(A) op(B)",
     NULL, 0},
    {"beta", TN_OPT_NUMBER, 0.0, -1e30, 1e30,
     "the scale of C's starting values (0: C is not read)", NULL, 0},
    {"input", TN_OPT_CHOICE, 0, 0, 0,
     "the type of A and B: bf16, fp16, or the 8-bit floats e4m3 and e5m2 "
     "(A stored M x K and B N x K: trans_a false, trans_b true)",
     input_types, 4},
    {"output", TN_OPT_CHOICE, 0, 0, 0,
     "the type of C: f32, input (the type of 16-bit A and B), or bf16 "
     "(of fp8 A and B)",
     output_types, 3},
    {"scale_a", TN_OPT_NUMBER, 1.0, FLT_MIN, FLT_MAX,
     "fp8: A's per-tensor scale (C = alpha scale_a scale_b A B^T + beta "
     "C), a positive fp32 value, in device memory as cuBLASLt takes it",
     NULL, 0},
    {"scale_b", TN_OPT_NUMBER, 1.0, FLT_MIN, FLT_MAX, "fp8: B's scale",
     NULL, 0},
    {"fast_accum", TN_OPT_BOOL, 0, 0, 1,
     "fp8: true keeps the sums in the tensor cores' 13-bit accumulator over "
     "all of K (cuBLASLt's FAST_ACCUM); false adds each k-tile's into fp32 "
     "registers",
     NULL, 0},
};

static const tn_param_desc params[WG_N_PARAMS] = {
    {"bm", TN_PARAM_INT, 0, 64, 256, 128,
     "block tile rows: 64, 128 or 256 (m64 slabs of the consumers)", 0},
    {"bn", TN_PARAM_INT, 0, 64, 256, 128,
     "block tile columns: 64 to 256 by 16 (wgmma's n)", 0},
    {"bk", TN_PARAM_INT, 0, 16, 128, 64,
     "block tile depth (k): a power of two of 16 or more (32 for fp8)", 0},
    {"consumers", TN_PARAM_INT, 0, 1, 2, 2,
     "consumer warpgroups, bm / consumers rows each (with pingpong each "
     "the whole tile in turn)", 0},
    {"stages", TN_PARAM_INT, 0, 2, 8, 4, "buffers of the TMA ring", 0},
    {"swizzle", TN_PARAM_INT, 1, 32, 128, 128,
     "the shared tiles' swizzle in bytes (32, 64, 128): the copy engine's "
     "SWIZZLE_<n>B and the wgmma descriptors' layout type", 0},
    {"producer", TN_PARAM_INT, 0, 0, 1, 1,
     "1: a producer warpgroup issues the copies (warp specialization); 0: "
     "thread 0 does, between its wgmma", 0},
    {"maxnreg", TN_PARAM_INT, 0, 0, 1, 0,
     "1: setmaxnreg gives the producer's registers to two consumers", 0},
    {"cluster", TN_PARAM_INT, 0, 1, 4, 1,
     "blocks per cluster (__cluster_dims__): 1, 2 or 4; without multicast "
     "on tiles next to each other in the tile order", 0},
    {"persistent", TN_PARAM_INT, 0, -1, 4096, 0,
     "0: a block per tile; P: P blocks walk the tiles (the GPU's SM count, "
     "132 on an H200); -1: as many blocks as the GPU runs at once, whole "
     "clusters, found at launch (cuOccupancyMaxActiveClusters)", 0},
    {"group_m", TN_PARAM_INT, 0, 0, 64, 8,
     "0: tiles in row-major order; g: in groups of g tile rows, column by "
     "column (L2 reuse of A and B); tile_order 1 takes 0, tile_order 2 "
     "more than 0", 0},
    {"epilogue", TN_PARAM_INT, 0, 0, 1, 0,
     "0: accumulators straight to C; 1: staged in shared memory (stmatrix "
     "for a 16-bit C, st.shared for fp32) and stored by TMA", 0},
    /* added after results files were written: at 0 a point's text and
     * results read as before */
    {"tile_order", TN_PARAM_INT, 0, 0, 2, 0,
     "the order the blocks take the tiles in (templates/tile_order.h): 0 "
     "row-major, or with group_m g > 0 groups of g tile rows column by "
     "column; 1 a generalized Hilbert curve over the tile grid, any shape "
     "(group_m must be 0); 2 group_m's groups as a serpentine, each "
     "column's rows reversed from the last's and each group's columns "
     "from the group's before (group_m must be more than 0)", 1},
    {"multicast", TN_PARAM_INT, 0, 0, 2, 0,
     "0: each block loads its own k-tiles; 1: a cluster's blocks compute "
     "tiles of one column and share B's k-tiles, each block loading 1 / "
     "cluster of them for all (TMA multicast); 2: tiles of one row, A's "
     "shared (needs cluster 2 or 4 and a producer)", 1},
    {"partials", TN_PARAM_INT, 0, 1, 2, 1,
     "fp8 with promotion: the sets of registers a k-tile's chain of wgmma "
     "sums into; 2: the next k-tile's chain runs while the last one's "
     "sums are added into the fp32 accumulators", 1},
    {"pingpong", TN_PARAM_INT, 0, 0, 1, 0,
     "1: the two consumers take a persistent block's tiles in turn, each "
     "the whole bm x bn, their main loops one after the other, so that "
     "one's epilogue runs beside the other's main loop (needs persistent, "
     "a producer and consumers 2)", 1},
    {"promote_run", TN_PARAM_INT, 0, 2, 16, 4,
     "with partials 2: the k-tiles of a run, after which the consumer "
     "waits for its last chain (ptxas serializes the wgmma of a loop that "
     "goes round with a chain in flight)", 1},
    {"c_ring", TN_PARAM_INT, 0, 0, 8, 0,
     "epilogue 1's staging a consumer: 0 its whole tile of C; R the tile's "
     "staged columns (128 bytes of C's rows, or 64 or 32 where bn's row "
     "is not whole 128-byte ones) through a ring of R buffers, each stored "
     "as soon as it is written (an fp32 C's staging beside a deep ring of "
     "A and B)", 1},
    {"stream_k", TN_PARAM_INT, 0, 0, 2, 0,
     "the tiles that do not fill a last wave split along K, each one's "
     "shares added up through a workspace by the block that has its first "
     "k-tile (stream-K): 1 their k-tiles in even ranges over all the "
     "blocks; 2 each one's head on its block of that wave and its tail on "
     "a block the wave leaves idle, every block starting at the same k "
     "(needs persistent, a producer, pingpong 0, and every block of the "
     "grid at once on the GPU)", 1},
};

static void launch(const tn_family *fam, const tn_params *p,
                   const tn_problem *prob, tn_launch *l)
{
  wg_geometry g;
  tn_gemm_wg_geometry(p, prob, &g);
  memset(l, 0, sizeof(*l));
  /* persistent: P blocks, or one per tile computed (with multicast the
   * units' tiles, the last unit padded) where there are fewer */
  l->grid[0] = (unsigned)g.blocks;
  l->grid[1] = l->grid[2] = 1;
  l->block[0] = (unsigned)g.threads;
  l->block[1] = l->block[2] = 1;
  l->threads = g.threads;
  l->smem_dynamic = (int)g.smem_bytes;
  l->min_cc = 90;
  l->needs = "wgmma";
  l->arch_features = 1;
  l->fit_grid = p->v[WG_PERSISTENT].i < 0;
  l->cluster = g.cluster;
  /* stream-K: a block that owns a split tile waits for the blocks after
   * it, so all must run at once */
  l->workspace_block = g.workspace_block;
  l->co_resident = g.stream_k != 0;
}

static void defines(const tn_family *fam, const tn_params *p,
                    const tn_problem *prob, tn_defines *d)
{
  wg_geometry g;
  tn_gemm_wg_geometry(p, prob, &g);
  tn_defines_add(d, "TN_TRANS_A", "%d", WG_TRANS_A(prob) ? 1 : 0);
  tn_defines_add(d, "TN_TRANS_B", "%d", WG_TRANS_B(prob) ? 1 : 0);
  tn_defines_add(d, "TN_IN_F16", "%d", WG_IN_F16(prob) ? 1 : 0);
  tn_defines_add(d, "TN_OUT_F32", "%d", WG_OUT_F32(prob) ? 1 : 0);
  tn_defines_add(d, "TN_THREADS", "%d", g.threads);
  tn_defines_add(d, "TN_SMEM_BYTES", "%lld", g.smem_bytes);
  /* fp8 alone: a 16-bit problem's source stays as it was */
  if (WG_IN_FP8(prob)) {
    tn_defines_add(d, "TN_IN_FP8", "%d",
                   tn_gemm_wg_in_type(prob) == TN_ELEM_E4M3 ? 1 : 2);
    tn_defines_add(d, "TN_PROMOTE", "%d", g.promote);
  }
  /* narrower staged columns alone: a 128-byte one's source stays as it
   * was */
  if (g.c_col != 128)
    tn_defines_add(d, "TN_C_COL", "%d", g.c_col);
}

/* One block tile, every stage filled once and one more k-tile (the ring
 * wraps; a persistent point launches one block for one tile); ragged: 8
 * short in every dimension (the copy engine's rows stay whole 16-byte
 * units; fp8's K 16 short, for the same rule), so that the tiles' edges
 * are zero-filled and clipped.  A cluster is never one block: 1. */
static int one_block(const tn_family *fam, const tn_params *p,
                     const tn_problem *base, int ragged, tn_problem *out,
                     char *why, size_t n)
{
  long long bm = p->v[WG_BM].i, bn = p->v[WG_BN].i, bk = p->v[WG_BK].i;
  long long k = (p->v[WG_STAGES].i + 1) * bk;
  if (p->v[WG_CLUSTER].i > 1) {
    snprintf(why, n, "a cluster of %lld launches %lld blocks at least",
             p->v[WG_CLUSTER].i, p->v[WG_CLUSTER].i);
    return 1;
  }
  *out = *base;
  out->size.n_dims = 3;
  out->size.dims[0] = ragged ? bm - 8 : bm;
  out->size.dims[1] = ragged ? bn - 8 : bn;
  out->size.dims[2] = ragged ? k - (WG_IN_FP8(base) ? 16 : 8) : k;
  return 0;
}

/* A, B, C; for fp8, the scales: one fp32 each, constant inputs (the
 * value fp32 holds). */
static int buffers(const tn_family *fam, const tn_problem *prob,
                   tn_buffer_desc *out)
{
  int n = tn_gemm_buffers(prob, tn_gemm_wg_in_type(prob),
                          tn_gemm_wg_out_type(prob), prob->opt[WG_OPT_BETA],
                          out);
  int i;
  if (!WG_IN_FP8(prob))
    return n;
  for (i = 0; i < 2; i++) {
    tn_buffer_desc *d = &out[n++];
    d->name = i ? "scale_b" : "scale_a";
    d->bytes = 4;
    d->role = TN_BUF_IN;
    d->elem = TN_ELEM_F32;
    d->init.kind = TN_INIT_CONSTANT;
    d->init.a = (float)prob->opt[i ? WG_OPT_SCALE_B : WG_OPT_SCALE_A];
  }
  return n;
}

/* After the tensor maps of A, B (and C): C, M, N, K, alpha, beta; for
 * fp8 the scales' device pointers. */
static void args(const tn_family *fam, const tn_params *p,
                 const tn_problem *prob, const tn_devptr *bufs, tn_args *a)
{
  int m = (int)prob->size.dims[0], n = (int)prob->size.dims[1];
  int k = (int)prob->size.dims[2];
  float alpha = (float)prob->opt[WG_OPT_ALPHA];
  float beta = (float)prob->opt[WG_OPT_BETA];
  tn_args_add(a, &bufs[WG_BUF_C], sizeof(bufs[WG_BUF_C]));
  tn_args_add(a, &m, sizeof(m));
  tn_args_add(a, &n, sizeof(n));
  tn_args_add(a, &k, sizeof(k));
  tn_args_add(a, &alpha, sizeof(alpha));
  tn_args_add(a, &beta, sizeof(beta));
  if (WG_IN_FP8(prob)) {
    tn_args_add(a, &bufs[WG_BUF_SCALE_A], sizeof(bufs[WG_BUF_SCALE_A]));
    tn_args_add(a, &bufs[WG_BUF_SCALE_B], sizeof(bufs[WG_BUF_SCALE_B]));
  }
}

/* The problem as the shared check and baseline read it (gemm_ref.h). */
static tn_gemm_tc_problem view(const tn_problem *prob)
{
  tn_gemm_tc_problem g;
  memset(&g, 0, sizeof(g));
  g.in = tn_gemm_wg_in_type(prob);
  g.out = tn_gemm_wg_out_type(prob);
  g.trans_a = WG_TRANS_A(prob);
  g.trans_b = WG_TRANS_B(prob);
  g.alpha = prob->opt[WG_OPT_ALPHA];
  g.beta = prob->opt[WG_OPT_BETA];
  /* the scales as fp32 holds them; their product is exact in a double */
  g.scale = (double)(float)prob->opt[WG_OPT_SCALE_A] *
            (double)(float)prob->opt[WG_OPT_SCALE_B];
  g.fast_accum = prob->opt[WG_OPT_FAST_ACCUM] != 0;
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

/* The time model's view of a launch: wgmma flops over the padded tiles
 * at the tensor rate (fp8's counted half: Hopper's dense fp8 rate is
 * twice bf16's, which the profile measures); the copy engine keeps
 * stages - 1 k-tiles of A and B in flight ahead of the consumers, a ring
 * as gemm_tc's cp.async one (L2 hits mostly, the tiles re-read by every
 * block of a row or column), over all the k-tiles of the busiest block's
 * tiles (the loads are the copy engine's: Little's law on the threads'
 * bytes in flight does not bound them); per warp and k-tile a handful
 * of instructions (the
 * mbarrier waits and arrives, the wgmma fences and commits; promotion's
 * fp32 adds, an accumulator a thread each; with two sets of partial
 * sums the adds overlap the next chain, which the model does not price).
 * DRAM: A, B and C once each, C twice with beta.  Registers: a consumer
 * thread's accumulators (with promotion and partial sums of a slab, or
 * two) and some 40.
 * Multicast adds a ragged unit's padding tiles to the work; what it
 * saves, L2's reads of the shared operand, is not a term of the model
 * (each SM still receives whole k-tiles).  Stream-K evens the busiest
 * block's k-tiles out and adds its shares' sums through L2 (a store, a
 * load and an add an accumulator). */
static void estimate(const tn_family *fam, const tn_params *p,
                     const tn_problem *prob, tn_time_work *w)
{
  wg_geometry g;
  double ktiles, stage_bytes, c_bytes;
  tn_gemm_wg_geometry(p, prob, &g);
  memset(w, 0, sizeof(*w));
  ktiles = (double)((g.k + g.bk - 1) / g.bk);
  stage_bytes = (double)(g.a_stage + g.b_stage);
  c_bytes = (double)g.out_bytes * (double)g.m * (double)g.n;
  w->wgmma_flops = 2.0 * (double)g.computed * g.bm * g.bn * ktiles * g.bk *
                   (g.in_bytes == 1 ? 0.5 : 1.0);
  w->dram_bytes = (double)g.in_bytes *
                      ((double)g.m * g.k + (double)g.k * g.n) +
                  c_bytes * (prob->opt[WG_OPT_BETA] != 0 ? 2 : 1);
  w->load_bytes = (double)g.computed * ktiles * stage_bytes;
  /* the copy engine's ring: stages - 1 k-tiles in flight ahead of the
   * one computed, over every k-tile of the busiest block's tiles */
  w->ring_ktiles = ktiles * (double)((g.computed + g.blocks - 1) / g.blocks);
  if (g.stream_k && g.split_ktiles > 0) {
    /* the units walked whole, a block's share of the split run's k-tiles;
     * each block's share that is not its tile's first is written to the
     * workspace and read back by the owner, its sums added */
    long long cols = g.blocks / (g.multicast ? g.cluster : 1);
    w->ring_ktiles = ktiles * (double)(g.dp_units / cols) +
                     (double)g.split_busiest;
    w->load_bytes += 2.0 * (double)g.blocks * 4.0 * g.bm * g.bn;
    w->other_insts += (double)g.blocks * g.bm * g.bn / 32 * 3;
  }
  w->ring_ahead = g.stages - 1;
  w->other_insts = (double)g.computed * ktiles * (g.threads / 32) * 8;
  if (g.promote) /* bm x bn adds a k-tile, 32 lanes an instruction */
    w->other_insts += (double)g.computed * ktiles * g.bm * g.bn / 32;
  w->regs = g.cm * g.bn / 128 + (g.promote ? g.partials * g.bn / 2 : 0) +
            40;
  if (w->regs > 255)
    w->regs = 255;
}

/* "cublas": cublasGemmEx, or for fp8 cuBLASLt's matmul (cuBLAS's
 * library for it) */
static const char *const baselines[] = {"cublas"};

static int baseline(const char *name, tn_baseline_env *env, char *why,
                    size_t n)
{
  tn_gemm_tc_problem g = view(env->problem);
  return tn_gemm_tc_baseline("gemm_wg", name, env, &g, why, n);
}

/* NVRTC's time grows with the unrolled wgmma of a k-tile and the
 * epilogue's stores of the accumulators. */
static double compile_weight(const tn_family *fam, const tn_params *p)
{
  double slabs = (double)(p->v[WG_BM].i / 64);
  return slabs * (double)(p->v[WG_BK].i / 16) +
         slabs * (double)(p->v[WG_BN].i / 64);
}


/* The table's form of tn_gemm_wg_plan (whose tests call it without a family).
 */
static void plan(const tn_family *fam, const tn_params *p,
                 const tn_problem *prob, tn_access_sink *sink)
{
  tn_gemm_wg_plan(p, prob, sink);
}

const tn_family tn_family_gemm_wg = {
    .name = "gemm_wg",
    .kernel = "gemm_wg",
    .params = params,
    .n_params = WG_N_PARAMS,
    .n_dims = 3,
    .dim_names = "M, N, K",
    .options = options,
    .n_options = WG_N_OPTIONS,
    .options_added = 1u << WG_OPT_SCALE_A | 1u << WG_OPT_SCALE_B |
                     1u << WG_OPT_FAST_ACCUM,
    .prepare = tn_gemm_wg_prepare,
    .launch = launch,
    .defines = defines,
    .one_block = one_block,
    .plan = plan,
    .compile_weight = compile_weight,
    .estimate = estimate,
    .buffers = buffers,
    .args = args,
    .tensor_maps = tn_gemm_wg_tensor_maps,
    .reference_source = tn_gemm_reference_source,
    .verify = verify,
    .verify_device = verify, /* reads no host buffer: the seeds */
    .work = work,
    .unit = "TFLOP/s",
    .unit_scale = 1e12,
    .arch_features = 1,
    .baselines = baselines,
    .n_baselines = 1,
    .baseline = baseline,
    .check_problem = tn_gemm_wg_check_problem,
};

/* test_gemm_tc_plan.c -- the tensor-core GEMM family's rules and access
 * plan against closed forms worked out by hand from templates/gemm_tc.cu.
 *
 * No GPU: prepare(), launch() and the model of the plan only.  The
 * ldmatrix conflicts are the point of the family's layouts: an 8 x 8
 * matrix is 8 rows of 16 bytes, one phase; rows whose pitch is a multiple
 * of 128 bytes all land on the same four banks (8-way), rows of 64 bytes
 * on two sets (4-way); a 16-byte pad or the 16-byte-chunk xor spreads the
 * eight rows over all 32 banks.  Exits 0 when every check passes. */
#include <stdio.h>
#include <string.h>

#include "base/arch.h"
#include "drift.h"
#include "family/family.h"
#include "gemm_plan_util.h"

extern const tn_family tn_family_gemm_tc;

/* The 128 x 256 x 32 tile of 64 x 64 warp tiles (2 x 4 warps), 4 stages,
 * then the settings.  Returns prepare()'s answer (why), -1 if a setting
 * does not parse. */
static int point(const setting *set, int n_set, const tn_problem *prob,
                 tn_params *p, char *why, size_t n)
{
  static const setting base[] = {{"bm", "128"},    {"bn", "256"},
                                 {"bk", "32"},     {"warp_m", "64"},
                                 {"warp_n", "64"}, {"stages", "4"}};
  return tn_test_gemm_point(&tn_family_gemm_tc, base, 6, set, n_set, prob,
                            p, why, n);
}

static tn_problem problem(long long m, long long n, long long k, int ta, int tb)
{
  return tn_test_gemm_problem(&tn_family_gemm_tc, m, n, k, ta, tb);
}

/* The same with C of the inputs' type (output = "input"), which epilogue 2
 * needs. */
static tn_problem problem_b16(long long m, long long n, long long k)
{
  tn_problem prob = problem(m, n, k, 0, 0);
  prob.opt[tn_problem_option_index(&tn_family_gemm_tc, "output")] = 1;
  return prob;
}

static int model(const char *label, const setting *set, int n_set,
                 const tn_problem *prob, tn_model_cost *cost,
                 tn_launch *launch)
{
  char why[1024];
  tn_params p;
  const tn_arch *arch = tn_arch_find("sm_90");
  if (point(set, n_set, prob, &p, why, sizeof(why)) != 0) {
    CHECK_WHY(0, "%s: rejected: %s", label, why);
    return -1;
  }
  if (tn_family_model(&tn_family_gemm_tc, &p, prob, arch, cost, why,
                      sizeof(why)) != 0) {
    CHECK_WHY(0, "%s: malformed plan: %s", label, why);
    return -1;
  }
  tn_family_gemm_tc.launch(&tn_family_gemm_tc, &p, prob, launch);
  return 0;
}

/* The worst conflict degree (or, with sum, the wavefronts in all) of the
 * accesses of kind op (and width bytes, 0: any) in one block of the point,
 * from the block's plan (drift.h), or -1 if the point is refused or the
 * plan malformed. */
static int kind_cost(const char *label, const setting *set, int n_set,
                     const tn_problem *prob, tn_op op, int width, int sum)
{
  const tn_family *f = &tn_family_gemm_tc;
  const tn_arch *arch = tn_arch_find("sm_90");
  char why[1024];
  tn_params p;
  tn_problem one;
  tn_block_plan bp;
  int i, worst = 0;
  memset(&bp, 0, sizeof(bp));
  if (point(set, n_set, prob, &p, why, sizeof(why)) != 0 ||
      f->one_block(f, &p, prob, 0, &one, why, sizeof(why)) != 0 ||
      tn_drift_block_plan(f, &p, &one, &bp, why, sizeof(why)) != 0) {
    CHECK_WHY(0, "%s: %s", label, why);
    tn_block_plan_free(&bp);
    return -1;
  }
  for (i = 0; i < bp.n; i++) {
    tn_access_cost c;
    if ((int)bp.v[i].a.op != (int)op ||
        (width && bp.v[i].a.width != width))
      continue;
    if (tn_model_access(&bp.v[i].a, arch, &c, why, sizeof(why)) != 0) {
      CHECK_WHY(0, "%s: malformed access: %s", label, why);
      worst = -1;
      break;
    }
    if (sum)
      worst += c.wavefronts;
    else if (c.degree > worst)
      worst = c.degree;
  }
  tn_block_plan_free(&bp);
  return worst;
}

static int kind_degree(const char *label, const setting *set, int n_set,
                       const tn_problem *prob, tn_op op, int width)
{
  return kind_cost(label, set, n_set, prob, op, width, 0);
}

/* The first access of kind op in one block's plan into *out; 0, or -1. */
static int first_access(const char *label, const setting *set, int n_set,
                        const tn_problem *prob, tn_op op,
                        tn_warp_access *out)
{
  const tn_family *f = &tn_family_gemm_tc;
  char why[1024];
  tn_params p;
  tn_problem one;
  tn_block_plan bp;
  int i, rc = -1;
  memset(&bp, 0, sizeof(bp));
  if (point(set, n_set, prob, &p, why, sizeof(why)) != 0 ||
      f->one_block(f, &p, prob, 0, &one, why, sizeof(why)) != 0 ||
      tn_drift_block_plan(f, &p, &one, &bp, why, sizeof(why)) != 0) {
    CHECK_WHY(0, "%s: %s", label, why);
    tn_block_plan_free(&bp);
    return -1;
  }
  for (i = 0; i < bp.n && rc != 0; i++)
    if ((int)bp.v[i].a.op == (int)op) {
      *out = bp.v[i].a;
      rc = 0;
    }
  tn_block_plan_free(&bp);
  return rc;
}

/* Per warp and k-tile of 128 x 256 x 32: the copies, 2 chunks of A (128
 * rows x 4 chunks over 256 threads) and 4 of B (32 x 32), as 16-byte
 * stores; per 16-deep k-step 4 ldmatrix.x4 of A (64 rows) and 4 of B (64
 * columns, two 8-column fragments each). */
static void test_counts(void)
{
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  tn_model_cost c;
  tn_launch l;
  long long blocks = 32 * 16, ktiles = 4096 / 32, warps = 8;
  static const setting plain[] = {{"group_m", "8"}};

  if (model("plain", plain, 1, &prob, &c, &l) != 0)
    return;
  CHECK_WHY(l.threads == 256 && l.grid[0] == 512 && l.grid[1] == 1,
            "launch: %d threads, grid %u x %u (group_m: one dimension)",
            l.threads, l.grid[0], l.grid[1]);
  CHECK_WHY(l.smem_dynamic == 4 * (128 * 32 + 32 * 256) * 2 &&
                l.smem_static == 0,
            "smem dynamic %d static %d", l.smem_dynamic, l.smem_static);
  CHECK_WHY(c.st_insts == blocks * ktiles * warps * 6, "st_insts %lld",
            c.st_insts);
  CHECK_WHY(c.ld_insts == blocks * ktiles * warps * 2 * 8, "ld_insts %lld",
            c.ld_insts);
  /* B's rows are 512 bytes: every row of an 8 x 8 matrix on the same
   * four banks */
  CHECK_WHY(c.max_degree == 8, "plain: max degree %d, expected 8",
            c.max_degree);
}

/* The degrees of the fragment loads (ldmatrix), with each operand's
 * layout; the other operand conflict-free (pad 8).  (The copies into a
 * padded tile are 2-way: a 16-byte pad shifts the second row of a phase
 * by one chunk; the model prices that too, see test_copies.) */
static void test_layouts(void)
{
  static const struct {
    const char *label;
    setting set[2];
    int degree;
  } cases[] = {
      /* As rows of 32 bf16 = 64 bytes: rows r and r + 2 share banks */
      {"A plain", {{"pad_a", "0"}, {"pad_b", "8"}}, 4},
      {"A pad 8", {{"pad_a", "8"}, {"pad_b", "8"}}, 1},
      {"A xor", {{"swizzle_a", "xor"}, {"pad_b", "8"}}, 1},
      {"A sw64", {{"swizzle_a", "sw64"}, {"pad_b", "8"}}, 1},
      /* sw32 xors one bit: rows r and r + 4 still share banks */
      {"A sw32", {{"swizzle_a", "sw32"}, {"pad_b", "8"}}, 2},
      /* Bs rows of 256 bf16 = 512 bytes */
      {"B plain", {{"pad_a", "8"}, {"pad_b", "0"}}, 8},
      {"B pad 8", {{"pad_a", "8"}, {"pad_b", "8"}}, 1},
      {"B xor", {{"pad_a", "8"}, {"swizzle_b", "xor"}}, 1},
      /* the 128-byte Hopper swizzle xors the chunk with offset bits 6-8:
       * two column bits and one row bit of a 256-wide tile, so the eight
       * rows of a matrix take two bank sets */
      {"B sw128", {{"pad_a", "8"}, {"swizzle_b", "sw128"}}, 4},
  };
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  size_t i;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    int d = kind_degree(cases[i].label, cases[i].set, 2, &prob,
                        TN_OP_LDMATRIX, 0);
    CHECK_WHY(d == cases[i].degree, "%s: ldmatrix degree %d, expected %d",
              cases[i].label, d, cases[i].degree);
  }
}

/* Transposed operands: As[k][m] (rows of 128 bf16) and Bs[n][k] (rows of
 * 32) swap which tile is 8-way and which 4-way; ldmatrix.trans reads the
 * same rows. */
static void test_transposed(void)
{
  static const setting a_only[] = {{"pad_b", "8"}};
  static const setting b_only[] = {{"pad_a", "8"}};
  tn_problem prob = problem(4096, 4096, 4096, 1, 1);
  int d = kind_degree("trans A plain", a_only, 1, &prob, TN_OP_LDMATRIX, 0);
  CHECK_WHY(d == 8, "As[k][m] plain: ldmatrix degree %d, expected 8", d);
  d = kind_degree("trans B plain", b_only, 1, &prob, TN_OP_LDMATRIX, 0);
  CHECK_WHY(d == 4, "Bs[n][k] plain: ldmatrix degree %d, expected 4", d);
}

/* Epilogue 1: the float2 stores of a fragment row (8 rows x 4 lanes per
 * instruction, half a warp a phase) land 4-way on rows of 64 floats; a pad
 * of 8 floats moves each row 8 banks on.  The float4 loads read whole
 * rows: conflict-free either way. */
static void test_epilogue(void)
{
  static const setting e0[] = {{"pad_a", "8"}, {"pad_b", "8"},
                               {"epilogue", "1"}, {"pad_c", "0"}};
  static const setting e8[] = {{"pad_a", "8"}, {"pad_b", "8"},
                               {"epilogue", "1"}, {"pad_c", "8"}};
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  tn_model_cost c;
  tn_launch l;
  long long blocks = 32 * 16, ktiles = 4096 / 32, warps = 8;
  int s0 = kind_degree("epilogue pad 0", e0, 4, &prob, TN_OP_ST, 8);
  int s8 = kind_degree("epilogue pad 8", e8, 4, &prob, TN_OP_ST, 8);
  int l8 = kind_degree("epilogue pad 8", e8, 4, &prob, TN_OP_LD, 16);
  CHECK_WHY(s0 == 4, "staging pad 0: store degree %d, expected 4", s0);
  CHECK_WHY(s8 == 1, "staging pad 8: store degree %d, expected 1", s8);
  CHECK_WHY(l8 == 1, "staging pad 8: load degree %d, expected 1", l8);
  if (model("epilogue pad 0", e0, 4, &prob, &c, &l) == 0) {
    /* per warp: 4 slices x (16 float2 stores + 8 float4 loads) */
    CHECK_WHY(c.st_insts == blocks * (ktiles * warps * 6 + warps * 4 * 16),
              "st_insts %lld", c.st_insts);
    CHECK_WHY(c.ld_insts == blocks * (ktiles * warps * 16 + warps * 4 * 8),
              "ld_insts %lld", c.ld_insts);
  }
}

/* Epilogue 2, one block of 8 warps of 64 x 64: per warp 4 slices of 16
 * rows, each 4 stmatrix.x4 (16 x 16 of C's 16-bit values each) and 4
 * 16-byte loads (16 rows of 128 bytes, 32 lanes at a time).  A stmatrix
 * matrix is 8 rows of 16 bytes in one phase: on rows of 64 elements (128
 * bytes) all 8 on the same four banks, 8 wavefronts a matrix, 32 an
 * instruction; a pad of 8 elements (16 bytes) moves each row four banks
 * on: 4 an instruction; a pad of 16 (32 bytes) eight banks, so rows r and
 * r + 4 meet: 2-way, 8.  Each 8-lane phase of the loads reads one whole
 * 128-byte row: 1 wavefront a phase, 4 a load, whatever the pad. */
static void test_stmatrix(void)
{
  static const setting e0[] = {{"pad_a", "8"}, {"pad_b", "8"},
                               {"epilogue", "2"}, {"pad_c", "0"}};
  static const setting e8[] = {{"pad_a", "8"}, {"pad_b", "8"},
                               {"epilogue", "2"}, {"pad_c", "8"}};
  static const setting e16[] = {{"pad_a", "8"}, {"pad_b", "8"},
                                {"epilogue", "2"}, {"pad_c", "16"}};
  static const setting direct[] = {{"pad_a", "8"}, {"pad_b", "8"}};
  static const struct {
    const char *label;
    const setting *set;
    int st_wf, degree;
  } cases[] = {{"stmatrix pad 0", e0, 8 * 4 * 4 * 32, 8},
               {"stmatrix pad 8", e8, 8 * 4 * 4 * 4, 1},
               {"stmatrix pad 16", e16, 8 * 4 * 4 * 8, 2}};
  tn_problem prob = problem_b16(4096, 4096, 4096);
  tn_model_cost c, d;
  tn_launch l;
  long long blocks = 32 * 16;
  size_t i;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    int wf = kind_cost(cases[i].label, cases[i].set, 4, &prob,
                       TN_OP_STMATRIX, 16, 1);
    int deg = kind_degree(cases[i].label, cases[i].set, 4, &prob,
                          TN_OP_STMATRIX, 16);
    int lwf = kind_cost(cases[i].label, cases[i].set, 4, &prob, TN_OP_LD,
                        16, 1);
    CHECK_WHY(wf == cases[i].st_wf, "%s: %d stmatrix wavefronts a block, "
              "expected %d", cases[i].label, wf, cases[i].st_wf);
    CHECK_WHY(deg == cases[i].degree, "%s: stmatrix degree %d, expected %d",
              cases[i].label, deg, cases[i].degree);
    CHECK_WHY(lwf == 8 * 4 * 4 * 4, "%s: %d staging load wavefronts a block, "
              "expected %d", cases[i].label, lwf, 8 * 4 * 4 * 4);
  }
  /* which lane names which row (costs alone would not see matrices
   * swapped): warp 0's first stmatrix, rows of 72 elements; lane l gives
   * row l % 8 of matrix l / 8, the matrices at (row, column) (0, 0),
   * (8, 0), (0, 8), (8, 8), the template's register order */
  {
    static const int lanes[] = {0, 7, 8, 16, 31};
    static const unsigned want[] = {0, 2 * 7 * 72, 2 * 8 * 72, 2 * 8,
                                    2 * (15 * 72 + 8)};
    tn_warp_access a;
    if (first_access("stmatrix rows", e8, 4, &prob, TN_OP_STMATRIX, &a) ==
        0)
      for (i = 0; i < sizeof(lanes) / sizeof(lanes[0]); i++)
        CHECK_WHY(a.addr[lanes[i]] == want[i] && a.matrices == 4,
                  "stmatrix lane %d: address %u, expected %u", lanes[i],
                  a.addr[lanes[i]], want[i]);
    else
      CHECK_WHY(0, "no stmatrix in the plan");
  }
  /* the launch: the epilogue adds, per block, 8 warps x 4 slices x 4 of
   * each, and its wavefronts to epilogue 0's */
  if (model("stmatrix pad 8", e8, 4, &prob, &c, &l) == 0 &&
      model("direct", direct, 2, &prob, &d, &l) == 0) {
    CHECK_WHY(c.st_insts - d.st_insts == blocks * 8 * 4 * 4, "st_insts +%lld",
              c.st_insts - d.st_insts);
    CHECK_WHY(c.ld_insts - d.ld_insts == blocks * 8 * 4 * 4, "ld_insts +%lld",
              c.ld_insts - d.ld_insts);
    CHECK_WHY(c.st_wavefronts - d.st_wavefronts == blocks * 8 * 4 * 4 * 4,
              "st wavefronts +%lld", c.st_wavefronts - d.st_wavefronts);
    CHECK_WHY(c.ld_wavefronts - d.ld_wavefronts == blocks * 8 * 4 * 4 * 4,
              "ld wavefronts +%lld", c.ld_wavefronts - d.ld_wavefronts);
  }
}

/* Epilogue 2's rules: a 16-bit C, 16-byte staging rows, sm_90's stmatrix. */
static void test_stmatrix_rules(void)
{
  static const setting e8[] = {{"epilogue", "2"}, {"pad_c", "8"}};
  static const setting e4[] = {{"epilogue", "2"}, {"pad_c", "4"}};
  const tn_family *f = &tn_family_gemm_tc;
  tn_problem f32 = problem(4096, 4096, 4096, 0, 0);
  tn_problem b16 = problem_b16(4096, 4096, 4096);
  char why[1024] = "";
  tn_params p;
  tn_launch l;
  int rc = point(e8, 2, &f32, &p, why, sizeof(why));
  CHECK_WHY(rc == 1 && strstr(why, "not f32") != NULL,
            "epilogue 2, fp32 C: rc %d, why '%s'", rc, why);
  rc = point(e4, 2, &b16, &p, why, sizeof(why));
  CHECK_WHY(rc == 1 && strstr(why, "multiple of 8") != NULL,
            "epilogue 2, pad_c 4: rc %d, why '%s'", rc, why);
  rc = point(e8, 2, &b16, &p, why, sizeof(why));
  CHECK_WHY(rc == 0, "epilogue 2, pad_c 8, 16-bit C: refused: %s", why);
  if (rc != 0)
    return;
  /* the space excludes it before sm_90 (launch's min_cc), with why */
  f->launch(f, &p, &b16, &l);
  CHECK_WHY(l.min_cc == 90 && l.needs != NULL && strstr(l.needs, "stmatrix"),
            "epilogue 2: min_cc %d, needs '%s'", l.min_cc,
            l.needs ? l.needs : "(null)");
  rc = point(e4, 0, &b16, &p, why, sizeof(why));
  f->launch(f, &p, &b16, &l);
  CHECK_WHY(rc == 0 && l.min_cc == 0, "epilogue 0: rc %d, min_cc %d", rc,
            l.min_cc);
}

/* The copies' 16-byte stores: a warp writes 512 bytes, a quarter-warp
 * phase 128: two 64-byte rows of As, contiguous when plain or swizzled
 * (the xor permutes chunks within a row); a 16-byte pad moves the second
 * row one chunk on, onto the first row's first chunk's banks: 2-way. */
static void test_copies(void)
{
  static const setting plain[] = {{"pad_b", "0"}};
  static const setting pad[] = {{"pad_a", "8"}};
  static const setting swz[] = {{"swizzle_a", "xor"}};
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  int d = kind_degree("copies plain", plain, 1, &prob, TN_OP_ST, 16);
  CHECK_WHY(d == 1, "plain copies: degree %d, expected 1", d);
  d = kind_degree("copies pad", pad, 1, &prob, TN_OP_ST, 16);
  CHECK_WHY(d == 2, "copies into padded As: degree %d, expected 2", d);
  d = kind_degree("copies xor", swz, 1, &prob, TN_OP_ST, 16);
  CHECK_WHY(d == 1, "copies into swizzled As: degree %d, expected 1", d);
}

/* The rules: what prepare() refuses, each with its reason. */
static void test_rules(void)
{
  static const struct {
    setting set[2];
    const char *needle;
  } bad[] = {
      {{{"pad_a", "4"}, {"pad_b", "0"}}, "multiples of 8"},
      {{{"swizzle_a", "cute(3,2,3)"}, {"pad_b", "0"}}, "M >= 3"},
      {{{"bm", "16"}, {"pad_b", "0"}}, "16x16"},
      {{{"pad_c", "8"}, {"epilogue", "0"}}, "pad_c must stay 0"},
      /* 64-byte rows of As cannot take the 128-byte swizzle */
      {{{"swizzle_a", "sw128"}, {"pad_b", "0"}}, "128-byte swizzle"},
  };
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  size_t i;
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    char why[1024] = "";
    tn_params p;
    int rc = point(bad[i].set, 2, &prob, &p, why, sizeof(why));
    CHECK_WHY(rc == 1 && strstr(why, bad[i].needle) != NULL,
              "case %zu: rc %d, why '%s' (expected '%s')", i, rc, why,
              bad[i].needle);
  }
}

/* The copies are counted apart as cp.async exactly where the template
 * uses cp.async: an operand whose leading dimension is a multiple of 8.
 * Without a staged epilogue every shared store is a copy. */
static void test_async_split(void)
{
  static const setting plain[] = {{"group_m", "8"}};
  tn_problem aligned = problem(256, 512, 256, 0, 0);
  tn_problem odd_k = problem(256, 512, 250, 0, 0); /* A's rows: K */
  tn_problem odd_kn = problem(256, 500, 250, 0, 0);
  tn_model_cost c;
  tn_launch l;
  long long ktiles = (250 + 31) / 32, blocks = 2 * 2, warps = 8;

  if (model("aligned", plain, 1, &aligned, &c, &l) == 0)
    CHECK_WHY(c.async_wavefronts == c.st_wavefronts &&
                  c.async_insts == c.st_insts && c.async_insts > 0,
              "aligned: cp.async %lld of %lld wavefronts, %lld of %lld insts",
              c.async_wavefronts, c.st_wavefronts, c.async_insts, c.st_insts);
  /* A (2 of the 6 copies a warp and k-tile) element-wise, B by cp.async */
  if (model("K % 8 != 0", plain, 1, &odd_k, &c, &l) == 0)
    CHECK_WHY(c.async_insts == blocks * ktiles * warps * 4 &&
                  c.st_insts == blocks * ktiles * warps * 6,
              "K %% 8 != 0: cp.async %lld of %lld insts", c.async_insts,
              c.st_insts);
  if (model("K, N % 8 != 0", plain, 1, &odd_kn, &c, &l) == 0)
    CHECK_WHY(c.async_wavefronts == 0 && c.async_insts == 0,
              "K, N %% 8 != 0: cp.async %lld wavefronts, %lld insts",
              c.async_wavefronts, c.async_insts);
}

/* The copies are priced as cp.async.cg (model_async.c): a 16-byte pad
 * rotates a row's chunks against its global line and splits the line over
 * two shared rows, so a padded operand's copies cost more than a plain or
 * swizzled one's (Nsight Compute's ordering on these layouts, run 17), and
 * the instructions stay the same. */
static void test_async_pads(void)
{
  static const setting none[] = {{"pad_c", "0"}};
  static const setting xor_both[] = {{"swizzle_a", "xor"},
                                     {"swizzle_b", "xor"}};
  static const setting pad_a[] = {{"pad_a", "8"}};
  static const setting pad_b[] = {{"pad_b", "8"}};
  static const setting pads[] = {{"pad_a", "8"}, {"pad_b", "8"}};
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  tn_model_cost c0, cx, ca, cb, cab;
  tn_launch l;
  if (model("none", none, 1, &prob, &c0, &l) || model("xor", xor_both, 2,
                                                      &prob, &cx, &l) ||
      model("pad_a", pad_a, 1, &prob, &ca, &l) ||
      model("pad_b", pad_b, 1, &prob, &cb, &l) ||
      model("pads", pads, 2, &prob, &cab, &l))
    return;
  CHECK_WHY(cx.async_wavefronts == c0.async_wavefronts,
            "xor copies %lld, plain %lld", cx.async_wavefronts,
            c0.async_wavefronts);
  CHECK_WHY(c0.async_wavefronts < ca.async_wavefronts &&
                ca.async_wavefronts < cb.async_wavefronts &&
                cb.async_wavefronts < cab.async_wavefronts,
            "copies: plain %lld, pad_a %lld, pad_b %lld, both %lld",
            c0.async_wavefronts, ca.async_wavefronts, cb.async_wavefronts,
            cab.async_wavefronts);
  /* the pads' extra wavefronts add up */
  CHECK_WHY(cab.async_wavefronts - c0.async_wavefronts ==
                (ca.async_wavefronts - c0.async_wavefronts) +
                    (cb.async_wavefronts - c0.async_wavefronts),
            "pads: %lld extra, pad_a %lld + pad_b %lld",
            cab.async_wavefronts - c0.async_wavefronts,
            ca.async_wavefronts - c0.async_wavefronts,
            cb.async_wavefronts - c0.async_wavefronts);
  CHECK_WHY(cab.async_insts == c0.async_insts && c0.async_insts > 0,
            "copy instructions %lld and %lld", cab.async_insts, c0.async_insts);
}

int main(void)
{
  test_counts();
  test_layouts();
  test_transposed();
  test_epilogue();
  test_copies();
  test_async_split();
  test_async_pads();
  test_stmatrix();
  test_stmatrix_rules();
  test_rules();
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("gemm_tc plan: all checks passed\n");
  return 0;
}

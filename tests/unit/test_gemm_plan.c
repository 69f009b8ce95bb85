/* test_gemm_plan.c -- the gemm family's rules and access plan against
 * closed forms worked out by hand from templates/gemm.cu.
 *
 * No GPU: prepare(), launch() and the model of the plan only.  Instruction
 * counts are exact (warp instructions per launch); conflict degrees are
 * checked where they come from 4-byte accesses (one phase of 32 lanes, so
 * they do not depend on how the model splits 8- and 16-byte accesses into
 * phases) or where every phase is conflict-free under any split (broadcasts
 * and contiguous runs).  Exits 0 when every check passes. */
#include <stdio.h>
#include <string.h>

#include "base/arch.h"
#include "family/family.h"
#include "gemm_plan_util.h"
#include "../../templates/gemm_lanes.h"

extern const tn_family tn_family_gemm;

/* A point: the family's defaults, then the settings.  Returns 0 if
 * prepare() accepts it, 1 if not (why), -1 if a setting does not apply. */
static int point(const setting *set, int n_set, const tn_problem *prob,
                 tn_params *p, char *why, size_t n)
{
  return tn_test_gemm_point(&tn_family_gemm, NULL, 0, set, n_set, prob, p,
                            why, n);
}

static tn_problem problem(long long m, long long n, long long k, int ta, int tb)
{
  return tn_test_gemm_problem(&tn_family_gemm, m, n, k, ta, tb);
}

/* Prepares and models a point that must be valid. */
static int model(const char *label, const setting *set, int n_set,
                 const tn_problem *prob, tn_model_cost *cost,
                 tn_launch *launch)
{
  char why[1024];
  tn_params p;
  const tn_arch *arch = tn_arch_find("sm_90");
  int rc = point(set, n_set, prob, &p, why, sizeof(why));
  if (rc != 0) {
    CHECK_WHY(0, "%s: rejected: %s", label, why);
    return -1;
  }
  if (tn_family_model(&tn_family_gemm, &p, prob, arch, cost, why,
                      sizeof(why)) != 0) {
    CHECK_WHY(0, "%s: malformed plan: %s", label, why);
    return -1;
  }
  tn_family_gemm.launch(&tn_family_gemm, &p, prob, launch);
  return 0;
}

static long long cdiv(long long a, long long b)
{
  return (a + b - 1) / b;
}

/* 128x128x8 block tile, 8x8 per thread, warps of 32x64 (lanes 4 x 8): per
 * warp and k-tile 8 k steps x (2 float4 of As + 2 of Bs) = 32 LDS.128; one
 * float4 of A and one of B per thread and tile: A not transposed is
 * transposed into As[k][m] by 4 STS.32, B goes to Bs[k][n] by one
 * STS.128 (or cp.async). */
static void test_main_tile(void)
{
  static const setting pad0[] = {{"pad_a", "0"}};
  static const setting pad4[] = {{"pad_a", "4"}};
  static const setting xor4[] = {{"swizzle_a", "xor"}};
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  tn_model_cost c;
  tn_launch l;
  long long blocks = 32 * 32, ktiles = 4096 / 8, warps = 8;

  if (model("128x128x8 pad 0", pad0, 1, &prob, &c, &l) == 0) {
    CHECK_WHY(l.threads == 256 && l.grid[0] == 32 && l.grid[1] == 32,
              "launch %d threads, grid %u x %u", l.threads, l.grid[0],
              l.grid[1]);
    CHECK_WHY(l.smem_static == 2 * (8 * 128 + 8 * 128) * 4 &&
                  l.smem_dynamic == 0,
              "smem static %d dynamic %d", l.smem_static, l.smem_dynamic);
    CHECK_WHY(c.ld_insts == blocks * ktiles * warps * 32, "ld_insts %lld",
              c.ld_insts);
    CHECK_WHY(c.st_insts == blocks * ktiles * warps * 5, "st_insts %lld",
              c.st_insts);
    /* the transposing stores: lanes 2i and 2i+1 hold rows m0 + i and
     * columns k 0..3 and 4..7; As[k][m] rows are 128 floats, so k and
     * k + 4 of one m share a bank: degree 2 */
    CHECK_WHY(c.max_degree == 2, "max degree %d, expected 2", c.max_degree);
  }
  /* pad 4: row k + 4 starts 16 banks on; the swizzle xors the float4
   * chunk index with k: both clear it, and the float4 loads are
   * broadcasts (As) and contiguous runs (Bs) */
  if (model("128x128x8 pad 4", pad4, 1, &prob, &c, &l) == 0) {
    CHECK_WHY(c.max_degree == 1, "pad 4: max degree %d", c.max_degree);
    CHECK_WHY(l.smem_static == 2 * (8 * 132 + 8 * 128) * 4,
              "pad 4: smem %d", l.smem_static);
  }
  if (model("128x128x8 xor", xor4, 1, &prob, &c, &l) == 0)
    CHECK_WHY(c.max_degree == 1, "xor: max degree %d", c.max_degree);
}

/* bk = 16: four threads per A row, so a warp's transposing stores cover 8
 * rows m and 4 runs of k (k = 4q + e, q = lane % 4).  A pad that keeps
 * float4 alignment (a multiple of 4) separates only two runs: degree 2;
 * so does xor (chunk ^= k & 7 sees one bit of q).  Swizzle<3,2,6>
 * (chunk ^= (k >> 1) & 7) sees both bits of q: degree 1. */
static void test_bk16(void)
{
  static const setting base[] = {{"bk", "16"}, {"pad_a", "4"}};
  static const setting swz[] = {{"bk", "16"}, {"swizzle_a", "cute(3,2,6)"}};
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  tn_model_cost c;
  tn_launch l;
  long long blocks = 32 * 32, ktiles = 4096 / 16, warps = 8;

  if (model("bk 16 pad 4", base, 2, &prob, &c, &l) == 0) {
    /* 2 float4 of A and 2 of B per thread and tile */
    CHECK_WHY(c.ld_insts == blocks * ktiles * warps * 64, "ld_insts %lld",
              c.ld_insts);
    CHECK_WHY(c.st_insts == blocks * ktiles * warps * 10, "st_insts %lld",
              c.st_insts);
    CHECK_WHY(c.max_degree == 2, "bk 16 pad 4: max degree %d", c.max_degree);
  }
  if (model("bk 16 cute(3,2,6)", swz, 2, &prob, &c, &l) == 0)
    CHECK_WHY(c.max_degree == 1, "bk 16 cute(3,2,6): max degree %d",
              c.max_degree);
}

/* The textbook kernel (TILE = bm, its other parameters at their defaults):
 * per warp and tile one STS.32 to As and one to Bs; TILE / v loads of an
 * As row (v floats each: 4 when the row pitch allows) and TILE scalar
 * loads Bs[k][tx]. */
static void test_textbook(void)
{
  static const setting t16[] = {{"kernel", "0"}, {"bm", "16"}};
  static const setting t32p1[] = {{"kernel", "0"}, {"bm", "32"},
                                  {"pad_a", "1"},  {"pad_b", "1"}};
  static const setting t16p1[] = {{"kernel", "0"}, {"bm", "16"},
                                  {"pad_a", "1"}};
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  tn_model_cost c;
  tn_launch l;

  if (model("textbook 16", t16, 2, &prob, &c, &l) == 0) {
    long long bt = 256LL * 256 * 256; /* blocks x tiles */
    CHECK_WHY(l.block[0] == 16 && l.block[1] == 16 && l.threads == 256,
              "textbook 16: block %u x %u", l.block[0], l.block[1]);
    CHECK_WHY(c.ld_insts == bt * 8 * (16 / 4 + 16), "textbook 16: ld %lld",
              c.ld_insts);
    CHECK_WHY(c.st_insts == bt * 8 * 2, "textbook 16: st %lld", c.st_insts);
    /* a warp is two rows of 16: As/Bs[ty][tx] are 32 consecutive words */
    CHECK_WHY(c.max_degree == 1, "textbook 16: degree %d", c.max_degree);
  }
  if (model("textbook 32 pad 1", t32p1, 4, &prob, &c, &l) == 0) {
    long long bt = 128LL * 128 * 128;
    CHECK_WHY(l.threads == 1024, "textbook 32: %d threads", l.threads);
    /* an odd pitch: scalar loads of the As row */
    CHECK_WHY(c.ld_insts == bt * 32 * (32 + 32), "textbook 32: ld %lld",
              c.ld_insts);
    CHECK_WHY(c.st_insts == bt * 32 * 2, "textbook 32: st %lld", c.st_insts);
  }
  /* pitch 17: the second row of a warp starts at word 17, so its lane 15
   * (word 32) meets lane 0 (word 0) in bank 0 */
  if (model("textbook 16 pad 1", t16p1, 3, &prob, &c, &l) == 0)
    CHECK_WHY(c.max_degree == 2, "textbook 16 pad 1: degree %d", c.max_degree);
}

/* 3000 x 5000 x 1000: no dimension is a multiple of a tile; the template
 * zero-fills instead of predicating shared accesses, so every block runs
 * the full plan: 24 x 40 blocks, 125 k-tiles (63 in buffer 0, 62 in 1). */
static void test_odd(void)
{
  static const setting pad4[] = {{"pad_a", "4"}};
  tn_problem prob = problem(3000, 5000, 1000, 0, 0);
  tn_model_cost c;
  tn_launch l;
  if (model("odd", pad4, 1, &prob, &c, &l) == 0) {
    long long blocks = cdiv(3000, 128) * cdiv(5000, 128);
    CHECK_WHY(l.grid[0] == 40 && l.grid[1] == 24, "odd: grid %u x %u",
              l.grid[0], l.grid[1]);
    CHECK_WHY(c.ld_insts == blocks * 125 * 8 * 32, "odd: ld %lld", c.ld_insts);
    CHECK_WHY(c.st_insts == blocks * 125 * 8 * 5, "odd: st %lld", c.st_insts);
  }
}

/* 64x64x8 with 4x4 per thread: 256 threads but 128 float4 slots per
 * operand, so only warps 0-3 store (4 STS.32 of A, 1 STS.128 of B);
 * loads: 8 k x (1 float4 of As + 1 of Bs) per warp. */
static void test_partial_slots(void)
{
  static const setting s[] = {{"bm", "64"}, {"bn", "64"}, {"tm", "4"},
                              {"tn", "4"},  {"lanes_m", "8"}, {"pad_a", "4"}};
  tn_problem prob = problem(1024, 1024, 512, 0, 0);
  tn_model_cost c;
  tn_launch l;
  if (model("64x64", s, 6, &prob, &c, &l) == 0) {
    long long bt = 16LL * 16 * 64;
    CHECK_WHY(l.threads == 256, "64x64: %d threads", l.threads);
    CHECK_WHY(c.ld_insts == bt * 8 * 16, "64x64: ld %lld", c.ld_insts);
    CHECK_WHY(c.st_insts == bt * 4 * 5, "64x64: st %lld", c.st_insts);
  }
}

/* Transposed operands: A^T is stored K x M, so its tile copies straight
 * into As[k][m] (STS.128); B^T is N x K and is transposed into Bs[k][n]
 * (4 STS.32 per thread).  With no pad the B stores meet in pairs as the A
 * stores did above. */
static void test_trans(void)
{
  static const setting none[] = {{"pad_b", "0"}};
  static const setting pad4[] = {{"pad_b", "4"}};
  tn_problem prob = problem(2048, 2048, 2048, 1, 1);
  tn_model_cost c;
  tn_launch l;
  long long bt = 16LL * 16 * 256;
  if (model("trans", none, 1, &prob, &c, &l) == 0) {
    CHECK_WHY(c.ld_insts == bt * 8 * 32 && c.st_insts == bt * 8 * 5,
              "trans: ld %lld st %lld", c.ld_insts, c.st_insts);
    CHECK_WHY(c.max_degree == 2, "trans: degree %d", c.max_degree);
  }
  if (model("trans pad 4", pad4, 1, &prob, &c, &l) == 0)
    CHECK_WHY(c.max_degree == 1, "trans pad 4: degree %d", c.max_degree);
}

/* As[m][k] (a_kmajor = 0): per 4 k a thread reads its 8 rows as float4s
 * along k: BK / 4 * 8 loads of As, BK * 2 of Bs; the A tile copies
 * without transposition (STS.128 or cp.async).  bk = 32 needs
 * 2 x (128 x 36 + 32 x 128) floats: dynamic shared memory. */
static void test_mmajor(void)
{
  static const setting s[] = {{"bk", "32"}, {"a_kmajor", "0"},
                              {"pad_a", "4"}};
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  tn_model_cost c;
  tn_launch l;
  long long bt = 32LL * 32 * 128;
  if (model("m-major", s, 3, &prob, &c, &l) == 0) {
    CHECK_WHY(l.smem_static == 0 &&
                  l.smem_dynamic == 2 * (128 * 36 + 32 * 128) * 4,
              "m-major: smem static %d dynamic %d", l.smem_static,
              l.smem_dynamic);
    CHECK_WHY(c.ld_insts == bt * 8 * (32 / 4 * 8 + 32 * 2), "m-major: ld %lld",
              c.ld_insts);
    /* 128 x 32 / 4 = 1024 float4 slots per operand: 4 per thread */
    CHECK_WHY(c.st_insts == bt * 8 * (4 + 4), "m-major: st %lld", c.st_insts);
  }
}

/* templates/gemm_lanes.h: each order places the 32 lanes on the LM x LN
 * grid one to one; order 1 puts lc's bit at lane bit 0 and lr's at bit 1,
 * so that lanes l and l ^ 1 share a row and l and l ^ 2 a column. */
static void test_lane_orders(void)
{
  int lm, order, lane;
  for (lm = 1; lm <= 32; lm *= 2) {
    for (order = 0; order < 2; order++) {
      int seen[32] = {0}, paired = 1;
      for (lane = 0; lane < 32; lane++) {
        int r = tn_gemm_lane_pos(lane, lm, order, 1);
        int c = tn_gemm_lane_pos(lane, lm, order, 0);
        if (r >= 0 && r < lm && c >= 0 && c < 32 / lm)
          seen[r * (32 / lm) + c]++;
        if (order == 1 &&
            ((lm < 32 && tn_gemm_lane_pos(lane ^ 1, lm, 1, 1) != r) ||
             (lm > 1 && tn_gemm_lane_pos(lane ^ 2, lm, 1, 0) != c)))
          paired = 0;
      }
      for (lane = 0; lane < 32; lane++)
        CHECK_WHY(seen[lane] == 1, "lanes_m %d order %d: place %d taken %d "
                  "times", lm, order, lane, seen[lane]);
      CHECK_WHY(paired, "lanes_m %d order 1: lanes not paired", lm);
    }
  }
}

/* The ring's 128 x 128 x 32 (8 x 8, lanes 4 x 8): per warp and k-tile 64
 * LDS.128 of As[m][k] (8 rows x 8 float4 along k) and 64 of Bs[k][n].  A
 * warp's As loads hit 4 rows, lanes of one row together; Bs's 8 float4
 * of a row, every row's lanes the same.  Unswizzled, As's 4 rows share
 * banks: the paired halves (lanes l, l ^ 1 on one address) take 2
 * wavefronts each, 4 a load; sw128 puts rows 4 apart on other chunks: 2.
 * Bs: 4 quarter-warps of 8 distinct float4s, unpaired: 4.  Lane order 1
 * pairs Bs's loads too (2), and with runs of 2 rows (run_m 2) As's 4 rows lie
 * on 4 chunks under sw128 (2); with runs of 4 (run_m 0) two of them share
 * one, and As's halves no longer pair the same rows: 4. */
static void test_ring_lanes(void)
{
  static const setting base[] = {
      {"bk", "32"},       {"a_kmajor", "0"},  {"pipeline", "3"},
      {"stages", "2"},    {"producer", "1"},  {"swizzle_a", "none"},
      {"lane_order", "0"}, {"run_m", "0"}};
  static const struct {
    const char *swizzle, *order, *vm;
    int per_warp_tile; /* wavefronts of As's and Bs's 128 loads */
  } cases[] = {{"none", "0", "0", 64 * 4 + 64 * 4},
               {"sw128", "0", "0", 64 * 2 + 64 * 4},
               {"sw128", "1", "2", 64 * 2 + 64 * 2},
               {"sw128", "1", "1", 64 * 2 + 64 * 2},
               {"sw128", "1", "0", 64 * 4 + 64 * 2}};
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  long long bt = 32LL * 32 * 128 * 8; /* blocks x k-tiles x warps */
  size_t i;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    setting s[8];
    tn_model_cost c;
    tn_launch l;
    memcpy(s, base, sizeof(s));
    s[5].value = cases[i].swizzle;
    s[6].value = cases[i].order;
    s[7].value = cases[i].vm;
    if (model("ring lanes", s, 8, &prob, &c, &l) != 0)
      continue;
    CHECK_WHY(c.ld_insts == bt * 128 &&
                  c.ld_wavefronts == bt * cases[i].per_warp_tile,
              "ring %s order %s run_m %s: %lld loads, %lld wavefronts (want "
              "%lld)", cases[i].swizzle, cases[i].order, cases[i].vm,
              c.ld_insts, c.ld_wavefronts, bt * cases[i].per_warp_tile);
  }
}

/* What prepare() must refuse, and that it says why. */
static void test_rejects(void)
{
  static const setting pad2[] = {{"pad_a", "2"}};
  static const setting cute[] = {{"swizzle_a", "cute(3,1,6)"}};
  static const setting lanes[] = {{"lanes_m", "12"}};
  static const setting vm3[] = {{"run_m", "3"}};
  static const setting vm_big[] = {{"tm", "2"}, {"run_m", "4"}};
  static const setting vm_dup[] = {{"run_m", "4"}};
  static const setting tb[] = {{"kernel", "0"}, {"bm", "16"}, {"bn", "16"}};
  static const setting tb_extra[] = {{"kernel", "0"}, {"bm", "16"},
                                     {"pipeline", "0"}};
  static const setting tb64[] = {{"kernel", "0"}, {"bm", "64"}};
  static const setting big[] = {{"bm", "256"}, {"bn", "256"}, {"tm", "4"},
                                {"tn", "8"}};
  static const struct {
    const char *label;
    const setting *s;
    int n;
  } cases[] = {
      {"pad_a 2 with float4 As", pad2, 1},
      {"swizzle splitting float4", cute, 1},
      {"lanes_m not dividing 32", lanes, 1},
      {"runs of 3 rows", vm3, 1},
      {"runs longer than tm", vm_big, 2},
      {"run_m spelling out the default", vm_dup, 1},
      {"textbook with bn set", tb, 3},
      {"textbook with a pipeline", tb_extra, 3},
      {"textbook TILE 64 (4096 threads)", tb64, 2},
      {"2048 threads", big, 4},
  };
  tn_problem prob = problem(4096, 4096, 4096, 0, 0);
  size_t i;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char why[1024] = "";
    tn_params p;
    int rc = point(cases[i].s, cases[i].n, &prob, &p, why, sizeof(why));
    CHECK_WHY(rc == 1 && why[0] != '\0', "%s: accepted (rc %d)", cases[i].label,
              rc);
  }
}

/* The textbook's As loads: pitch 18 keeps 8-byte alignment (float2), a
 * swizzle resolved as "xor" permutes whole float4s. */
static void test_textbook_vectors(void)
{
  static const setting p2[] = {{"kernel", "0"}, {"bm", "32"},
                               {"pad_a", "2"}};
  static const setting x[] = {{"kernel", "0"}, {"bm", "32"},
                              {"swizzle_a", "xor"}};
  tn_problem prob = problem(512, 512, 512, 0, 0);
  tn_model_cost c;
  tn_launch l;
  long long bt = 16LL * 16 * 16;
  char why[256];
  tn_params p;
  if (model("textbook pad 2", p2, 3, &prob, &c, &l) == 0)
    CHECK_WHY(c.ld_insts == bt * 32 * (16 + 32), "textbook pad 2: ld %lld",
              c.ld_insts);
  if (model("textbook xor", x, 3, &prob, &c, &l) == 0)
    CHECK_WHY(c.ld_insts == bt * 32 * (8 + 32), "textbook xor: ld %lld",
              c.ld_insts);
  if (point(x, 3, &prob, &p, why, sizeof(why)) == 0) {
    const tn_swizzle *sw = &p.v[tn_param_index(tn_family_gemm.params,
                                               tn_family_gemm.n_params,
                                               "swizzle_a")]
                                .sw;
    /* 8 chunks of 4 floats per row: chunk ^= row & 7 */
    CHECK_WHY(sw->b == 3 && sw->m == 2 && sw->s == 3,
              "textbook xor resolved to (%d,%d,%d)", sw->b, sw->m, sw->s);
  }
}

int main(void)
{
  test_main_tile();
  test_bk16();
  test_textbook();
  test_textbook_vectors();
  test_odd();
  test_partial_slots();
  test_trans();
  test_mmajor();
  test_lane_orders();
  test_ring_lanes();
  test_rejects();
  if (failures) {
    printf("%d check(s) failed\n", failures);
    return 1;
  }
  printf("test_gemm_plan: all checks passed\n");
  return 0;
}

/* test_gemm_tma.c -- the SIMT GEMM's TMA ring (pipeline 3) without a GPU:
 * the stages parameter at its default leaves a point's text as it was;
 * the rules refuse what the copy engine cannot write (a pad, a transposed
 * tile, a swizzle other than the hardware's or whose span is not the
 * row, rows of the matrix that are not whole 16 bytes) and stages away
 * from pipeline 3, saying why; the tensor maps are the operands as
 * stored with one box a tile; the launch needs sm_90 and takes the
 * 1024-byte slack, past 48 KiB as dynamic shared memory; buffers start
 * on 1024 bytes; the plan has the loads alone, from buffer t % stages.
 * (The kernel's indexing and ring: gemm_emulate on the host; on a GPU,
 * gpu_gemm_edges.)  Exits 0 when every check passes. */
#include <stdio.h>
#include <string.h>

#include "drift.h"
#include "family/family.h"
#include "family/gemm_shape.h"
#include "family_util.h"
#include "test_util.h"

extern const tn_family tn_family_gemm;
static const tn_family *f = &tn_family_gemm;

/* The tiled kernel, 128 x 128 x bk, thread tiles 8 x 8, As[m][k] (as A
 * lies), Bs[k][n], pipeline 3 with `stages` and swizzle_a; prepare()'s
 * answer (why). */
static int point(tn_params *p, const tn_problem *prob, long long bk,
                 long long stages, const char *swizzle_a, char *why,
                 size_t n)
{
  default_point(f, p);
  p->v[P_KERNEL].i = 1;
  p->v[P_BK].i = bk;
  p->v[P_A_KMAJOR].i = 0;
  p->v[P_PIPELINE].i = 3;
  p->v[P_STAGES].i = stages;
  if (tn_swizzle_parse(swizzle_a, &p->v[P_SWIZZLE_A].sw, why, n) != 0)
    return -1;
  why[0] = '\0';
  return f->prepare(f, p, prob, why, n);
}

static void check_text(void)
{
  tn_problem prob = mnk_problem(f, 4096, 4096, 4096);
  tn_params p;
  tn_defines d;
  char why[512], text[512];

  CHECK_EQ_INT(tn_param_index(f->params, f->n_params, "stages"), P_STAGES);
  CHECK(f->params[P_STAGES].added);
  default_point(f, &p);
  p.v[P_KERNEL].i = 1;
  CHECK_EQ_INT(f->prepare(f, &p, &prob, why, sizeof(why)), 0);
  tn_params_format(f->params, f->n_params, &p, text, sizeof(text));
  CHECK(strstr(text, "stages") == NULL);
  CHECK(strstr(text, "pipeline=2") != NULL);
  tn_family_macros(f, &p, &prob, &d);
  CHECK(define_of(&d, "TN_BUFFERS") != NULL &&
        strcmp(define_of(&d, "TN_BUFFERS"), "2") == 0);

  CHECK_EQ_INT(point(&p, &prob, 8, 4, "sw32", why, sizeof(why)), 0);
  tn_params_format(f->params, f->n_params, &p, text, sizeof(text));
  CHECK(strstr(text, "pipeline=3") != NULL &&
        strstr(text, "stages=4") != NULL);
  tn_family_macros(f, &p, &prob, &d);
  CHECK(define_of(&d, "TN_BUFFERS") != NULL &&
        strcmp(define_of(&d, "TN_BUFFERS"), "4") == 0);
}

static void check_rules(void)
{
  tn_problem prob = mnk_problem(f, 4096, 4096, 4096);
  tn_problem odd = mnk_problem(f, 4096, 4096, 4095);
  tn_params p;
  char why[512];

  expect_refusal(point(&p, &prob, 8, 1, "none", why, sizeof(why)), why,
                 "ring of 2 to 8 stages");
  /* a transposed As: the copy engine writes A as it lies */
  point(&p, &prob, 8, 3, "none", why, sizeof(why));
  p.v[P_A_KMAJOR].i = 1;
  expect_refusal(f->prepare(f, &p, &prob, why, sizeof(why)), why,
                 "a_kmajor must be 0");
  point(&p, &prob, 8, 3, "none", why, sizeof(why));
  p.v[P_PAD_A].i = 4;
  expect_refusal(f->prepare(f, &p, &prob, why, sizeof(why)), why,
                 "without padding (pad_a = 4)");
  expect_refusal(point(&p, &prob, 8, 3, "xor", why, sizeof(why)), why,
                 "sw32, sw64 or sw128 only (swizzle_a)");
  /* the span must be the row: sw64 over rows of 8 floats, sw32 of 16 */
  expect_refusal(point(&p, &prob, 8, 3, "sw64", why, sizeof(why)), why,
                 "64-byte span is not As's rows of 32 bytes");
  expect_refusal(point(&p, &prob, 16, 3, "sw32", why, sizeof(why)), why,
                 "32-byte span is not As's rows of 64 bytes");
  /* K = 4095: A's rows are 16380 bytes, no map's stride */
  expect_refusal(point(&p, &odd, 8, 3, "none", why, sizeof(why)), why,
                 "not a multiple of 16");
  /* stages belongs to pipeline 3 */
  point(&p, &prob, 8, 3, "none", why, sizeof(why));
  p.v[P_PIPELINE].i = 2;
  expect_refusal(f->prepare(f, &p, &prob, why, sizeof(why)), why,
                 "stages and producer are pipeline 3's ring");
  point(&p, &prob, 8, 0, "none", why, sizeof(why));
  p.v[P_PIPELINE].i = 1;
  p.v[P_PRODUCER].i = 1;
  expect_refusal(f->prepare(f, &p, &prob, why, sizeof(why)), why,
                 "stages and producer are pipeline 3's ring");
  /* and the textbook kernel keeps it at 0 */
  default_point(f, &p);
  p.v[P_KERNEL].i = 0;
  p.v[P_BM].i = 16;
  p.v[P_STAGES].i = 2;
  expect_refusal(f->prepare(f, &p, &prob, why, sizeof(why)), why,
                 "does not use stages");
  /* each swizzle at the k-tile whose rows it spans */
  CHECK_EQ_INT(point(&p, &prob, 8, 3, "sw32", why, sizeof(why)), 0);
  CHECK_EQ_INT(point(&p, &prob, 16, 3, "sw64", why, sizeof(why)), 0);
  CHECK_EQ_INT(point(&p, &prob, 32, 3, "sw128", why, sizeof(why)), 0);
}

static void check_maps_and_launch(void)
{
  tn_problem prob = mnk_problem(f, 1000, 776, 136);
  tn_problem tt = mnk_problem(f, 1000, 776, 136);
  tn_tmap_desc maps[TN_MAX_TMAPS];
  tn_params p;
  tn_launch l;
  char why[512];

  CHECK_EQ_INT(point(&p, &prob, 16, 2, "sw64", why, sizeof(why)), 0);
  CHECK_EQ_INT(f->tensor_maps(f, &p, &prob, maps), 2);
  /* A: 1000 rows of K = 136, a box of 16 x 128 under sw64 */
  CHECK_EQ_INT(maps[0].buffer, 0);
  CHECK(maps[0].dims[0] == 136 && maps[0].dims[1] == 1000);
  CHECK(maps[0].strides[0] == 4 * 136);
  CHECK(maps[0].box[0] == 16 && maps[0].box[1] == 128);
  CHECK_EQ_INT(maps[0].swizzle, 64);
  /* B: K = 136 rows of N = 776, a box of 128 x 16, no swizzle */
  CHECK_EQ_INT(maps[1].buffer, 1);
  CHECK(maps[1].dims[0] == 776 && maps[1].dims[1] == 136);
  CHECK(maps[1].box[0] == 128 && maps[1].box[1] == 16);
  CHECK_EQ_INT(maps[1].swizzle, 0);
  /* 2 stages of (8 + 8) KiB, the slack, the barriers: static */
  f->launch(f, &p, &prob, &l);
  CHECK_EQ_INT(l.min_cc, 90);
  CHECK(l.needs != NULL && strstr(l.needs, "TMA") != NULL);
  CHECK_EQ_INT(l.smem_dynamic, 0);
  CHECK_EQ_INT(l.smem_static, 2 * 16384 + 1024 + 32);
  /* 4 stages of 16 + 16 KiB (bk 32): dynamic, the barriers in it */
  CHECK_EQ_INT(point(&p, &prob, 32, 4, "sw128", why, sizeof(why)), 0);
  f->launch(f, &p, &prob, &l);
  CHECK_EQ_INT(l.smem_dynamic, 4 * 32768 + 1024 + 64);
  CHECK_EQ_INT(l.smem_static, 0);
  /* both transposed: As[k][m] and Bs[n][k] as they lie */
  tt.opt[tn_problem_option_index(f, "trans_a")] = 1;
  tt.opt[tn_problem_option_index(f, "trans_b")] = 1;
  point(&p, &tt, 8, 2, "none", why, sizeof(why));
  p.v[P_A_KMAJOR].i = 1;
  p.v[P_B_KMAJOR].i = 0;
  CHECK_EQ_INT(tn_swizzle_parse("sw32", &p.v[P_SWIZZLE_B].sw, why,
                                sizeof(why)),
               0);
  CHECK_EQ_INT(f->prepare(f, &p, &tt, why, sizeof(why)), 0);
  CHECK_EQ_INT(f->tensor_maps(f, &p, &tt, maps), 2);
  CHECK(maps[0].dims[0] == 1000 && maps[0].dims[1] == 136);
  CHECK(maps[0].box[0] == 128 && maps[0].box[1] == 8);
  CHECK(maps[1].dims[0] == 136 && maps[1].dims[1] == 776);
  CHECK(maps[1].box[0] == 8 && maps[1].box[1] == 128);
  CHECK_EQ_INT(maps[1].swizzle, 32);
  /* a producer warp: 32 threads beyond the 256 computing */
  CHECK_EQ_INT(point(&p, &prob, 8, 4, "sw32", why, sizeof(why)), 0);
  p.v[P_PRODUCER].i = 1;
  CHECK_EQ_INT(f->prepare(f, &p, &prob, why, sizeof(why)), 0);
  f->launch(f, &p, &prob, &l);
  CHECK_EQ_INT(l.block[0], 288);
  CHECK_EQ_INT(l.threads, 288);
  /* another pipeline has no maps */
  point(&p, &prob, 8, 0, "none", why, sizeof(why));
  p.v[P_PIPELINE].i = 2;
  CHECK_EQ_INT(f->prepare(f, &p, &prob, why, sizeof(why)), 0);
  CHECK_EQ_INT(f->tensor_maps(f, &p, &prob, maps), 0);
}

/* The plan: no stores; buffer b's loads times ceil((ktiles - b) /
 * stages) a block, each buffer 1024-aligned. */
static void check_plan(void)
{
  /* one block of 128 x 128, K = 10 k-tiles of 8, a ring of 4 */
  tn_problem prob = mnk_problem(f, 128, 128, 80);
  tn_params p;
  tn_block_plan bp;
  char why[512];
  long long per_buffer[4] = {0, 0, 0, 0}, stores = 0;
  int i;

  CHECK_EQ_INT(point(&p, &prob, 8, 4, "sw32", why, sizeof(why)), 0);
  memset(&bp, 0, sizeof(bp));
  CHECK_EQ_INT(tn_drift_grid_plan(f, &p, &prob, &bp, why, sizeof(why)), 0);
  for (i = 0; i < bp.n; i++) {
    const tn_warp_access *a = &bp.v[i].a;
    int lane = __builtin_ctz(a->active);
    /* As's buffers hold 128 x 8 floats (4 KiB), then Bs's 8 x 128 */
    unsigned off = a->addr[lane] % (4 * 4096);
    if (a->op != TN_OP_LD)
      stores++;
    else
      per_buffer[off / 4096]++;
  }
  CHECK_EQ_INT(stores, 0);
  /* a warp's loads of a k-tile: A's 8 rows a float4 each per 4 k (16),
   * B's 2 float4 per k (16); 8 warps: 256 a tile.  Tiles 0, 4 and 8 in
   * buffer 0, 1, 5 and 9 in 1, 2 and 6 in 2, 3 and 7 in 3. */
  CHECK_EQ_INT(per_buffer[0], 3 * 256);
  CHECK_EQ_INT(per_buffer[1], 3 * 256);
  CHECK_EQ_INT(per_buffer[2], 2 * 256);
  CHECK_EQ_INT(per_buffer[3], 2 * 256);
  tn_block_plan_free(&bp);
}

int main(void)
{
  check_text();
  check_rules();
  check_maps_and_launch();
  check_plan();
  TEST_DONE();
}

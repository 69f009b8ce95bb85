/* test_gemm_wg_pingpong.c -- the wgmma GEMM family's pingpong parameter
 * without a GPU: at its default a point's text is as before it, 1 shows
 * in the text and reaches the template (TN_PINGPONG); the rules refuse it
 * without persistent blocks, a producer or two consumers, and a whole
 * tile a consumer past 128 accumulators, saying why, and take the tiles
 * of 64 rows that only ping-pong gives two consumers; each consumer's
 * staging and C's tensor map box hold the whole tile; and the plan stages
 * on each consumer the tiles of the units it takes in turn (a multicast
 * unit's padding too).  (The kernel itself: gpu_gemm_edges on a GPU.)
 * Exits 0 when every check passes. */
#include <stdio.h>
#include <string.h>

#include "drift.h"
#include "family/family.h"
#include "family/gemm_wg_shape.h"
#include "family_util.h"
#include "test_util.h"

extern const tn_family tn_family_gemm_wg;
static const tn_family *f = &tn_family_gemm_wg;

/* bf16 M x N x K, C as `output` gives (0 fp32, 1 bf16). */
static tn_problem problem(long long m, long long n, long long k, int output)
{
  tn_problem prob = mnk_problem(f, m, n, k);
  prob.opt[WG_OPT_OUTPUT] = output;
  return prob;
}

/* The default point with bm x bn tiles, ping-pong, persistent blocks,
 * epilogue; prepare()'s answer (why). */
static int point(tn_params *p, const tn_problem *prob, long long bm,
                 long long bn, long long pingpong, long long persistent,
                 long long epilogue, char *why, size_t n)
{
  default_point(f, p);
  p->v[WG_BM].i = bm;
  p->v[WG_BN].i = bn;
  p->v[WG_PINGPONG].i = pingpong;
  p->v[WG_PERSISTENT].i = persistent;
  p->v[WG_EPILOGUE].i = epilogue;
  why[0] = '\0';
  return f->prepare(f, p, prob, why, n);
}

static void check_text_and_macro(void)
{
  tn_problem prob = problem(4096, 4096, 4096, 0);
  tn_params p;
  tn_defines d;
  char why[512], text[512];

  CHECK_EQ_INT(tn_param_index(f->params, f->n_params, "pingpong"),
               WG_PINGPONG);
  CHECK(f->params[WG_PINGPONG].added);
  CHECK(f->params[WG_PINGPONG].def == 0);
  CHECK_EQ_INT(point(&p, &prob, 128, 128, 0, 0, 0, why, sizeof(why)), 0);
  tn_params_format(f->params, f->n_params, &p, text, sizeof(text));
  CHECK(strcmp(text, "bm=128 bn=128 bk=64 consumers=2 stages=4 "
                     "swizzle=128 producer=1 maxnreg=0 cluster=1 "
                     "persistent=0 group_m=8 epilogue=0") == 0);
  CHECK_EQ_INT(point(&p, &prob, 64, 256, 1, 132, 0, why, sizeof(why)), 0);
  tn_params_format(f->params, f->n_params, &p, text, sizeof(text));
  CHECK(strstr(text, "pingpong=1") != NULL);
  tn_family_macros(f, &p, &prob, &d);
  CHECK(define_of(&d, "TN_PINGPONG") != NULL &&
        strcmp(define_of(&d, "TN_PINGPONG"), "1") == 0);
}

static void check_rules(void)
{
  tn_problem prob = problem(4096, 4096, 4096, 0);
  tn_params p;
  char why[512];
  int rc;

  rc = point(&p, &prob, 64, 256, 1, 0, 0, why, sizeof(why));
  expect_refusal(rc, why, "persistent > 0");
  default_point(f, &p);
  p.v[WG_PINGPONG].i = 1;
  p.v[WG_PERSISTENT].i = 132;
  p.v[WG_PRODUCER].i = 0;
  expect_refusal(f->prepare(f, &p, &prob, why, sizeof(why)), why,
                "producer 1");
  p.v[WG_PRODUCER].i = 1;
  p.v[WG_CONSUMERS].i = 1;
  expect_refusal(f->prepare(f, &p, &prob, why, sizeof(why)), why,
                "consumers 2");
  /* a whole 128 x 256 tile is 256 accumulators a thread */
  rc = point(&p, &prob, 128, 256, 1, 132, 0, why, sizeof(why));
  expect_refusal(rc, why, "a consumer of 128 x 256 holds 256");
  /* 64 rows: one m64 slab, which two consumers share only in turn */
  rc = point(&p, &prob, 64, 256, 0, 132, 0, why, sizeof(why));
  expect_refusal(rc, why, "2 consumers cannot each take m64 slabs");
  CHECK_EQ_INT(point(&p, &prob, 64, 256, 1, 132, 0, why, sizeof(why)), 0);
  CHECK_EQ_INT(point(&p, &prob, 128, 128, 1, 132, 1, why, sizeof(why)), 0);
}

/* Epilogue 1: each consumer stages the whole tile (fp32 C: 64 x 256 x 4
 * bytes each), and C's box is the tile's rows. */
static void check_staging(void)
{
  tn_problem prob = problem(4096, 4096, 4096, 0);
  tn_tmap_desc maps[TN_MAX_TMAPS];
  wg_geometry g;
  tn_params p;
  tn_launch l;
  char why[512];

  CHECK_EQ_INT(point(&p, &prob, 64, 256, 1, 132, 1, why, sizeof(why)), 0);
  p.v[WG_STAGES].i = 2;
  CHECK_EQ_INT(f->prepare(f, &p, &prob, why, sizeof(why)), 0);
  tn_gemm_wg_geometry(&p, &prob, &g);
  CHECK_EQ_INT(g.cm, 64);
  CHECK_EQ_INT(g.c_staging, 64 * 256 * 4);
  CHECK_EQ_INT(g.smem_bytes,
               1024 + 2 * (64 * 64 * 2 + 256 * 64 * 2) + 2 * 65536 + 32);
  CHECK_EQ_INT(f->tensor_maps(f, &p, &prob, maps), 3);
  CHECK_EQ_INT(maps[2].box[1], 64);
  f->launch(f, &p, &prob, &l);
  CHECK_EQ_INT(l.grid[0], 132);
  CHECK_EQ_INT(l.smem_dynamic, g.smem_bytes);
}

/* The plan's staging stores of each consumer: its accesses start at the
 * rings' end plus its staging's offset. */
static void consumer_tiles(const tn_params *p, const tn_problem *prob,
                           long long *first, long long *second)
{
  tn_block_plan bp;
  wg_geometry g;
  char why[256];
  long long per_tile, i;
  tn_gemm_wg_geometry(p, prob, &g);
  memset(&bp, 0, sizeof(bp));
  *first = *second = 0;
  CHECK_EQ_INT(tn_drift_grid_plan(f, p, prob, &bp, why, sizeof(why)), 0);
  for (i = 0; i < bp.n; i++) {
    uint32_t a = bp.v[i].a.addr[0];
    uint32_t c0 = (uint32_t)(g.stages * (g.a_stage + g.b_stage));
    if (a >= c0 + g.c_staging)
      ++*second;
    else
      ++*first;
  }
  /* stmatrix.x4 of a bf16 C: bn / 16 a slab and warp, 4 warps */
  per_tile = 4 * (g.cm / 64) * (g.bn / 16);
  CHECK(*first % per_tile == 0 && *second % per_tile == 0);
  *first /= per_tile;
  *second /= per_tile;
  tn_block_plan_free(&bp);
}

static void check_plan(void)
{
  /* 5 tiles of 64 x 256 over 2 blocks: block 0 takes units 0, 2, 4
   * (consumers 0, 1, 0), block 1 units 1, 3 (0, 1) */
  tn_problem five = problem(5 * 64, 256, 128, 1);
  tn_params p;
  char why[512];
  long long a, b;

  CHECK_EQ_INT(point(&p, &five, 64, 256, 1, 2, 1, why, sizeof(why)), 0);
  consumer_tiles(&p, &five, &a, &b);
  CHECK_EQ_INT(a, 3);
  CHECK_EQ_INT(b, 2);
  /* without ping-pong each consumer stages its half of all 5 */
  CHECK_EQ_INT(point(&p, &five, 128, 256, 0, 2, 1, why, sizeof(why)), 0);
  consumer_tiles(&p, &five, &a, &b);
  CHECK_EQ_INT(a, 3); /* ceil(5 * 64 / 128) tiles of 128 rows */
  CHECK_EQ_INT(b, 3);
  /* B shared over clusters of 2 (tiles along M): 3 units, the last
   * padded; one cluster takes them all (consumers 0, 1, 0), both blocks
   * staging a tile each, the padding included */
  CHECK_EQ_INT(point(&p, &five, 64, 256, 1, 2, 1, why, sizeof(why)), 0);
  p.v[WG_CLUSTER].i = 2;
  p.v[WG_MULTICAST].i = 1;
  CHECK_EQ_INT(f->prepare(f, &p, &five, why, sizeof(why)), 0);
  consumer_tiles(&p, &five, &a, &b);
  CHECK_EQ_INT(a, 4);
  CHECK_EQ_INT(b, 2);
  /* more blocks than tiles: one tile a block, consumer 1 idle */
  CHECK_EQ_INT(point(&p, &five, 64, 256, 1, 8, 1, why, sizeof(why)), 0);
  consumer_tiles(&p, &five, &a, &b);
  CHECK_EQ_INT(a, 5);
  CHECK_EQ_INT(b, 0);
}

int main(void)
{
  check_text_and_macro();
  check_rules();
  check_staging();
  check_plan();
  if (tn_test_failures == 0)
    fprintf(stderr, "gemm_wg pingpong: text, macro, rules, staging, box, "
                    "launch and each consumer's staged tiles\n");
  TEST_DONE();
}

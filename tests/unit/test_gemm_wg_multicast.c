/* test_gemm_wg_multicast.c -- the wgmma GEMM family's multicast parameter
 * without a GPU: at its default a point's text is as before it, other
 * values show in the text and reach the template (TN_MULTICAST); the
 * rules refuse multicast without a cluster or a producer, a cluster of
 * 3, and parts of the shared operand's sub-tiles that break the swizzle's
 * 1024-byte repeat, saying why; the shared operand's tensor map box is a
 * part (along mn when K-major, along k when MN-major), the other's whole;
 * the launch walks units (a ragged last one padded) and the time model's
 * work counts the padded tiles.  (The units' tiles themselves:
 * test_tile_order.cpp.)  Exits 0 when every check passes. */
#include <stdio.h>
#include <string.h>

#include "family/family.h"
#include "family/gemm_wg_shape.h"
#include "model/time.h"
#include "family_util.h"
#include "test_util.h"

extern const tn_family tn_family_gemm_wg;
static const tn_family *f = &tn_family_gemm_wg;

/* bf16 M x N x K, B stored N x K (K-major) where trans_b. */
static tn_problem problem(long long m, long long n, long long k,
                          int trans_b)
{
  tn_problem prob = mnk_problem(f, m, n, k);
  prob.opt[WG_OPT_TRANS_B] = trans_b;
  return prob;
}

/* The family's default point (128 x 128 x 64, a producer, sw128) with bk
 * and the swizzle (bk 64: 128; else half bk's 2 bytes, so that A's k-tile
 * is one swizzle row), cluster, multicast and producer as given;
 * prepare()'s answer (why). */
static int point(tn_params *p, const tn_problem *prob, long long bk,
                 long long cluster, long long multicast, long long producer,
                 char *why, size_t n)
{
  default_point(f, p);
  p->v[WG_BK].i = bk;
  p->v[WG_SWIZZLE].i = bk >= 64 ? 128 : 2 * bk;
  p->v[WG_CLUSTER].i = cluster;
  p->v[WG_MULTICAST].i = multicast;
  p->v[WG_PRODUCER].i = producer;
  why[0] = '\0';
  return f->prepare(f, p, prob, why, n);
}

static void refused(const tn_problem *prob, long long bk, long long cluster,
                    long long multicast, long long producer,
                    const char *reason)
{
  tn_params p;
  char why[512];
  expect_refusal(point(&p, prob, bk, cluster, multicast, producer, why,
                       sizeof(why)),
                 why, reason);
}

/* The boxes' outer extents of A's and B's maps for a point. */
static void boxes(const tn_problem *prob, long long cluster,
                  long long multicast, unsigned *a, unsigned *b)
{
  tn_params p;
  tn_tmap_desc maps[TN_MAX_TMAPS];
  char why[512];
  CHECK_EQ_INT(point(&p, prob, 64, cluster, multicast, 1, why, sizeof(why)),
               0);
  CHECK_EQ_INT(f->tensor_maps(f, &p, prob, maps), 2);
  *a = maps[0].box[1];
  *b = maps[1].box[1];
  CHECK_EQ_INT(maps[0].box[0], 64); /* a 128-byte swizzle row of bf16 */
  CHECK_EQ_INT(maps[1].box[0], 64);
  CHECK_EQ_INT(tn_tmap_check(&maps[0], why, sizeof(why)), 0);
  CHECK_EQ_INT(tn_tmap_check(&maps[1], why, sizeof(why)), 0);
}

static void check_text_and_macro(void)
{
  tn_problem prob = problem(4096, 4096, 4096, 0);
  tn_params p;
  tn_defines d;
  char why[512], text[512];
  int mc;

  CHECK_EQ_INT(tn_param_index(f->params, f->n_params, "multicast"),
               WG_MULTICAST);
  CHECK(f->params[WG_MULTICAST].added);
  CHECK(f->params[WG_MULTICAST].def == 0);
  CHECK_EQ_INT(point(&p, &prob, 64, 1, 0, 1, why, sizeof(why)), 0);
  tn_params_format(f->params, f->n_params, &p, text, sizeof(text));
  CHECK(strcmp(text, "bm=128 bn=128 bk=64 consumers=2 stages=4 "
                     "swizzle=128 producer=1 maxnreg=0 cluster=1 "
                     "persistent=0 group_m=8 epilogue=0") == 0);
  for (mc = 0; mc <= 2; mc++) {
    int rc = point(&p, &prob, 64, 2, mc, 1, why, sizeof(why));
    if (rc != 0)
      fprintf(stderr, "multicast %d: %s\n", mc, why);
    CHECK_EQ_INT(rc, 0);
    tn_params_format(f->params, f->n_params, &p, text, sizeof(text));
    CHECK((strstr(text, "multicast=") != NULL) == (mc != 0));
    tn_family_macros(f, &p, &prob, &d);
    CHECK(define_of(&d, "TN_MULTICAST") != NULL &&
          define_of(&d, "TN_MULTICAST")[0] == '0' + mc);
    CHECK(define_of(&d, "TN_CLUSTER") != NULL &&
          strcmp(define_of(&d, "TN_CLUSTER"), "2") == 0);
  }
  CHECK_EQ_INT(point(&p, &prob, 64, 4, 1, 1, why, sizeof(why)), 0);
  CHECK_EQ_INT(point(&p, &prob, 64, 4, 0, 1, why, sizeof(why)), 0);
}

static void check_rules(void)
{
  tn_problem mn = problem(4096, 4096, 4096, 0); /* B MN-major */
  tn_problem km = problem(4096, 4096, 4096, 1); /* B K-major */

  refused(&mn, 64, 1, 1, 1, "cluster must be 2 or 4, not 1");
  refused(&mn, 64, 1, 2, 1, "cluster must be 2 or 4, not 1");
  refused(&mn, 64, 2, 1, 0, "multicast needs a producer warpgroup");
  refused(&mn, 64, 3, 0, 1, "cluster must be 1, 2 or 4 blocks, not 3");
  /* MN-major B shared in parts along k: bk 32 under sw64 in 4 parts of
   * 8 rows x 64 bytes (512, not the swizzle's 1024); under sw32 in 2
   * parts of 16 x 32 */
  refused(&mn, 32, 4, 1, 1, "shares B's k-tile in 4 parts");
  {
    tn_params p;
    char why[512];
    CHECK_EQ_INT(point(&p, &mn, 32, 2, 1, 1, why, sizeof(why)), 0);
    p.v[WG_SWIZZLE].i = 32;
    CHECK_EQ_INT(f->prepare(f, &p, &mn, why, sizeof(why)), 1);
    CHECK(strstr(why, "shares B's k-tile in 2 parts") != NULL);
    /* 2 parts of 16 x 64 bytes: whole repeats */
    CHECK_EQ_INT(point(&p, &mn, 32, 2, 1, 1, why, sizeof(why)), 0);
    /* A K-major: parts along m, 32 of 128 rows x 64 bytes */
    CHECK_EQ_INT(point(&p, &mn, 32, 4, 2, 1, why, sizeof(why)), 0);
    /* K-major B: parts along n, the same */
    CHECK_EQ_INT(point(&p, &km, 32, 4, 1, 1, why, sizeof(why)), 0);
  }
}

static void check_maps(void)
{
  tn_problem mn = problem(1000, 776, 136, 0), km = problem(1000, 776, 136, 1);
  unsigned a, b;

  /* no multicast: boxes of the tile (A K-major: bm rows; B MN-major: bk) */
  boxes(&mn, 2, 0, &a, &b);
  CHECK_EQ_INT(a, 128);
  CHECK_EQ_INT(b, 64);
  boxes(&mn, 2, 1, &a, &b); /* B's parts along k */
  CHECK_EQ_INT(a, 128);
  CHECK_EQ_INT(b, 32);
  boxes(&mn, 4, 1, &a, &b);
  CHECK_EQ_INT(b, 16);
  boxes(&mn, 4, 2, &a, &b); /* A's parts along m */
  CHECK_EQ_INT(a, 32);
  CHECK_EQ_INT(b, 64);
  boxes(&km, 2, 1, &a, &b); /* K-major B's parts along n */
  CHECK_EQ_INT(a, 128);
  CHECK_EQ_INT(b, 64);
  boxes(&km, 1, 0, &a, &b);
  CHECK_EQ_INT(b, 128);
}

/* 800 x 776: 7 x 7 tiles of 128; multicast 1 over 2 walks 4 x 7 units
 * (56 tiles computed, the last unit row half past the grid), 2 over 4
 * 7 x 2 units (56). */
static void check_launch_and_work(void)
{
  tn_problem prob = problem(800, 776, 4096, 0);
  tn_params p;
  tn_launch l;
  tn_time_work w0, w1;
  char why[512];

  CHECK_EQ_INT(point(&p, &prob, 64, 2, 0, 1, why, sizeof(why)), 0);
  f->launch(f, &p, &prob, &l);
  CHECK_EQ_INT(l.grid[0], 50); /* 49 tiles, whole clusters */
  f->estimate(f, &p, &prob, &w0);
  CHECK_EQ_INT(point(&p, &prob, 64, 2, 1, 1, why, sizeof(why)), 0);
  f->launch(f, &p, &prob, &l);
  CHECK_EQ_INT(l.grid[0], 56);
  f->estimate(f, &p, &prob, &w1);
  CHECK(w1.wgmma_flops > w0.wgmma_flops * 1.14 &&
        w1.wgmma_flops < w0.wgmma_flops * 1.15); /* 56 / 49 */
  CHECK_EQ_INT(point(&p, &prob, 64, 4, 2, 1, why, sizeof(why)), 0);
  f->launch(f, &p, &prob, &l);
  CHECK_EQ_INT(l.grid[0], 56);
  /* persistent: P blocks where there are more units' tiles */
  p.v[WG_PERSISTENT].i = 12;
  CHECK_EQ_INT(f->prepare(f, &p, &prob, why, sizeof(why)), 0);
  f->launch(f, &p, &prob, &l);
  CHECK_EQ_INT(l.grid[0], 12);
  p.v[WG_PERSISTENT].i = 6;
  CHECK_EQ_INT(f->prepare(f, &p, &prob, why, sizeof(why)), 1);
  CHECK(strstr(why, "not a whole number of clusters of 4") != NULL);
}

int main(void)
{
  check_text_and_macro();
  check_rules();
  check_maps();
  check_launch_and_work();
  TEST_DONE();
}

/* test_gemm_wg_order.c -- the wgmma GEMM family's tile_order parameter
 * without a GPU: its default keeps a point's text as it was before the
 * parameter (results files and their keys still match), each other value
 * shows in the text; the rules refuse the Hilbert curve with groups of
 * rows and the serpentine without, saying why, and take every order with
 * clusters of 2 and persistent blocks; the template gets TN_TILE_ORDER.
 * (templates/tile_order.h's orders themselves: test_tile_order.cpp.)
 * Exits 0 when every check passes. */
#include <stdio.h>
#include <string.h>

#include "family/family.h"
#include "family/gemm_wg_shape.h"
#include "family_util.h"
#include "test_util.h"

extern const tn_family tn_family_gemm_wg;
static const tn_family *f = &tn_family_gemm_wg;

/* The family's default point with tile_order, group_m, cluster and
 * persistent as given; prepare()'s answer (why). */
static int point(tn_params *p, const tn_problem *prob, long long order,
                 long long group_m, long long cluster, long long persistent,
                 char *why, size_t n)
{
  default_point(f, p);
  p->v[WG_TILE_ORDER].i = order;
  p->v[WG_GROUP_M].i = group_m;
  p->v[WG_CLUSTER].i = cluster;
  p->v[WG_PERSISTENT].i = persistent;
  why[0] = '\0';
  return f->prepare(f, p, prob, why, n);
}

int main(void)
{
  tn_problem prob;
  tn_params p;
  tn_defines d;
  char why[512], text[512];
  int k = tn_param_index(f->params, f->n_params, "tile_order");
  int order, cluster, persistent;

  CHECK_EQ_INT(k, WG_TILE_ORDER);
  CHECK(f->params[WG_TILE_ORDER].added);
  CHECK(f->params[WG_TILE_ORDER].def == 0);
  prob = mnk_problem(f, 4096, 4096, 4096);

  /* the default: the text of a point from before tile_order */
  CHECK_EQ_INT(point(&p, &prob, 0, 8, 1, 0, why, sizeof(why)), 0);
  tn_params_format(f->params, f->n_params, &p, text, sizeof(text));
  CHECK(strcmp(text, "bm=128 bn=128 bk=64 consumers=2 stages=4 "
                     "swizzle=128 producer=1 maxnreg=0 cluster=1 "
                     "persistent=0 group_m=8 epilogue=0") == 0);
  tn_family_macros(f, &p, &prob, &d);
  CHECK(define_of(&d, "TN_TILE_ORDER") != NULL &&
        strcmp(define_of(&d, "TN_TILE_ORDER"), "0") == 0);

  /* every valid pair with clusters of 2 and persistent blocks; the text
   * and the macro say the order */
  for (order = 0; order <= 2; order++)
    for (cluster = 1; cluster <= 2; cluster++)
      for (persistent = 0; persistent <= 132; persistent += 132) {
        long long g = order == 1 ? 0 : 8;
        int rc = point(&p, &prob, order, g, cluster, persistent, why,
                       sizeof(why));
        if (rc != 0)
          fprintf(stderr, "tile_order %d cluster %d persistent %d: %s\n",
                  order, cluster, persistent, why);
        CHECK_EQ_INT(rc, 0);
        tn_params_format(f->params, f->n_params, &p, text, sizeof(text));
        CHECK((strstr(text, "tile_order=") != NULL) == (order != 0));
        tn_family_macros(f, &p, &prob, &d);
        CHECK(define_of(&d, "TN_TILE_ORDER") != NULL &&
              define_of(&d, "TN_TILE_ORDER")[0] == '0' + order);
      }
  CHECK_EQ_INT(point(&p, &prob, 0, 0, 1, 0, why, sizeof(why)), 0);
  CHECK_EQ_INT(point(&p, &prob, 2, 1, 1, 0, why, sizeof(why)), 0);

  /* the pairs refused, with the reason */
  CHECK_EQ_INT(point(&p, &prob, 1, 8, 1, 0, why, sizeof(why)), 1);
  CHECK(strstr(why, "group_m must be 0, not 8") != NULL);
  CHECK_EQ_INT(point(&p, &prob, 2, 0, 2, 132, why, sizeof(why)), 1);
  CHECK(strstr(why, "group_m must be more than 0") != NULL);
  TEST_DONE();
}

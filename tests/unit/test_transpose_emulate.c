/* test_transpose_emulate.c -- templates/transpose.cu run on the host: each
 * point below is rendered as the tuner renders it, compiled by the host's
 * C++ compiler with tests/support/cuda_host.h (a CUDA thread an OS thread,
 * __syncthreads a barrier) and tests/support/transpose_host_main.h, and run
 * on matrices of whole tiles, of vectors cut by the edges, and of no
 * vectors, every output byte compared with the transpose, under
 * AddressSanitizer (an access past a buffer stops it: no comparison of
 * the outputs would see a write past the last row).  It checks the
 * template's indexing, the rectangular tiles (tile_rows) among it, where no
 * GPU is: the GPU tests check the same on the device.
 *
 * The programs are built with the template's trace hooks (smem_trace.h's
 * TN_TRACE_HOST): every shared-memory access of every block, grouped into
 * warp accesses, must equal the family's plan (tn_transpose_plan, which
 * the model prices) as multisets, the edge tiles' vectors and partial
 * warps among them; the GPU drift test compares one-block problems only.
 * The plan says not which block makes an access, so the comparison is of
 * the whole grid's.  A second build of each point, instrumented as for
 * the thread sanitizer (TN_TRACE_TOUCH), checks that the hooks are the
 * accesses: every byte of the tile each thread really loads or stores is
 * one of its hooked bytes in that block, and no more.
 * The threads' path with cache 0 only (inline PTX has no host form).
 *
 * Usage: test_transpose_emulate CXX TEMPLATE SUPPORT_DIR WORK_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulate_util.h"
#include "family/family.h"
#include "family/param.h"
#include "pipeline/render.h"
#include "test_util.h"

static const tn_family *fam;

#define IDX(name) tn_param_index(fam->params, fam->n_params, name)

typedef struct {
  const char *elem;
  int tile, tile_rows, rpt, vec, pad, pad_unit;
  const char *swizzle;
  int pack, group;
} point_spec;

/* Rectangles of both shapes for each width, and squares beside them. */
static const point_spec points[] = {
    {"int8", 128, 256, 8, 16, 0, 0, "xor", 4, 1},
    {"int8", 64, 128, 4, 8, 1, 4, "none", 1, 1},
    {"int8", 128, 0, 8, 16, 0, 0, "xor", 4, 1},
    {"fp16", 128, 64, 8, 8, 0, 0, "xor", 2, 1},
    {"fp16", 64, 256, 8, 4, 1, 4, "none", 2, 1},
    {"fp16", 32, 16, 4, 8, 0, 0, "xor", 2, 3},
    {"fp32", 64, 128, 4, 2, 1, 0, "none", 1, 1},
    {"fp32", 32, 16, 4, 4, 0, 0, "xor", 1, 1},
    {"fp32", 64, 32, 8, 4, 0, 0, "cute(3,2,3)", 4, 1},
    {"fp32", 32, 0, 4, 4, 0, 0, "xor", 1, 3},
    {"fp64", 32, 64, 4, 1, 0, 0, "xor", 1, 1},
    {"fp64", 32, 0, 4, 2, 0, 0, "sw128", 2, 1},
    /* the narrow widths' shipped rectangles of long written rows */
    {"int8", 32, 256, 4, 4, 0, 0, "xor", 4, 1},
    {"fp16", 32, 128, 4, 4, 0, 0, "xor", 2, 1},
    /* pack wider than vec: the packed reads' rows past the edge */
    {"int8", 64, 16, 16, 4, 0, 0, "none", 16, 1},
};

/* Whole tiles of every point; vectors of up to 16 cut by both edges;
 * sizes no vector divides; columns a multiple of 4 but not of 16 (packs
 * wider than the vectors) and rows past every rectangle's edge; a matrix
 * smaller than one tile. */
static const int sizes[][2] = {{512, 256}, {528, 304}, {301, 517},
                                {536, 308}, {40, 24}};

static int make_point(const point_spec *s, tn_params *p, tn_problem *prob)
{
  char why[TN_REASON_LEN] = "";
  int i, k = tn_problem_option_index(fam, "elem");

  memset(p, 0, sizeof(*p));
  for (i = 0; i < fam->n_params; i++)
    p->v[i].i = fam->params[i].def;
  p->v[IDX("tile")].i = s->tile;
  p->v[IDX("tile_rows")].i = s->tile_rows;
  p->v[IDX("rows_per_thread")].i = s->rpt;
  p->v[IDX("vec")].i = s->vec;
  p->v[IDX("pad")].i = s->pad;
  p->v[IDX("pad_unit")].i = s->pad_unit;
  p->v[IDX("pack")].i = s->pack;
  p->v[IDX("group")].i = s->group;
  if (tn_swizzle_parse(s->swizzle, &p->v[IDX("swizzle")].sw, why,
                       sizeof(why)) != 0 ||
      k < 0)
    return -1;
  tn_problem_defaults(fam, prob);
  prob->size.n_dims = 2;
  if (tn_option_choice_parse(&fam->options[k], s->elem, &prob->opt[k], why,
                             sizeof(why)) != 0)
    return -1;
  return 0;
}

/* Compiles point s into WORK/emulate-N; 0, or -1 (said why). */
static int build(const tn_emulate_env *env, const point_spec *s, int n,
                 const tn_template *tpl)
{
  char why[TN_REASON_LEN] = "", name[64];
  tn_params p;
  tn_problem prob;

  if (make_point(s, &p, &prob) != 0)
    return -1;
  prob.size.dims[0] = sizes[0][0];
  prob.size.dims[1] = sizes[0][1];
  if (fam->prepare(fam, &p, &prob, why, sizeof(why)) != 0) {
    fprintf(stderr, "point %d (%s): excluded: %s\n", n, s->elem, why);
    return -1;
  }
  snprintf(name, sizeof(name), "emulate-%d", n);
  return tn_emulate_build(env, fam, &p, &prob, tpl, "",
                          "transpose_host_main.h", name);
}

/* Runs point n on each size with the family's launch, its output
 * compared with the transpose, its trace with the plan and its hooks with
 * its accesses; the failures. */
static int run_sizes(const tn_emulate_env *env, const point_spec *s, int n)
{
  int i, failed = 0;
  for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
    char args[256], label[256], name[64], why[TN_REASON_LEN] = "";
    tn_params p;
    tn_problem prob;
    tn_launch l;
    make_point(s, &p, &prob);
    prob.size.dims[0] = sizes[i][0];
    prob.size.dims[1] = sizes[i][1];
    if (fam->prepare(fam, &p, &prob, why, sizeof(why)) != 0) {
      fprintf(stderr, "point %d: %d x %d excluded: %s\n", n, sizes[i][0],
              sizes[i][1], why);
      failed++;
      continue;
    }
    fam->launch(fam, &p, &prob, &l);
    snprintf(args, sizeof(args), "%d %d %u %u %u", sizes[i][0], sizes[i][1],
             l.grid[0], l.block[0], l.block[1]);
    snprintf(label, sizeof(label), "point %d (%s tile %d tile_rows %d): "
                                   "%d x %d",
             n, s->elem, s->tile, s->tile_rows, sizes[i][0], sizes[i][1]);
    snprintf(name, sizeof(name), "emulate-%d", n);
    failed += tn_emulate_run(env, name, args, fam, &p, &prob, label);
  }
  return failed;
}

int main(int argc, char **argv)
{
  tn_template tpl;
  tn_err err;
  tn_emulate_env env;
  int i;

  if (argc != 5) {
    fprintf(stderr, "usage: test_transpose_emulate CXX TEMPLATE "
                    "SUPPORT_DIR WORK_DIR\n");
    return 2;
  }
  env.cxx = argv[1];
  env.support = argv[3];
  env.work = argv[4];
  fam = tn_family_find("transpose");
  CHECK(fam != NULL);
  if (fam == NULL || tn_template_load(argv[2], &tpl, &err) != 0) {
    fprintf(stderr, "cannot load the family or %s\n", argv[2]);
    return 1;
  }
  for (i = 0; i < (int)(sizeof(points) / sizeof(points[0])); i++) {
    if (build(&env, &points[i], i, &tpl) != 0) {
      tn_test_failures++;
      continue;
    }
    tn_test_failures += run_sizes(&env, &points[i], i);
  }
  tn_template_free(&tpl);
  TEST_DONE();
}

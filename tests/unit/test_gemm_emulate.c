/* test_gemm_emulate.c -- templates/gemm.cu (the fp32 SIMT GEMM) run on the
 * host, as test_transpose_emulate.c runs the transpose: each point below
 * rendered as the tuner renders it, compiled by the host's C++ compiler
 * (tests/support/cuda_host.h: a CUDA thread an OS thread) with
 * tests/support/gemm_host_main.h, run on problems of whole tiles, of
 * ragged edges and of leading dimensions no vector divides, every element
 * of C checked against a double-precision product under AddressSanitizer;
 * every block's shared-memory accesses compared with the family's plan
 * (tn_gemm_plan, which the model prices) and the hooks with the accesses
 * the compiled code makes (tests/support/emulate_util.h).  Where no GPU
 * is: the textbook and the register-tiled kernels, each operand k-major
 * or not (copies and transposing stores of both), pads and swizzles on
 * both, the operands' transposes, thread tiles of 2 to 8, pipelines 0 to
 * 2 (2's plan, run through 1's code: cp.async has no host form, and the
 * comparison takes its shared stores as stores), and pipeline 3, the TMA
 * ring, refilled by thread 0 or by a producer warp, over the host's copy
 * engine (tests/support/tma_host.h: the
 * family's tensor maps, swizzled by address as the hardware does, the
 * mbarriers' phases), on sizes whose rows the copy engine takes.
 *
 * Usage: test_gemm_emulate CXX TEMPLATE SUPPORT_DIR WORK_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulate_util.h"
#include "family/family.h"
#include "family/param.h"
#include "test_util.h"

static const tn_family *fam;

typedef struct {
  int kernel, bm, bn, bk, tm, tn, lanes_m, a_kmajor, b_kmajor, pipeline;
  int pad_a, pad_b;
  const char *swizzle_a, *swizzle_b;
  int trans_a, trans_b;
  int stages;   /* pipeline 3's ring */
  int producer; /* pipeline 3: a warp of its own refills it */
  int vm;         /* runs of a thread's rows (0: the default) */
  int lane_order; /* templates/gemm_lanes.h */
} point_spec;

static const point_spec points[] = {
    /* the textbook kernel, TILE 16 (its other parameters at their
     * defaults) */
    {0, 16, 128, 8, 8, 8, 4, 1, 1, 2, 0, 0, "none", "none", 0, 0, 0, 0, 0, 0},
    /* tiled, As k-major (transposing stores), two buffers through
     * registers, an xor swizzle */
    {1, 64, 64, 8, 4, 4, 4, 1, 1, 1, 0, 0, "xor", "none", 0, 0, 0, 0, 0, 0},
    /* As m-major (a copy), pipeline 2, CuTe swizzle, 8 x 4 lanes */
    {1, 64, 128, 16, 8, 8, 8, 0, 1, 2, 0, 0, "cute(3,2,6)", "none", 0, 0, 0,
     0, 0, 0},
    /* one buffer; A transposed (As k-major a copy), Bs n-major of a B
     * along n (transposing stores), a pad on each */
    {1, 64, 64, 16, 4, 8, 4, 1, 0, 0, 4, 4, "none", "none", 1, 0, 0, 0, 0, 0},
    /* both transposed: Bs k-major of a B along k (transposing), an xor
     * swizzle on B */
    {1, 128, 64, 8, 8, 4, 8, 1, 1, 2, 4, 0, "none", "xor", 1, 1, 0, 0, 0, 0},
    /* thread tiles of 2 x 2: runs of two floats, the float2 epilogue */
    {1, 32, 32, 8, 2, 2, 4, 1, 1, 1, 0, 0, "none", "none", 0, 0, 0, 0, 0, 0},
    /* the TMA ring: As[m][k] under each hardware swizzle at the k-tile
     * it fits, rings of 2 to 5, refilled by thread 0 or a producer warp */
    {1, 64, 64, 8, 4, 4, 4, 0, 1, 3, 0, 0, "sw32", "none", 0, 0, 3, 0, 0, 0},
    {1, 64, 128, 16, 8, 8, 8, 0, 1, 3, 0, 0, "sw64", "none", 0, 0, 2, 1, 0, 0},
    {1, 64, 32, 32, 8, 4, 4, 0, 1, 3, 0, 0, "sw128", "none", 0, 0, 2, 0, 0, 0},
    {1, 32, 64, 16, 4, 4, 8, 0, 1, 3, 0, 0, "none", "none", 0, 0, 4, 1, 0, 0},
    /* both transposed: As[k][m] and Bs[n][k] as they lie, B's swizzled */
    {1, 64, 64, 8, 4, 4, 4, 1, 0, 3, 0, 0, "none", "sw32", 1, 1, 5, 0, 0, 0},
    /* 16 x 8 thread tiles: four runs of rows, 128 threads a 128 x 128 */
    {1, 128, 128, 8, 16, 8, 4, 0, 1, 3, 0, 0, "sw32", "none", 0, 0, 3, 1, 0, 0},
    /* the lanes' bits interleaved and runs of 2 and 1 rows: the ring with
     * sw128 (4 x 8 and 8 x 4 lanes), the threads' copies with As k-major
     * (float2 fragment loads) and with a CuTe swizzle on As[m][k] */
    {1, 64, 64, 32, 8, 8, 4, 0, 1, 3, 0, 0, "sw128", "none", 0, 0, 2, 1, 2,
     1},
    {1, 64, 64, 32, 8, 4, 8, 0, 1, 3, 0, 0, "sw128", "none", 0, 0, 2, 0, 1,
     1},
    {1, 64, 64, 8, 4, 4, 4, 1, 1, 1, 0, 0, "xor", "none", 0, 0, 0, 0, 2, 1},
    {1, 64, 128, 16, 8, 8, 8, 0, 1, 2, 0, 0, "cute(3,2,6)", "none", 0, 0, 0,
     0, 1, 1},
};

/* M, N, K: whole tiles; every leading dimension a multiple of 4 but the
 * edges ragged (the vector paths' checks over several blocks); leading
 * dimensions no float4 divides (the scalar loads); one tile cut on all
 * three. */
static const int sizes[][3] = {
    {128, 128, 64}, {100, 84, 20}, {65, 130, 19}, {20, 12, 7}};
/* The TMA ring's: rows of whole 16 bytes (the tensor maps' rule), ragged
 * edges, a k-tile cut short, one tile cut on all three, and K = 356: more
 * than twice the ring of every point, its last k-tile short (each buffer
 * refilled, parities 0, 1 and 0 again). */
static const int tma_sizes[][3] = {{128, 128, 64}, {100, 84, 20},
                                   {36, 132, 44},  {20, 12, 8},
                                   {68, 40, 356}};
#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Sets the parameter name of p to v (an integer) or sw (a swizzle). */
static int set(tn_params *p, const char *name, int v, const char *sw)
{
  char why[TN_REASON_LEN];
  int k = tn_param_index(fam->params, fam->n_params, name);
  if (k < 0)
    return -1;
  if (sw)
    return tn_swizzle_parse(sw, &p->v[k].sw, why, sizeof(why));
  p->v[k].i = v;
  return 0;
}

static int make_point(const point_spec *s, const int size[3], tn_params *p,
                      tn_problem *prob, char *why, size_t n)
{
  int i, rc = 0;
  memset(p, 0, sizeof(*p));
  for (i = 0; i < fam->n_params; i++)
    p->v[i].i = fam->params[i].def;
  rc |= set(p, "kernel", s->kernel, NULL);
  rc |= set(p, "bm", s->bm, NULL);
  rc |= set(p, "bn", s->bn, NULL);
  rc |= set(p, "bk", s->bk, NULL);
  rc |= set(p, "tm", s->tm, NULL);
  rc |= set(p, "tn", s->tn, NULL);
  rc |= set(p, "lanes_m", s->lanes_m, NULL);
  rc |= set(p, "a_kmajor", s->a_kmajor, NULL);
  rc |= set(p, "b_kmajor", s->b_kmajor, NULL);
  rc |= set(p, "pipeline", s->pipeline, NULL);
  rc |= set(p, "pad_a", s->pad_a, NULL);
  rc |= set(p, "pad_b", s->pad_b, NULL);
  rc |= set(p, "swizzle_a", 0, s->swizzle_a);
  rc |= set(p, "swizzle_b", 0, s->swizzle_b);
  rc |= set(p, "stages", s->stages, NULL);
  rc |= set(p, "producer", s->producer, NULL);
  rc |= set(p, "run_m", s->vm, NULL);
  rc |= set(p, "lane_order", s->lane_order, NULL);
  if (rc) {
    snprintf(why, n, "a parameter or swizzle of the point is wrong");
    return -1;
  }
  tn_problem_defaults(fam, prob);
  prob->size.n_dims = 3;
  for (i = 0; i < 3; i++)
    prob->size.dims[i] = size[i];
  {
    const int ta = tn_problem_option_index(fam, "trans_a");
    const int tb = tn_problem_option_index(fam, "trans_b");
    const int beta = tn_problem_option_index(fam, "beta");
    if (ta < 0 || tb < 0 || beta < 0) {
      snprintf(why, n, "the family lacks trans_a, trans_b or beta");
      return -1;
    }
    prob->opt[ta] = s->trans_a;
    prob->opt[tb] = s->trans_b;
    prob->opt[beta] = 0.5; /* the host program's */
  }
  return fam->prepare(fam, p, prob, why, n);
}

/* Appends pipeline 3's two tensor maps, as the family describes them,
 * to args (gemm_host_main.h's MAP arguments).  0, or -1 (said why). */
static int map_args(const tn_params *p, const tn_problem *prob, char *args)
{
  tn_tmap_desc maps[TN_MAX_TMAPS];
  int i, n = fam->tensor_maps(fam, p, prob, maps);
  CHECK_EQ_INT(n, 2);
  if (n != 2)
    return -1;
  for (i = 0; i < 2; i++) {
    const tn_tmap_desc *d = &maps[i];
    size_t len = strlen(args);
    CHECK_EQ_INT(d->buffer, i);
    CHECK_EQ_INT(d->rank, 2);
    snprintf(args + len, 512 - len, " %d %llu %llu %llu %u %u %d",
             d->buffer, d->dims[0], d->dims[1], d->strides[0], d->box[0],
             d->box[1], d->swizzle);
  }
  return 0;
}

int main(int argc, char **argv)
{
  tn_template tpl;
  tn_err err;
  tn_emulate_env env;
  int i, j;

  if (argc != 5) {
    fprintf(stderr, "usage: test_gemm_emulate CXX TEMPLATE SUPPORT_DIR "
                    "WORK_DIR\n");
    return 2;
  }
  env.cxx = argv[1];
  env.support = argv[3];
  env.work = argv[4];
  fam = tn_family_find("gemm");
  CHECK(fam != NULL);
  if (fam == NULL || tn_template_load(argv[2], &tpl, &err) != 0) {
    fprintf(stderr, "cannot load the family or %s\n", argv[2]);
    return 1;
  }
  for (i = 0; i < N_OF(points); i++) {
    char why[TN_REASON_LEN] = "", name[64];
    tn_params p;
    tn_problem prob;
    snprintf(name, sizeof(name), "gemm-emulate-%d", i);
    if (make_point(&points[i], sizes[0], &p, &prob, why, sizeof(why)) !=
        0) {
      fprintf(stderr, "point %d: %s\n", i, why);
      tn_test_failures++;
      continue;
    }
    if (tn_emulate_build(&env, fam, &p, &prob, &tpl,
                         "#undef __shared__\n#define __shared__ static\n"
                         "#define TN_TMA_HOST 1",
                         "gemm_host_main.h", name) != 0) {
      tn_test_failures++; /* said why */
      continue;
    }
    for (j = 0; j < (points[i].pipeline == 3 ? N_OF(tma_sizes)
                                             : N_OF(sizes));
         j++) {
      const int *size = points[i].pipeline == 3 ? tma_sizes[j] : sizes[j];
      char args[512], label[256];
      tn_launch l;
      if (make_point(&points[i], size, &p, &prob, why, sizeof(why)) != 0) {
        fprintf(stderr, "point %d: %d x %d x %d excluded: %s\n", i, size[0],
                size[1], size[2], why);
        tn_test_failures++;
        continue;
      }
      fam->launch(fam, &p, &prob, &l);
      snprintf(args, sizeof(args), "%d %d %d %u %u %u %u", size[0], size[1],
               size[2], l.grid[0], l.grid[1], l.block[0], l.block[1]);
      if (points[i].pipeline == 3 && map_args(&p, &prob, args) != 0) {
        tn_test_failures++;
        continue;
      }
      snprintf(label, sizeof(label), "point %d (kernel %d, %d x %d x %d, "
                                     "pipeline %d): %d x %d x %d",
               i, points[i].kernel, points[i].bm, points[i].bn,
               points[i].bk, points[i].pipeline, size[0], size[1], size[2]);
      tn_test_failures += tn_emulate_run(&env, name, args, fam, &p, &prob,
                                         label);
    }
  }
  tn_template_free(&tpl);
  TEST_DONE();
}

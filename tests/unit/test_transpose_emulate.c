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

#include "drift.h"
#include "family/family.h"
#include "family/param.h"
#include "pipeline/render.h"
#include "test_util.h"

static const tn_family *fam;

/* the host program writes six 32-bit words a record */
_Static_assert(sizeof(tn_trace_rec) == 24, "transpose_host_main.h's records");

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
static int build(const point_spec *s, int n, const tn_template *tpl,
                 const char *cxx, const char *support, const char *work,
                 char *exe, size_t exe_len)
{
  char src[4096], cmd[32768], dir[4096], why[TN_REASON_LEN] = "";
  char *text = NULL;
  tn_params p;
  tn_problem prob;
  tn_err err;
  FILE *f;
  int rc;

  if (make_point(s, &p, &prob) != 0)
    return -1;
  prob.size.dims[0] = sizes[0][0];
  prob.size.dims[1] = sizes[0][1];
  if (fam->prepare(fam, &p, &prob, why, sizeof(why)) != 0) {
    fprintf(stderr, "point %d (%s): excluded: %s\n", n, s->elem, why);
    return -1;
  }
  if (tn_render(fam, &p, &prob, tpl, &text, &err) != 0)
    return -1;
  snprintf(src, sizeof(src), "%s/emulate-%d.cpp", work, n);
  snprintf(exe, exe_len, "%s/emulate-%d", work, n);
  f = fopen(src, "w");
  if (f == NULL) {
    free(text);
    return -1;
  }
  fprintf(f, "#include \"cuda_host.h\"\n%s\n"
             "#include \"transpose_host_main.h\"\n",
          text);
  fclose(f);
  free(text);
  /* the template's folder: its headers */
  snprintf(dir, sizeof(dir), "%s", tpl->path);
  if (strrchr(dir, '/'))
    *strrchr(dir, '/') = '\0';
  snprintf(cmd, sizeof(cmd),
           "'%s' -std=c++17 -O1 -fno-strict-aliasing -pthread -w "
           "-DTN_TRACE_HOST=1 "
           "-fsanitize=address,undefined -fno-sanitize-recover=all "
           "-I'%s' -I'%s' -o '%s' '%s' 2>&1",
           cxx, support, dir, exe, src);
  rc = system(cmd);
  if (rc == 0) {
    /* the hooks against the accesses: instrumented as for the thread
     * sanitizer, the host program taking its calls (no run-time library) */
    snprintf(cmd, sizeof(cmd),
             "'%s' -std=c++17 -O1 -fno-strict-aliasing -pthread -w "
             "-DTN_TRACE_HOST=1 -DTN_TRACE_TOUCH=1 -fsanitize=thread "
             "-I'%s' -I'%s' -c -o '%s-touch.o' '%s' 2>&1 && "
             "'%s' -pthread -o '%s-touch' '%s-touch.o' 2>&1",
             cxx, support, dir, exe, src, cxx, exe, exe);
    rc = system(cmd);
  }
  if (rc != 0) {
    fprintf(stderr, "point %d (%s): %s: exit %d\n", n, s->elem, cmd, rc);
    return -1;
  }
  return 0;
}

/* Reads the trace exe wrote and compares it with the plan of p on prob;
 * the accesses in one and not the other (0 equal), or -1. */
static long long compare_trace(const char *path, const tn_params *p,
                               const tn_problem *prob, const char *label)
{
  tn_block_plan plan, trace;
  tn_trace_rec *recs = NULL;
  char why[TN_REASON_LEN] = "";
  long long n = 0, bad;
  size_t cap = 0;
  FILE *f = fopen(path, "rb");

  if (f == NULL) {
    fprintf(stderr, "%s: no trace %s\n", label, path);
    return -1;
  }
  for (;;) {
    if ((size_t)n == cap) {
      size_t c = cap ? 2 * cap : 4096;
      tn_trace_rec *r = realloc(recs, c * sizeof(*r));
      if (r == NULL) {
        fprintf(stderr, "%s: out of memory reading %s\n", label, path);
        fclose(f);
        free(recs);
        return -1;
      }
      recs = r;
      cap = c;
    }
    if (fread(&recs[n], sizeof(*recs), 1, f) != 1)
      break;
    n++;
  }
  fclose(f);
  if (tn_drift_trace_group(recs, n, &trace, why, sizeof(why)) != 0 ||
      tn_drift_grid_plan(fam, p, prob, &plan, why, sizeof(why)) != 0) {
    fprintf(stderr, "%s: %s\n", label, why);
    free(recs);
    return -1;
  }
  free(recs);
  bad = tn_drift_compare(&plan, &trace, label, 4);
  if (plan.n == 0)
    bad = -1; /* a point whose accesses are not hooked compares nothing */
  tn_block_plan_free(&plan);
  tn_block_plan_free(&trace);
  return bad;
}

/* Runs exe on each size with the family's launch, its output compared
 * with the transpose and its trace with the plan; the failures. */
static int run_sizes(const point_spec *s, int n, const char *exe)
{
  int i, failed = 0;
  for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
    char cmd[16384], trace[4200], label[256], why[TN_REASON_LEN] = "";
    long long bad;
    tn_params p;
    tn_problem prob;
    tn_launch l;
    int rc;
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
    snprintf(trace, sizeof(trace), "%s.trace", exe);
    snprintf(cmd, sizeof(cmd), "'%s' %d %d %u %u %u '%s'", exe, sizes[i][0],
             sizes[i][1], l.grid[0], l.block[0], l.block[1], trace);
    snprintf(label, sizeof(label), "point %d (%s tile %d tile_rows %d): "
                                   "%d x %d",
             n, s->elem, s->tile, s->tile_rows, sizes[i][0], sizes[i][1]);
    rc = system(cmd);
    if (rc != 0) {
      fprintf(stderr, "%s: exit %d\n", label, rc);
      remove(trace);
      failed++;
      continue;
    }
    bad = compare_trace(trace, &p, &prob, label);
    remove(trace);
    if (bad > 0)
      fprintf(stderr, "%s: the trace and the plan differ in %lld accesses\n",
              label, bad);
    failed += bad != 0;
    snprintf(cmd, sizeof(cmd), "'%s-touch' %d %d %u %u %u", exe, sizes[i][0],
             sizes[i][1], l.grid[0], l.block[0], l.block[1]);
    rc = system(cmd);
    if (rc != 0) {
      fprintf(stderr, "%s: the hooks are not the accesses: exit %d\n",
              label, rc);
      failed++;
    }
  }
  return failed;
}

int main(int argc, char **argv)
{
  tn_template tpl;
  tn_err err;
  int i;

  if (argc != 5) {
    fprintf(stderr, "usage: test_transpose_emulate CXX TEMPLATE "
                    "SUPPORT_DIR WORK_DIR\n");
    return 2;
  }
  fam = tn_family_find("transpose");
  CHECK(fam != NULL);
  if (fam == NULL || tn_template_load(argv[2], &tpl, &err) != 0) {
    fprintf(stderr, "cannot load the family or %s\n", argv[2]);
    return 1;
  }
  for (i = 0; i < (int)(sizeof(points) / sizeof(points[0])); i++) {
    char exe[4096];
    if (build(&points[i], i, &tpl, argv[1], argv[3], argv[4], exe,
              sizeof(exe)) != 0) {
      tn_test_failures++;
      continue;
    }
    tn_test_failures += run_sizes(&points[i], i, exe);
  }
  tn_template_free(&tpl);
  TEST_DONE();
}

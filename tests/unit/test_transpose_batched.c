/* test_transpose_batched.c -- the batched transposes on the CPU
 * (transpose_batched: [batch, rows, cols], transpose_heads: [batch, heads,
 * rows, cols]): for points of the threads' path and the copy engine's,
 * aligned and ragged, a batch's model is the batch times one matrix's
 * (wavefronts, instructions, blocks), its launch one matrix's grid in x
 * and the batch in y and z, its buffers, work, time-model work and tensor
 * maps the batch's; the problems refused with their reasons (bytes past
 * 2^62, a batch the grid cannot hold); the host check finding an element
 * of one matrix of the batch, with that matrix in its text. */
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "family/family.h"
#include "test_util.h"
#include "verify_util.h"

static const tn_family *plain, *batched, *heads;

#define IDX(f, name) tn_param_index((f)->params, (f)->n_params, name)

/* A point, every other parameter at its default. */
static void point(tn_params *p, int tile, int rpt, int vec, int pad,
                  const char *swz, int tma, int tma_store)
{
  char why[256];
  int i;
  memset(p, 0, sizeof(*p));
  for (i = 0; i < plain->n_params; i++)
    p->v[i].i = plain->params[i].def;
  p->v[IDX(plain, "tile")].i = tile;
  p->v[IDX(plain, "rows_per_thread")].i = rpt;
  p->v[IDX(plain, "vec")].i = vec;
  p->v[IDX(plain, "pad")].i = pad;
  p->v[IDX(plain, "tma")].i = tma;
  p->v[IDX(plain, "tma_store")].i = tma_store;
  if (tn_swizzle_parse(swz, &p->v[IDX(plain, "swizzle")].sw, why,
                       sizeof(why)))
    fprintf(stderr, "bad swizzle %s: %s\n", swz, why);
}

/* A problem of f with the dimensions dims[0 .. f->n_dims - 1], fp16. */
static void problem(const tn_family *f, tn_problem *prob,
                    const long long *dims)
{
  char why[256];
  int k = tn_problem_option_index(f, "elem"), i;
  tn_problem_defaults(f, prob);
  prob->size.n_dims = f->n_dims;
  for (i = 0; i < f->n_dims; i++)
    prob->size.dims[i] = dims[i];
  CHECK(k >= 0);
  if (k >= 0 && tn_option_choice_parse(&f->options[k], "fp16", &prob->opt[k],
                                       why, sizeof(why)))
    fprintf(stderr, "bad elem: %s\n", why);
}

static tn_model_cost model(const tn_family *f, tn_params *p,
                           const tn_problem *prob)
{
  tn_model_cost c;
  char why[TN_REASON_LEN] = "";
  tn_params q = *p;
  memset(&c, 0, sizeof(c));
  if (f->prepare(f, &q, prob, why, sizeof(why)) != 0) {
    fprintf(stderr, "%s: unexpectedly excluded: %s\n", f->name, why);
    tn_test_failures++;
    return c;
  }
  CHECK(tn_family_model(f, &q, prob, tn_arch_find("sm_90"), &c, why,
                        sizeof(why)) == 0);
  return c;
}

/* The batch of f (dims: its leading ones, then rows and cols) against
 * one rows x cols matrix of the 2-D family: times the batch. */
static void check_times(const tn_family *f, tn_params *p,
                        const long long *dims, long long batch)
{
  tn_problem one, many;
  tn_model_cost a, b;
  tn_time_work wa, wb;
  tn_launch la, lb;
  int nd = f->n_dims;
  problem(plain, &one, dims + nd - 2);
  problem(f, &many, dims);
  a = model(plain, p, &one);
  b = model(f, p, &many);
  CHECK(a.blocks > 0);
  CHECK_EQ_INT(b.blocks, batch * a.blocks);
  CHECK_EQ_INT(b.ld_wavefronts, batch * a.ld_wavefronts);
  CHECK_EQ_INT(b.st_wavefronts, batch * a.st_wavefronts);
  CHECK_EQ_INT(b.ld_insts, batch * a.ld_insts);
  CHECK_EQ_INT(b.st_insts, batch * a.st_insts);
  CHECK_EQ_INT(b.ideal_wavefronts, batch * a.ideal_wavefronts);
  plain->launch(plain, p, &one, &la);
  f->launch(f, p, &many, &lb);
  CHECK_EQ_INT(lb.grid[0], la.grid[0]);
  CHECK_EQ_INT((long long)lb.grid[1] * lb.grid[2], batch);
  CHECK(lb.grid[1] <= 65535 && lb.grid[2] <= 65535);
  CHECK(f->work(f, &many) == batch * plain->work(plain, &one));
  plain->estimate(plain, p, &one, &wa);
  f->estimate(f, p, &many, &wb);
  CHECK(wb.dram_bytes == batch * wa.dram_bytes);
  CHECK(wb.imad_ops == batch * wa.imad_ops);
  CHECK(wb.other_insts == batch * wa.other_insts);
  CHECK(wb.tma_boxes[0] == batch * wa.tma_boxes[0]);
  CHECK(wb.tma_boxes[1] == batch * wa.tma_boxes[1]);
}

static void test_plan(void)
{
  static const long long b3[] = {6, 512, 256}, r3[] = {5, 200, 136};
  static const long long b4[] = {2, 3, 256, 128}, r4[] = {3, 2, 136, 200};
  tn_params p;
  /* the threads' path: interior tiles, then edge tiles in every matrix */
  point(&p, 64, 4, 8, 1, "none", 0, 0);
  check_times(batched, &p, b3, 6);
  check_times(batched, &p, r3, 5);
  check_times(heads, &p, b4, 6);
  check_times(heads, &p, r4, 6);
  point(&p, 32, 4, 2, 0, "xor", 0, 0);
  check_times(batched, &p, r3, 5);
  /* the copy engine's path, the threads storing or the copy engine */
  point(&p, 64, 4, 8, 0, "sw128", 1, 0);
  check_times(batched, &p, b3, 6);
  check_times(batched, &p, r3, 5);
  point(&p, 64, 4, 8, 0, "sw128", 1, 1);
  check_times(heads, &p, b4, 6);
  check_times(heads, &p, r4, 6);
}

static void test_launch_maps(void)
{
  static const long long big[] = {70000, 16, 16}, d4[] = {4, 32, 2048, 128};
  tn_problem prob;
  tn_params p;
  tn_launch l;
  tn_tmap_desc maps[TN_MAX_TMAPS];
  tn_buffer_desc d[TN_MAX_BUFFERS];
  tn_defines def;
  int i, found;

  /* a batch past 65535 splits into y and z */
  point(&p, 16, 4, 2, 0, "none", 0, 0);
  problem(batched, &prob, big);
  batched->launch(batched, &p, &prob, &l);
  CHECK_EQ_INT(l.grid[0], 1);
  CHECK_EQ_INT(l.grid[1], 35000);
  CHECK_EQ_INT(l.grid[2], 2);
  /* heads: buffers of the whole batch, 3-D maps of batch * heads
   * matrices, each a box deep */
  problem(heads, &prob, d4);
  memset(d, 0, sizeof(d));
  CHECK_EQ_INT(heads->buffers(heads, &prob, d), 2);
  CHECK_EQ_INT(d[0].bytes, 4LL * 32 * 2048 * 128 * 2);
  CHECK_EQ_INT(d[1].bytes, d[0].bytes);
  point(&p, 64, 4, 8, 0, "sw128", 1, 1);
  memset(maps, 0, sizeof(maps));
  CHECK_EQ_INT(heads->tensor_maps(heads, &p, &prob, maps), 2);
  for (i = 0; i < 2; i++) {
    char why[256];
    CHECK_EQ_INT(maps[i].rank, 3);
    CHECK_EQ_INT(maps[i].dims[2], 128);
    CHECK_EQ_INT(maps[i].box[2], 1);
    CHECK_EQ_INT(maps[i].strides[1], 2048LL * 128 * 2);
    CHECK_EQ_INT(tn_tmap_check(&maps[i], why, sizeof(why)), 0);
  }
  CHECK_EQ_INT(maps[0].dims[0], 128);
  CHECK_EQ_INT(maps[1].dims[0], 2048);
  /* the template's TN_BATCHED: the batched families only */
  memset(&def, 0, sizeof(def));
  tn_family_macros(heads, &p, &prob, &def);
  for (i = found = 0; i < def.n; i++)
    found |= strcmp(def.name[i], "TN_BATCHED") == 0;
  CHECK(found);
  {
    static const long long two[] = {2048, 128};
    problem(plain, &prob, two);
    memset(&def, 0, sizeof(def));
    tn_family_macros(plain, &p, &prob, &def);
    for (i = found = 0; i < def.n; i++)
      found |= strcmp(def.name[i], "TN_BATCHED") == 0;
    CHECK(!found);
    memset(maps, 0, sizeof(maps));
    CHECK_EQ_INT(plain->tensor_maps(plain, &p, &prob, maps), 2);
    CHECK_EQ_INT(maps[0].rank, 2);
  }
}

/* check_problem(): refused with reason, or accepted */
static void refused(const tn_family *f, const long long *dims,
                    const char *reason)
{
  tn_problem prob;
  char why[512] = "";
  problem(f, &prob, dims);
  CHECK_EQ_INT(f->check_problem(f, &prob, why, sizeof(why)), 1);
  if (strstr(why, reason) == NULL) {
    fprintf(stderr, "expected \"%s\" in \"%s\"\n", reason, why);
    tn_test_failures++;
  }
}

static void test_check_problem(void)
{
  static const long long ok3[] = {65535, 65535, 1}, ok4[] = {8, 65535, 2, 2};
  static const long long prime[] = {65537, 8, 8};
  static const long long many[] = {65536, 65536, 1, 1};
  static const long long bytes[] = {2147483647, 2147483647, 2147483647};
  static const long long wide[] = {2, 2147483647, 1073741824};
  static const long long two[] = {2147483647, 2147483647};
  tn_problem prob;
  char why[512];
  problem(batched, &prob, ok3);
  CHECK_EQ_INT(batched->check_problem(batched, &prob, why, sizeof(why)), 0);
  problem(heads, &prob, ok4);
  CHECK_EQ_INT(heads->check_problem(heads, &prob, why, sizeof(why)), 0);
  refused(batched, prime, "a batch of 65537 matrices does not split");
  refused(heads, many, "a batch of 4294967296 matrices does not split");
  refused(batched, bytes, "more than 2^62 bytes");
  refused(batched, wide, "more than 2^62 bytes");
  /* the 2-D family: its largest sizes as before, 2^62 bytes the limit */
  refused(plain, two, "more than 2^62 bytes");
  /* a size of the wrong number of dimensions (a results file's) */
  problem(plain, &prob, two);
  CHECK_EQ_INT(batched->check_problem(batched, &prob, why, sizeof(why)), 1);
}

/* The host check of a batch of 3 matrices of 4 x 5 fp16: right, then one
 * element of matrix 2 wrong. */
static void test_verify(void)
{
  static const long long dims[] = {3, 4, 5};
  const long long rows = 4, cols = 5;
  tn_problem prob;
  tn_buffer_desc d[TN_MAX_BUFFERS];
  tn_verify_env env;
  unsigned short *in, *out;
  char why[512];
  long long b, r, c;

  problem(batched, &prob, dims);
  memset(d, 0, sizeof(d));
  batched->buffers(batched, &prob, d);
  CHECK_EQ_INT(d[0].bytes, 3 * 4 * 5 * 2);
  in = malloc(d[0].bytes);
  out = malloc(d[1].bytes);
  if (in == NULL || out == NULL) {
    CHECK(0);
    free(in);
    free(out);
    return;
  }
  for (r = 0; r < 60; r++)
    in[r] = (unsigned short)(1000 + 7 * r);
  for (b = 0; b < 3; b++)
    for (r = 0; r < rows; r++)
      for (c = 0; c < cols; c++)
        out[b * 20 + c * rows + r] = in[b * 20 + r * cols + c];
  tn_test_verify_env(&env, batched, &prob, d, in, out);
  CHECK_EQ_INT(batched->verify(&env, why, sizeof(why)), 0);
  /* matrix 2's element (r, c) = (1, 3) is out[2][3][1] */
  out[2 * 20 + 3 * rows + 1] ^= 0x100;
  CHECK_EQ_INT(batched->verify(&env, why, sizeof(why)), 1);
  if (strstr(why, "1 of 60 elements differ; first out[2][3][1]") == NULL) {
    fprintf(stderr, "verify: got \"%s\"\n", why);
    tn_test_failures++;
  }
  /* the matrices laid out as one 12 x 5 matrix would be wrong */
  out[2 * 20 + 3 * rows + 1] ^= 0x100;
  for (r = 0; r < 3 * rows; r++)
    for (c = 0; c < cols; c++)
      out[c * 3 * rows + r] = in[r * cols + c];
  CHECK_EQ_INT(batched->verify(&env, why, sizeof(why)), 1);
  free(in);
  free(out);
}

int main(void)
{
  plain = tn_family_find("transpose");
  batched = tn_family_find("transpose_batched");
  heads = tn_family_find("transpose_heads");
  CHECK(plain && batched && heads);
  if (!plain || !batched || !heads)
    return 1;
  CHECK_EQ_INT(batched->n_dims, 3);
  CHECK_EQ_INT(heads->n_dims, 4);
  test_plan();
  test_launch_maps();
  test_check_problem();
  test_verify();
  TEST_DONE();
}

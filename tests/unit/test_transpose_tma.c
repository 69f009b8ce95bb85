/* test_transpose_tma.c -- the transpose family's copy-engine (TMA) path on
 * the CPU: the points that cannot work are excluded, each with its reason
 * (the copy engine's rules, tuner/family/tmap.c, and the path's own); the
 * model's degree of the threads' column reads under each swizzle against
 * closed forms; the tensor maps a point asks for; the layout of
 * templates/smem_layout.h against the hardware's swizzle written on byte
 * addresses (CuTe Swizzle<B, 4, 3>). */
#include <string.h>

#include "base/arch.h"
#include "family/family.h"
#include "test_util.h"
#include "templates/smem_layout.h"

static const tn_family *fam;

/* A point with every parameter at its default, then the TMA path's. */
static void point(tn_params *p, int tile, int rpt, int vec, const char *swz,
                  int store, int box_rows, int box_cols)
{
  char why[256];
  int i;
  memset(p, 0, sizeof(*p));
  for (i = 0; i < fam->n_params; i++)
    p->v[i].i = fam->params[i].def;
#define SET(name, val) p->v[tn_param_index(fam->params, fam->n_params, name)]
  SET("tile", 0).i = tile;
  SET("rows_per_thread", 0).i = rpt;
  SET("vec", 0).i = vec;
  SET("tma", 0).i = 1;
  SET("tma_store", 0).i = store;
  SET("box_rows", 0).i = box_rows;
  SET("box_cols", 0).i = box_cols;
  if (tn_swizzle_parse(swz, &SET("swizzle", 0).sw, why, sizeof(why)) != 0)
    fprintf(stderr, "bad swizzle %s: %s\n", swz, why);
}

static void problem(tn_problem *prob, long long rows, long long cols)
{
  tn_problem_defaults(fam, prob);
  prob->size.n_dims = 2;
  prob->size.dims[0] = rows;
  prob->size.dims[1] = cols;
}

/* prepare() refuses p on rows x cols, with `reason` in its why. */
static void excluded(tn_params *p, long long rows, long long cols,
                     const char *reason)
{
  tn_problem prob;
  char why[TN_REASON_LEN] = "";
  problem(&prob, rows, cols);
  CHECK(fam->prepare(fam, p, &prob, why, sizeof(why)) == 1);
  if (strstr(why, reason) == NULL) {
    fprintf(stderr, "expected a reason with \"%s\", got \"%s\"\n", reason, why);
    tn_test_failures++;
  }
}

/* The worst degree of the threads' shared reads of one interior tile. */
static int read_degree(tn_params *p, tn_model_cost *cost)
{
  tn_problem prob;
  char why[TN_REASON_LEN] = "";
  int tile = (int)p->v[0].i;
  problem(&prob, 8L * tile, 8L * tile);
  if (fam->prepare(fam, p, &prob, why, sizeof(why)) != 0) {
    fprintf(stderr, "unexpectedly excluded: %s\n", why);
    tn_test_failures++;
    return -1;
  }
  memset(cost, 0, sizeof(*cost));
  CHECK(tn_family_model(fam, p, &prob, tn_arch_find("sm_90"), cost, why,
                        sizeof(why)) == 0);
  return (int)(cost->ld_insts ? cost->ld_wavefronts / cost->ld_insts : -1);
}

static void degrees(void)
{
  tn_params p;
  tn_model_cost c;
  /* A warp of a 32-wide tile with vec 1 reads one column, 32 rows.  No
   * swizzle: row i of a box w elements wide is on bank (i w + col) % 32,
   * 32 / w banks for the 32 rows: w-way (32-way in 128-byte rows). */
  point(&p, 32, 4, 1, "none", 0, 0, 0); /* box 32 x 32: 128-byte rows */
  CHECK_EQ_INT(read_degree(&p, &c), 32);
  CHECK_EQ_INT(c.max_degree, 32);
  point(&p, 32, 4, 1, "none", 0, 0, 16);
  CHECK_EQ_INT(read_degree(&p, &c), 16);
  point(&p, 32, 4, 1, "none", 0, 0, 8);
  CHECK_EQ_INT(read_degree(&p, &c), 8);
  point(&p, 32, 4, 1, "none", 0, 0, 4);
  CHECK_EQ_INT(read_degree(&p, &c), 4);
  /* The swizzles move 16-byte chunks only: one column of 8 consecutive
   * rows (a period) lands on 8 chunks, 8 banks, so 32 rows are 4-way
   * under every mode (the 4 words of a chunk are never spread). */
  point(&p, 32, 4, 1, "sw32", 0, 0, 0);
  CHECK_EQ_INT(read_degree(&p, &c), 4);
  point(&p, 32, 4, 1, "sw64", 0, 0, 0);
  CHECK_EQ_INT(read_degree(&p, &c), 4);
  point(&p, 32, 4, 1, "sw128", 0, 0, 0);
  CHECK_EQ_INT(read_degree(&p, &c), 4);
  /* vec 4: a warp reads rows 4i + k (8 of them) of 4 adjacent columns.
   * No swizzle, 128-byte rows: the 4 columns' banks, 8-way.  sw128: rows
   * 4i + k have only 2 values of row % 8, so 2 chunks x 4 words: 4-way. */
  point(&p, 32, 4, 4, "none", 0, 0, 0);
  CHECK_EQ_INT(read_degree(&p, &c), 8);
  point(&p, 32, 4, 4, "sw128", 0, 0, 0);
  CHECK_EQ_INT(read_degree(&p, &c), 4);
  /* A 64-wide tile in 32-wide boxes (sw128): a warp with vec 2 reads one
   * column of rows 2i + k, 4 values of row % 8: 4 chunks, one word of
   * each, so 4 banks for 32 lanes: 8-way. */
  point(&p, 64, 4, 2, "sw128", 0, 0, 0);
  CHECK_EQ_INT(read_degree(&p, &c), 8);
  /* the TMA store adds one store per row of a thread, in the same tile */
  point(&p, 32, 4, 4, "sw128", 1, 0, 0);
  read_degree(&p, &c);
  CHECK(c.st_insts > 0);
}

static void exclusions(void)
{
  tn_params p;
  tn_tmap_desc maps[TN_MAX_TMAPS];
  tn_problem prob;
  tn_launch l;

  point(&p, 32, 4, 1, "xor", 0, 0, 0);
  excluded(&p, 1024, 1024, "the copy engine swizzles as none, sw32");
  point(&p, 32, 4, 1, "none", 0, 0, 0);
  p.v[tn_param_index(fam->params, fam->n_params, "pad")].i = 1;
  excluded(&p, 1024, 1024, "pad 1: the copy engine writes dense boxes");
  point(&p, 8, 4, 1, "none", 0, 0, 0);
  excluded(&p, 1024, 1024, "tile 8: the copy engine's tiles start on 1024");
  point(&p, 32, 4, 1, "sw128", 0, 0, 16);
  excluded(&p, 1024, 1024, "a 128-byte swizzle needs boxes 32 elements");
  point(&p, 32, 4, 1, "sw64", 0, 0, 8);
  excluded(&p, 1024, 1024, "a 64-byte swizzle needs boxes 16 elements");
  point(&p, 32, 4, 1, "sw128", 0, 4, 0);
  excluded(&p, 1024, 1024, "a box of 512 bytes: each box must start on "
                           "1024 bytes (the swizzle's period");
  point(&p, 32, 4, 1, "none", 0, 3, 0);
  excluded(&p, 1024, 1024, "a box of 3 x 32 does not divide");
  point(&p, 64, 4, 1, "none", 0, 0, 48);
  excluded(&p, 1024, 1024, "a box of 64 x 48 does not divide");
  point(&p, 64, 4, 1, "none", 0, 0, 2); /* divides, but 8-byte rows */
  excluded(&p, 1024, 1024, "the box's inner dimension, 8 bytes, is not a "
                           "multiple of 16");
  /* the copy engine's rules, through the tensor maps */
  point(&p, 32, 4, 1, "none", 0, 0, 0);
  excluded(&p, 5000, 3001, "the stride of dimension 1, 12004 bytes, is not "
                           "a multiple of 16");
  point(&p, 32, 4, 1, "none", 1, 0, 0);
  excluded(&p, 3001, 5000, "(the output: 5000 x 3001)");
  point(&p, 32, 4, 1, "none", 0, 0, 0); /* the threads store: any rows */
  problem(&prob, 3001, 5000);
  {
    char why[TN_REASON_LEN];
    CHECK(fam->prepare(fam, &p, &prob, why, sizeof(why)) == 0);
  }
  /* the SIMT path refuses the TMA path's parameters */
  point(&p, 32, 4, 1, "none", 1, 0, 0);
  p.v[tn_param_index(fam->params, fam->n_params, "tma")].i = 0;
  excluded(&p, 1024, 1024, "belong to the copy engine's path (tma = 1)");
  /* the rules of tmap.c themselves */
  {
    tn_tmap_desc d;
    char why[256];
    memset(&d, 0, sizeof(d));
    d.rank = 2;
    d.dims[0] = 1024;
    d.dims[1] = 1024;
    d.strides[0] = 4096;
    d.box[0] = 32;
    d.box[1] = 257;
    CHECK(tn_tmap_check(&d, why, sizeof(why)) == 1 &&
          strstr(why, "box dimension 1 of 257 elements") != NULL);
    d.box[1] = 32;
    d.swizzle = 64;
    CHECK(tn_tmap_check(&d, why, sizeof(why)) == 1 &&
          strstr(why, "spans more than the 64-byte swizzle") != NULL);
    d.swizzle = 0;
    d.box[0] = 3;
    CHECK(tn_tmap_check(&d, why, sizeof(why)) == 1 &&
          strstr(why, "12 bytes, is not a multiple of 16") != NULL);
    d.box[0] = 32;
    CHECK(tn_tmap_check(&d, why, sizeof(why)) == 0);
    CHECK_EQ_INT(tn_tmap_box_bytes(&d), 32 * 32 * 4);
  }
  /* the maps a point asks for, and its launch */
  point(&p, 64, 4, 4, "sw128", 1, 8, 0);
  problem(&prob, 5000, 3004);
  {
    char why[TN_REASON_LEN];
    CHECK(fam->prepare(fam, &p, &prob, why, sizeof(why)) == 0);
  }
  memset(maps, 0, sizeof(maps));
  CHECK_EQ_INT(fam->tensor_maps(fam, &p, &prob, maps), 2);
  CHECK_EQ_INT(maps[0].dims[0], 3004);
  CHECK_EQ_INT(maps[0].dims[1], 5000);
  CHECK_EQ_INT(maps[0].strides[0], 3004 * 4);
  CHECK_EQ_INT(maps[0].box[0], 32);
  CHECK_EQ_INT(maps[0].box[1], 8);
  CHECK_EQ_INT(maps[0].swizzle, 128);
  CHECK_EQ_INT(maps[1].buffer, 1);
  CHECK_EQ_INT(maps[1].dims[0], 5000);
  CHECK_EQ_INT(maps[1].strides[0], 5000 * 4);
  fam->launch(fam, &p, &prob, &l);
  CHECK_EQ_INT(l.min_cc, 90);
  CHECK_EQ_INT(l.smem_static, 2 * 64 * 64 * 4 + 8);
}

/* tn_tma_offset against the hardware's rule on byte addresses: the 16-byte
 * chunk (bits 4..) xor bits 7.. of the address, B bits of them. */
static void layout(void)
{
  int b, row, col;
  for (b = 1; b <= 3; b++) {
    int span = 16 << b, cols = span / 4;
    for (row = 0; row < 64; row++)
      for (col = 0; col < cols; col++) {
        unsigned byte = (unsigned)(row * span + col * 4);
        unsigned hw = byte ^ (((byte >> 7) & ((1u << b) - 1)) << 4);
        CHECK_EQ_INT(4 * tn_tma_offset(row, col, cols, 64, cols, b, 2, 3),
                     hw);
      }
  }
  /* boxes one after another, row of boxes by row of boxes */
  CHECK_EQ_INT(tn_tma_offset(0, 32, 64, 8, 32, 0, 0, 0), 8 * 32);
  CHECK_EQ_INT(tn_tma_offset(8, 0, 64, 8, 32, 0, 0, 0), 2 * 8 * 32);
}

int main(void)
{
  fam = tn_family_find("transpose");
  CHECK(fam != NULL);
  if (fam == NULL)
    TEST_DONE();
  layout();
  exclusions();
  degrees();
  TEST_DONE();
}

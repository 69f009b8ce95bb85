/* test_transpose_widths.c -- the transpose family's element widths on the
 * CPU: the problem option elem (a results file without it reads as fp32,
 * and fp32's problems are written as before it); the points each width
 * cannot take, excluded with their reason; xor resolved at a bank's
 * granularity; the model's wavefronts per block of the main layouts of
 * each width against counts worked out by hand; the buffers, work and
 * tensor maps of each width; the check comparing each width bit for bit,
 * every byte of an element and no byte more; the shared memory a block
 * claims (smem_claim) in its launch and the occupancy it gives. */
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "family/family.h"
#include "model/time.h"
#include "test_util.h"
#include "verify_util.h"

static const tn_family *fam;

#define IDX(name) tn_param_index(fam->params, fam->n_params, name)

/* A point of the threads' path, every other parameter at its default. */
static void point(tn_params *p, int tile, int rpt, int vec, int pad,
                  int pad_unit, const char *swz, int pack)
{
  char why[256];
  int i;
  memset(p, 0, sizeof(*p));
  for (i = 0; i < fam->n_params; i++)
    p->v[i].i = fam->params[i].def;
  p->v[IDX("tile")].i = tile;
  p->v[IDX("rows_per_thread")].i = rpt;
  p->v[IDX("vec")].i = vec;
  p->v[IDX("pad")].i = pad;
  p->v[IDX("pad_unit")].i = pad_unit;
  p->v[IDX("pack")].i = pack;
  if (tn_swizzle_parse(swz, &p->v[IDX("swizzle")].sw, why, sizeof(why)))
    fprintf(stderr, "bad swizzle %s: %s\n", swz, why);
}

static void tma_point(tn_params *p, int tile, int rpt, int vec,
                      const char *swz, int store, int box_cols, int pack)
{
  point(p, tile, rpt, vec, 0, 0, swz, pack);
  p->v[IDX("tma")].i = 1;
  p->v[IDX("tma_store")].i = store;
  p->v[IDX("box_cols")].i = box_cols;
}

/* A problem of rows x cols of the element type called elem. */
static void problem(tn_problem *prob, const char *elem, long long rows,
                    long long cols)
{
  char why[256];
  int k = tn_problem_option_index(fam, "elem");
  tn_problem_defaults(fam, prob);
  prob->size.n_dims = 2;
  prob->size.dims[0] = rows;
  prob->size.dims[1] = cols;
  CHECK(k >= 0);
  if (k >= 0 && tn_option_choice_parse(&fam->options[k], elem,
                                       &prob->opt[k], why, sizeof(why)))
    fprintf(stderr, "bad elem %s: %s\n", elem, why);
}

/* prepare() refuses p for elem, with `reason` in its why. */
static void excluded(tn_params *p, const char *elem, const char *reason)
{
  tn_problem prob;
  char why[TN_REASON_LEN] = "";
  problem(&prob, elem, 1024, 1024);
  CHECK(fam->prepare(fam, p, &prob, why, sizeof(why)) == 1);
  if (strstr(why, reason) == NULL) {
    fprintf(stderr, "%s: expected a reason with \"%s\", got \"%s\"\n", elem,
            reason, why);
    tn_test_failures++;
  }
}

static int accepted(tn_params *p, const char *elem)
{
  tn_problem prob;
  char why[TN_REASON_LEN] = "";
  problem(&prob, elem, 1024, 1024);
  if (fam->prepare(fam, p, &prob, why, sizeof(why)) != 0) {
    fprintf(stderr, "%s: unexpectedly excluded: %s\n", elem, why);
    return 0;
  }
  return 1;
}

static void test_option(void)
{
  tn_problem prob;
  json_t *o;
  char why[256];
  int k = tn_problem_option_index(fam, "elem");

  CHECK(k >= 0);
  /* fp32's problems are written as before the option */
  problem(&prob, "fp32", 64, 64);
  o = json_object();
  tn_problem_options_json(fam, &prob, o);
  CHECK(json_object_get(o, "elem") == NULL);
  json_decref(o);
  problem(&prob, "fp16", 64, 64);
  o = json_object();
  tn_problem_options_json(fam, &prob, o);
  CHECK(json_is_string(json_object_get(o, "elem")) &&
        strcmp(json_string_value(json_object_get(o, "elem")), "fp16") == 0);
  /* read back; and a file from before the option reads as fp32 */
  tn_problem_defaults(fam, &prob);
  CHECK(tn_problem_options_from_json(fam, o, &prob, why, sizeof(why)) == 0);
  json_decref(o);
  o = json_object();
  prob.opt[k] = 3;
  CHECK(tn_problem_options_from_json(fam, o, &prob, why, sizeof(why)) == 0);
  CHECK(prob.opt[k] == fam->options[k].def);
  /* a name not among the choices is refused, naming them */
  json_object_set_new(o, "elem", json_string("fp4"));
  CHECK(tn_problem_options_from_json(fam, o, &prob, why, sizeof(why)) != 0);
  CHECK(strstr(why, "'fp4' is not one of: fp32, fp16, bf16, fp8, int8, "
                    "fp64") != NULL);
  json_decref(o);
}

static void test_exclusions(void)
{
  tn_params p;

  /* vectors and packed loads of at most 16 bytes */
  point(&p, 64, 4, 8, 0, 0, "none", 1);
  excluded(&p, "fp32", "vec 8 of 4-byte elements: a global access of");
  CHECK(accepted(&p, "fp16"));
  point(&p, 64, 4, 16, 0, 0, "none", 1);
  excluded(&p, "fp16", "vec 16 of 2-byte elements");
  CHECK(accepted(&p, "int8"));
  point(&p, 64, 4, 4, 0, 0, "none", 1);
  excluded(&p, "fp64", "vec 4 of 8-byte elements");
  point(&p, 8, 4, 16, 0, 0, "none", 1);
  excluded(&p, "int8", "vec 16 is wider than the tile (8)");
  point(&p, 64, 4, 2, 0, 0, "none", 4);
  excluded(&p, "fp64", "pack 4 of 8-byte elements: a shared load");
  point(&p, 64, 2, 1, 0, 0, "none", 4);
  excluded(&p, "int8", "pack 4 does not divide rows_per_thread 2");
  /* the pad's unit */
  point(&p, 32, 4, 1, 1, 4, "none", 1);
  excluded(&p, "fp64", "pad 1 of 4-byte words is not a whole number of "
                       "8-byte elements");
  point(&p, 32, 4, 1, 2, 4, "none", 1);
  CHECK(accepted(&p, "fp64")); /* two words: one element */
  point(&p, 32, 4, 1, 0, 4, "none", 1);
  excluded(&p, "fp16", "pad_unit 4 with pad 0: the layout of pad_unit 0");
  point(&p, 32, 4, 1, 1, 2, "none", 1);
  excluded(&p, "fp16", "pad_unit 2: 0 (elements) or 4 (4-byte words)");
  /* packed loads the layout would split */
  point(&p, 64, 4, 8, 1, 0, "none", 2);
  excluded(&p, "fp16", "pack 2: a pad of 1 elements leaves the packed "
                       "loads unaligned");
  point(&p, 64, 4, 8, 1, 4, "none", 2);
  CHECK(accepted(&p, "fp16")); /* one word: two elements */
  point(&p, 32, 4, 2, 0, 0, "xor", 2);
  excluded(&p, "fp64", "pack 2: the swizzle moves groups of 1 elements");
  point(&p, 64, 4, 8, 0, 0, "cute(3,1,5)", 4);
  excluded(&p, "int8", "pack 4: the swizzle moves groups of 2 elements");
  /* the copy engine: tiles of 1024 bytes, boxes of the swizzle's span in
   * the width's elements, rows of 16 bytes */
  tma_point(&p, 16, 4, 2, "none", 0, 0, 1);
  excluded(&p, "fp16", "tile 16: the copy engine's tiles start on 1024 "
                       "bytes, and a tile of 2-byte elements must be a "
                       "multiple of them (512 bytes)");
  CHECK(accepted(&p, "fp32") && accepted(&p, "fp64"));
  tma_point(&p, 16, 4, 4, "none", 0, 0, 1);
  excluded(&p, "int8", "(256 bytes)");
  tma_point(&p, 64, 4, 8, "sw128", 0, 32, 1);
  excluded(&p, "fp16", "a 128-byte swizzle needs boxes 64 elements wide "
                       "(its span in 2-byte elements), not 32");
  tma_point(&p, 64, 4, 8, "sw128", 0, 0, 1);
  CHECK(accepted(&p, "fp16"));
  tma_point(&p, 64, 4, 8, "none", 0, 4, 1);
  excluded(&p, "fp16", "the box's inner dimension, 8 bytes, is not a "
                       "multiple of 16");
  /* the global accesses' hints: the threads' loads need the threads'
   * path, and the copy engine's store leaves the threads no global
   * access */
  point(&p, 128, 8, 16, 0, 0, "xor", 4);
  p.v[IDX("cache")].i = 3;
  CHECK(accepted(&p, "int8"));
  tma_point(&p, 128, 4, 16, "none", 0, 0, 1);
  p.v[IDX("cache")].i = 2;
  excluded(&p, "int8", "cache 2: the copy engine loads the tile");
  p.v[IDX("cache")].i = 1;
  CHECK(accepted(&p, "int8")); /* the threads store, evict-first */
  tma_point(&p, 128, 4, 16, "none", 1, 0, 1);
  p.v[IDX("cache")].i = 1;
  excluded(&p, "int8", "cache 1: with tma_store the copy engine moves "
                       "every global byte");
  /* a rectangular tile: a power of two that the threads' rows and
   * vectors divide, on the threads' path, not the square's again */
  point(&p, 128, 8, 16, 0, 0, "xor", 4);
  p.v[IDX("tile_rows")].i = 256;
  CHECK(accepted(&p, "int8"));
  p.v[IDX("tile_rows")].i = 128;
  excluded(&p, "int8", "tile_rows 128 equals tile: the square tile of "
                       "tile_rows 0");
  p.v[IDX("tile_rows")].i = 96;
  excluded(&p, "int8", "tile_rows 96: 0, or a power of two from 8 to 256");
  point(&p, 128, 16, 4, 0, 0, "xor", 4);
  p.v[IDX("tile_rows")].i = 8;
  excluded(&p, "int8", "rows_per_thread 16 does not divide tile_rows 8");
  point(&p, 128, 4, 16, 0, 0, "xor", 4);
  p.v[IDX("tile_rows")].i = 8;
  excluded(&p, "int8", "vec 16 does not divide tile_rows 8: the rows "
                       "written are tile_rows elements, vec at a time");
  tma_point(&p, 128, 4, 16, "none", 0, 0, 1);
  p.v[IDX("tile_rows")].i = 256;
  excluded(&p, "int8", "tile_rows 256: the copy engine's tile is square");
  tma_point(&p, 128, 4, 16, "sw64", 0, 0, 1);
  {
    tn_problem prob;
    char why[TN_REASON_LEN] = "";
    problem(&prob, "int8", 5000, 3004);
    CHECK(fam->prepare(fam, &p, &prob, why, sizeof(why)) == 1);
    CHECK(strstr(why, "the stride of dimension 1, 3004 bytes, is not a "
                      "multiple of 16") != NULL);
    problem(&prob, "int8", 5000, 3008);
    CHECK(fam->prepare(fam, &p, &prob, why, sizeof(why)) == 0);
  }
}

/* The swizzle a point resolves to for elem. */
static void resolved(const char *elem, int tile, const char *swz, int b,
                     int m, int s)
{
  tn_params p;
  tn_swizzle *sw = &p.v[IDX("swizzle")].sw;
  point(&p, tile, 4, 1, 0, 0, swz, 1);
  if (!accepted(&p, elem)) {
    tn_test_failures++;
    return;
  }
  if (sw->b != b || sw->m != m || sw->s != s) {
    fprintf(stderr, "%s tile %d %s: Swizzle<%d,%d,%d>, expected <%d,%d,%d>\n",
            elem, tile, swz, sw->b, sw->m, sw->s, b, m, s);
    tn_test_failures++;
  }
}

static void test_xor(void)
{
  /* fp32: column ^= row, as before the widths */
  resolved("fp32", 32, "xor", 5, 0, 5);
  resolved("fp32", 64, "xor", 5, 0, 6);
  resolved("fp32", 16, "xor", 4, 0, 4);
  /* fp16: 4-byte words (M = 1) ^= the row (rows of 128 bytes and more),
   * or ^= the 128-byte line (64-byte rows: 16 words, S = 5) */
  resolved("fp16", 64, "xor", 5, 1, 5);
  resolved("fp16", 128, "xor", 5, 1, 6);
  resolved("fp16", 32, "xor", 4, 1, 5);
  /* int8: words of 4 (M = 2) */
  resolved("int8", 128, "xor", 5, 2, 5);
  resolved("int8", 64, "xor", 4, 2, 5);
  resolved("fp8", 32, "xor", 3, 2, 5);
  /* fp64: elements, 16 to a line */
  resolved("fp64", 32, "xor", 4, 0, 5);
  resolved("fp64", 16, "xor", 4, 0, 4);
  resolved("fp64", 8, "xor", 3, 0, 4);
  /* the copy engine's modes: 16-byte chunks of each width */
  resolved("fp16", 64, "sw128", 3, 3, 3);
  resolved("int8", 128, "sw128", 3, 4, 3);
  resolved("fp64", 32, "sw64", 2, 1, 3);
}

/* Wavefronts per block of an interior block (the problem 8 x 8 tiles of
 * tile_rows x tile, tile_rows 0 the square's),
 * and the loads' and stores' instructions per block. */
static double per_block(tn_params *p, const char *elem, double *ld_insts,
                        double *st_insts)
{
  tn_problem prob;
  tn_model_cost c;
  char why[TN_REASON_LEN] = "";
  long long tile = p->v[IDX("tile")].i;
  long long rows = p->v[IDX("tile_rows")].i ? p->v[IDX("tile_rows")].i : tile;
  problem(&prob, elem, 8 * rows, 8 * tile);
  if (fam->prepare(fam, p, &prob, why, sizeof(why)) != 0) {
    fprintf(stderr, "%s: unexpectedly excluded: %s\n", elem, why);
    tn_test_failures++;
    return -1;
  }
  memset(&c, 0, sizeof(c));
  CHECK(tn_family_model(fam, p, &prob, tn_arch_find("sm_90"), &c, why,
                        sizeof(why)) == 0);
  CHECK_EQ_INT(c.blocks, 64);
  *ld_insts = (double)c.ld_insts / (double)c.blocks;
  *st_insts = (double)c.st_insts / (double)c.blocks;
  return tn_model_wavefronts_per_block(&c);
}

#define CHECK_BLOCK(p, elem, wf, lds, sts)                                   \
  do {                                                                       \
    double l_, s_;                                                           \
    CHECK_EQ_INT(per_block(p, elem, &l_, &s_), wf);                          \
    CHECK_EQ_INT(l_, lds);                                                   \
    CHECK_EQ_INT(s_, sts);                                                   \
  } while (0)

static void test_model_fp16(void)
{
  tn_params p;
  /* tile 64, 4 rows a thread, vec 8 (16 bytes): 8 x 16 threads, 4 warps;
   * a warp is 8 lanes (tx) of 4 thread rows (ty).  Its row stores are 16
   * bytes, 4 rows of 128 bytes in 4 quarter-warp phases: 4 wavefronts,
   * 4 stores a warp: 64 a block.  Its column reads take rows 8 tx + k of
   * columns ty + 16 j, two columns a word, rows 128 bytes apart: 8 words
   * on each of 2 banks, 8 wavefronts, 32 reads a warp: 1024. */
  point(&p, 64, 4, 8, 0, 0, "none", 1);
  CHECK_BLOCK(&p, "fp16", 64 + 1024, 128, 16);
  /* pack 2: one 4-byte load brings two columns: 16 reads a warp of 8
   * wavefronts (4 words of each row, rows on one bank): 512 */
  point(&p, 64, 4, 8, 0, 0, "none", 2);
  CHECK_BLOCK(&p, "fp16", 64 + 512, 64, 16);
  /* a pad of one word (33 words a row): the stores are 4 bytes wide (the
   * pad is 2 elements), 4 a row, word 33 ty + 4 tx + k on 32 banks: 1
   * each, 64; the reads: rows 8 tx + k on banks 8 tx + k (+ column / 2),
   * tx and tx + 4 on one bank: 2-way, 32 x 2 a warp: 256 */
  point(&p, 64, 4, 8, 1, 4, "none", 1);
  CHECK_BLOCK(&p, "fp16", 64 + 256, 128, 64);
  point(&p, 64, 4, 8, 1, 4, "none", 2);
  CHECK_BLOCK(&p, "fp16", 64 + 128, 64, 64);
  /* xor of words with the row: the same 2-way reads (rows 8 tx + k, tx
   * and tx + 4 the same row mod 32), 4-byte stores on 32 banks */
  point(&p, 64, 4, 8, 0, 0, "xor", 2);
  CHECK_BLOCK(&p, "fp16", 64 + 128, 64, 64);
  /* vec 4, rpt 4: 16 x 16 threads, 8 warps of 16 tx x 2 ty; unpadded,
   * rows 4 tx + k, 128 bytes apart, one word for the two columns: 16
   * wavefronts, 16 reads a warp: 2048; 8-byte stores, half-warps of one
   * row (128 bytes): 2 each, 4 a warp: 64 */
  point(&p, 64, 4, 4, 0, 0, "none", 1);
  CHECK_BLOCK(&p, "fp16", 64 + 2048, 128, 32);
}

static void test_model_int8(void)
{
  tn_params p;
  /* tile 64 (64-byte rows, 16 words), 4 rows a thread, vec 8: 8 x 16
   * threads, 4 warps of 8 tx x 4 ty.  8-byte row stores: a half-warp
   * writes two adjacent rows, 128 bytes: 2 wavefronts, 4 a warp: 32.
   * Column reads: rows 8 tx + k of 4 columns (one word), word 16 row:
   * every row on bank 16 (k % 2): 8 wavefronts, 32 reads a warp: 1024 */
  point(&p, 64, 4, 8, 0, 0, "none", 1);
  CHECK_BLOCK(&p, "int8", 32 + 1024, 128, 16);
  /* pack 4: 8 reads a warp, four columns in one word, still 8-way */
  point(&p, 64, 4, 8, 0, 0, "none", 4);
  CHECK_BLOCK(&p, "int8", 32 + 256, 32, 16);
  /* xor of words with the 128-byte line (Swizzle<4, 2, 5>): row c on
   * bank 16 (c % 2) + (word ^ (c / 2) % 16): rows 8 tx + k for tx and
   * tx + 4 collide, 2-way: 256 (64 packed); the stores, 4-byte (the
   * swizzle's unit), 2 a row, fill 32 banks: 32 */
  point(&p, 64, 4, 8, 0, 0, "xor", 1);
  CHECK_BLOCK(&p, "int8", 32 + 256, 128, 32);
  point(&p, 64, 4, 8, 0, 0, "xor", 4);
  CHECK_BLOCK(&p, "int8", 32 + 64, 32, 32);
  /* a pad of one word (17 words a row): reads on bank (8 tx + 17 k) % 32,
   * 2-way (256); stores 4 bytes wide, rows 17 words apart: rows 0 and 2
   * of a warp overlap, 2-way, 8 a warp: 64 */
  point(&p, 64, 4, 8, 1, 4, "none", 1);
  CHECK_BLOCK(&p, "int8", 64 + 256, 128, 32);
  /* a pad of one byte (65-byte rows): the stores byte by byte, 8 a row;
   * byte k of rows 0 .. 3 of a warp at bytes 65 ty + 8 tx + k, banks
   * floor((65 ty + k) / 4) + 2 tx: rows 0 and 2 on one bank for k = 0,
   * 1, 4, 5, rows 1 and 3 for k = 0, 3, 4, 7, none for k = 2, 6: 6 x 2
   * + 2 x 1 = 14 a round of 8 stores (rows 16 j further are 260 j words
   * on: the same), 56 a warp, 224.  The reads: row 8 tx + k is 130 tx
   * words on (bank + 2 tx), its 4 bytes in one or two adjacent words:
   * the 8 rows on 8 or 16 distinct banks, one wavefront each: 128 */
  point(&p, 64, 4, 8, 1, 0, "none", 1);
  CHECK_BLOCK(&p, "int8", 224 + 128, 128, 128);
  /* a rectangle of 128 rows of 64 bytes, the pad of one word: 8 x 32
   * threads, 8 warps of 8 tx x 4 ty as above for the stores (16
   * wavefronts, 8 stores a warp: 128).  The reads take the transposed
   * tile's rows, 128 long: 16 tx2 x 2 ty2 a warp, rows 8 tx2 + k on bank
   * (8 tx2 + 17 k) % 32, tx2, tx2 + 4, + 8 and + 12 on one bank (the
   * two ty2 read one word): 4-way where the square's 8 tx were 2-way, 32
   * reads a warp: 1024 */
  point(&p, 64, 4, 8, 1, 4, "none", 1);
  p.v[IDX("tile_rows")].i = 128;
  CHECK_BLOCK(&p, "int8", 128 + 1024, 256, 64);
}

static void test_model_fp64(void)
{
  tn_params p;
  /* tile 32 (256-byte rows), 4 rows a thread, vec 1: 32 x 8 threads, a
   * warp is one thread row.  8-byte accesses in half-warps: a row store
   * is 2 x 128 bytes, 2 wavefronts, 4 a warp, 8 warps: 64.  Unpadded
   * column reads: 16 rows of a phase on banks 2 col, 2 col + 1: 16 words
   * a bank, 2 x 16 = 32 a read: 1024 */
  point(&p, 32, 4, 1, 0, 0, "none", 1);
  CHECK_BLOCK(&p, "fp64", 64 + 1024, 32, 32);
  /* a pad of one element (66 words): lane i on banks 2 i, 2 i + 1: 2
   * wavefronts a read: 64; xor of elements with the row within a 128-byte
   * line the same */
  point(&p, 32, 4, 1, 1, 0, "none", 1);
  CHECK_BLOCK(&p, "fp64", 64 + 64, 32, 32);
  point(&p, 32, 4, 1, 0, 0, "xor", 1);
  CHECK_BLOCK(&p, "fp64", 64 + 64, 32, 32);
  /* pack 2, unpadded: 16-byte reads of two columns, in quarter-warps of
   * 8 rows on the same 4 banks: 8 words a bank, 8 a phase, 32 a read; 2
   * reads a warp (rows_per_thread / pack): 512 */
  point(&p, 32, 4, 1, 0, 0, "none", 2);
  CHECK_BLOCK(&p, "fp64", 64 + 512, 16, 32);
}

/* The model of the whole launch of p on rows x cols of fp64. */
static tn_model_cost fp64_launch(tn_params *p, long long rows,
                                 long long cols)
{
  tn_problem prob;
  tn_model_cost c;
  char why[TN_REASON_LEN] = "";
  problem(&prob, "fp64", rows, cols);
  memset(&c, 0, sizeof(c));
  CHECK(fam->prepare(fam, p, &prob, why, sizeof(why)) == 0);
  CHECK(tn_family_model(fam, p, &prob, tn_arch_find("sm_90"), &c, why,
                        sizeof(why)) == 0);
  return c;
}

/* fp64 with vec 2 on rows no vector divides: element by element, the
 * edge tiles' 8-byte column reads partly active. */
static void test_model_fp64_edges(void)
{
  tn_params p;
  tn_model_cost c;
  /* One tile of 5 valid rows, pad 1 (33 elements a row): 4 warps of 16
   * tx x 2 ty read rows c = 2 tx + k of columns r = 2 w + ty + 8 j, where
   * c < 5.  k = 0: lanes 0-2 and 16-18 (c 0, 2, 4) on banks 2 r + 8 tx,
   * distinct: a wavefront per half-warp, 2.  k = 1: lanes 0, 1, 16, 17
   * (c 1, 3), whose lanes l ^ 2 are off, so both half-warps go in one
   * phase, on banks 2 r + 2, + 6 and 2 r + 4, + 8: 1.  16 reads of 3 a
   * warp's 4 rounds: 48 */
  point(&p, 32, 4, 2, 1, 0, "none", 1);
  c = fp64_launch(&p, 5, 32);
  CHECK_EQ_INT(c.ld_wavefronts, 48);
  CHECK_EQ_INT(c.ld_insts, 32);
  /* the whole launch at 517 x 1031, with pad 1 or xor: ncu's count on the
   * H200 (run 47, gpu_model_vs_ncu) */
  c = fp64_launch(&p, 517, 1031);
  CHECK_EQ_INT(c.ld_wavefronts, 67531);
  CHECK_EQ_INT(c.ld_insts, 17544);
  point(&p, 32, 4, 2, 0, 0, "xor", 1);
  c = fp64_launch(&p, 517, 1031);
  CHECK_EQ_INT(c.ld_wavefronts, 67531);
}

/* The copy engine's fp16 tile (tile 64, 128-byte swizzle): the threads
 * read columns of 16-byte chunks xor-ed with the row's low 3 bits, rows
 * 8 tx + k of one chunk column: all 8 rows' chunks on one bank group,
 * 8-way, as unswizzled; storing by TMA adds one 16-byte store a row into
 * the transposed tile (4 wavefronts each). */
static void test_model_tma(void)
{
  tn_params p;
  tma_point(&p, 64, 4, 8, "sw128", 0, 0, 1);
  CHECK_BLOCK(&p, "fp16", 1024, 128, 0);
  tma_point(&p, 64, 4, 8, "sw128", 1, 0, 1);
  CHECK_BLOCK(&p, "fp16", 1024 + 64, 128, 16);
  tma_point(&p, 64, 4, 8, "sw128", 1, 0, 2);
  CHECK_BLOCK(&p, "fp16", 512 + 64, 64, 16);
  /* fp64, 32 x 32 under the 128-byte swizzle (boxes of 32 x 16), vec 2:
   * 16 x 8 threads, 4 warps of 16 tx x 2 ty.  A half-warp reads rows
   * 2 tx + k of one column: chunk (col / 2) ^ (row % 8) takes 4 values
   * for the 16 rows, 2 words each: 8 banks, 4 rows a bank: 4 wavefronts,
   * 8 a read, 8 reads a warp: 256 */
  tma_point(&p, 32, 4, 2, "sw128", 0, 0, 1);
  CHECK_BLOCK(&p, "fp64", 256, 32, 0);
}

static void test_buffers(void)
{
  static const struct {
    const char *elem;
    tn_elem_type t;
    int bytes;
    tn_init_kind init;
  } w[] = {
      {"fp32", TN_ELEM_F32, 4, TN_INIT_SEEDED},
      {"fp16", TN_ELEM_F16, 2, TN_INIT_SEEDED},
      {"bf16", TN_ELEM_BF16, 2, TN_INIT_SEEDED},
      {"fp8", TN_ELEM_U8, 1, TN_INIT_UNIFORM},
      {"int8", TN_ELEM_I8, 1, TN_INIT_UNIFORM},
      {"fp64", TN_ELEM_F64, 8, TN_INIT_UNIFORM},
  };
  size_t i;
  for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
    tn_problem prob;
    tn_buffer_desc d[TN_MAX_BUFFERS];
    tn_tmap_desc maps[TN_MAX_TMAPS];
    tn_params p;
    tn_launch l;
    problem(&prob, w[i].elem, 5000, 3008);
    memset(d, 0, sizeof(d));
    CHECK_EQ_INT(fam->buffers(fam, &prob, d), 2);
    CHECK_EQ_INT(d[0].bytes, 5000LL * 3008 * w[i].bytes);
    CHECK_EQ_INT(d[1].bytes, d[0].bytes);
    CHECK_EQ_INT(d[0].elem, w[i].t);
    CHECK_EQ_INT(d[1].elem, w[i].t);
    CHECK_EQ_INT(d[0].init.kind, w[i].init);
    CHECK(fam->work(fam, &prob) == 2.0 * 5000 * 3008 * w[i].bytes);
    /* the copy engine's maps: the type, rows in bytes */
    tma_point(&p, 64, 4, 16 / w[i].bytes < 16 ? 16 / w[i].bytes : 8,
              "none", 1, 0, 1);
    memset(maps, 0, sizeof(maps));
    CHECK_EQ_INT(fam->tensor_maps(fam, &p, &prob, maps), 2);
    CHECK_EQ_INT(maps[0].elem, w[i].t);
    CHECK_EQ_INT(maps[0].strides[0], 3008LL * w[i].bytes);
    CHECK_EQ_INT(maps[1].strides[0], 5000LL * w[i].bytes);
    /* shared memory: the tile's bytes */
    point(&p, 32, 4, 1, 1, 0, "none", 1);
    fam->launch(fam, &p, &prob, &l);
    CHECK_EQ_INT(l.smem_dynamic, 32 * 33 * w[i].bytes);
  }
  /* fp8 and int8 inputs take every byte, fp64 a 53-bit mantissa */
  {
    tn_problem prob;
    tn_buffer_desc d[TN_MAX_BUFFERS];
    problem(&prob, "int8", 64, 64);
    memset(d, 0, sizeof(d));
    fam->buffers(fam, &prob, d);
    CHECK(d[0].init.a == -128 && d[0].init.b == 127);
    problem(&prob, "fp8", 64, 64);
    memset(d, 0, sizeof(d));
    fam->buffers(fam, &prob, d);
    CHECK(d[0].init.a == 0 && d[0].init.b == 255);
  }
}

/* The host check of a rows x cols transpose of elem: right, then with
 * one byte of one element changed (each byte of the element in turn). */
static void check_verify(const char *elem, const char *first_text)
{
  const long long rows = 7, cols = 5;
  tn_problem prob;
  tn_buffer_desc d[TN_MAX_BUFFERS];
  tn_verify_env env;
  unsigned char *in, *out;
  char why[512];
  long long r, c;
  int eb, b;

  problem(&prob, elem, rows, cols);
  memset(d, 0, sizeof(d));
  fam->buffers(fam, &prob, d);
  eb = tn_elem_bytes(d[0].elem);
  in = malloc(d[0].bytes);
  out = malloc(d[1].bytes + 16);
  if (in == NULL || out == NULL) {
    CHECK(0);
    free(in);
    free(out);
    return;
  }
  for (r = 0; r < (long long)d[0].bytes; r++)
    in[r] = (unsigned char)(37 * r + 11);
  for (r = 0; r < rows; r++)
    for (c = 0; c < cols; c++)
      memcpy(out + (c * rows + r) * eb, in + (r * cols + c) * eb,
             (size_t)eb);
  memset(out + d[1].bytes, 0xee, 16); /* past the end: never compared */
  tn_test_verify_env(&env, fam, &prob, d, in, out);
  CHECK_EQ_INT(fam->verify(&env, why, sizeof(why)), 0);
  /* element (r, c) = (3, 2) is out[2][3]: every byte of it counts */
  for (b = 0; b < eb; b++) {
    unsigned char *x = out + (2 * rows + 3) * eb + b;
    *x ^= 0x40;
    CHECK_EQ_INT(fam->verify(&env, why, sizeof(why)), 1);
    CHECK(strstr(why, "1 of 35 elements differ; first out[2][3]") != NULL);
    *x ^= 0x40;
  }
  /* the text of the first, as the width shows it */
  out[(2 * rows + 3) * eb] ^= 0x01;
  fam->verify(&env, why, sizeof(why));
  if (strstr(why, first_text) == NULL) {
    fprintf(stderr, "%s: expected \"%s\" in \"%s\"\n", elem, first_text,
            why);
    tn_test_failures++;
  }
  free(in);
  free(out);
}

static void test_verify(void)
{
  /* element (3, 2) of the input is index 17: bytes 37 i + 11 */
  /* int8, fp8: byte 17, 37 * 17 + 11 = 640 = 0x280; its low bit flipped */
  check_verify("int8", "= 0x81, expected 0x80");
  check_verify("fp8", "= 0x81, expected 0x80");
  /* fp16: bytes 34, 35 are 0xf5, 0x1a: 0x1af5 = 2^-9 (1 + 757 / 1024) */
  check_verify("fp16", "= 0.00339508, expected 0.00339699");
  check_verify("bf16", "expected");
  check_verify("fp32", "expected");
  check_verify("fp64", "expected");
}

/* The launch of p for int8 8192^2 (the threads' path or the copy
 * engine's), and the blocks an SM of arch that it allows at 16
 * registers a thread, so that shared memory is what limits them. */
static int claim_blocks(tn_params *p, const char *arch, tn_launch *l)
{
  tn_problem prob;
  char why[TN_REASON_LEN] = "";
  problem(&prob, "int8", 8192, 8192);
  CHECK_EQ_INT(fam->prepare(fam, p, &prob, why, sizeof(why)), 0);
  fam->launch(fam, p, &prob, l);
  return tn_time_occupancy(tn_arch_find(arch), 132, l->threads, 16,
                           l->smem_static, l->smem_dynamic);
}

/* smem_claim: KiB a block claims at launch, at least; the launch pays
 * it in dynamic shared memory that the kernel leaves unused, and the
 * occupancy follows from it: on sm_90 (228 KiB an SM, 1 KiB kept a
 * block) 56 KiB leave 4 blocks, 75 KiB 3, 44 KiB 5; on sm_86 (100 KiB)
 * 56 KiB leave one.  A claim below the tile's own changes nothing. */
static void test_smem_claim(void)
{
  tn_params p;
  tn_launch l;
  int unclaimed;
  /* int8 128 x 128, 8 rows of 16 bytes a thread: 128 threads, 16 KiB */
  point(&p, 128, 8, 16, 0, 0, "xor", 4);
  unclaimed = claim_blocks(&p, "sm_90", &l);
  CHECK_EQ_INT(l.smem_dynamic, 16384);
  CHECK_EQ_INT(unclaimed, 13); /* 13 x 17 KiB of 228 */
  p.v[IDX("smem_claim")].i = 8; /* less than the tile: as it was */
  CHECK_EQ_INT(claim_blocks(&p, "sm_90", &l), unclaimed);
  CHECK_EQ_INT(l.smem_dynamic, 16384);
  p.v[IDX("smem_claim")].i = 56;
  CHECK_EQ_INT(claim_blocks(&p, "sm_90", &l), 4);
  CHECK_EQ_INT(l.smem_dynamic, 56 * 1024);
  p.v[IDX("smem_claim")].i = 75;
  CHECK_EQ_INT(claim_blocks(&p, "sm_90", &l), 3);
  p.v[IDX("smem_claim")].i = 44;
  CHECK_EQ_INT(claim_blocks(&p, "sm_90", &l), 5);
  p.v[IDX("smem_claim")].i = 56;
  CHECK_EQ_INT(claim_blocks(&p, "sm_86", &l), 1);
  /* the copy engine's tiles are static: the claim past them is dynamic */
  tma_point(&p, 64, 8, 16, "sw64", 0, 0, 4);
  p.v[IDX("smem_claim")].i = 0;
  claim_blocks(&p, "sm_90", &l);
  CHECK_EQ_INT(l.smem_dynamic, 0);
  CHECK_EQ_INT(l.smem_static, 64 * 64 + 8);
  p.v[IDX("smem_claim")].i = 56;
  CHECK_EQ_INT(claim_blocks(&p, "sm_90", &l), 4);
  CHECK_EQ_INT(l.smem_static + l.smem_dynamic, 56 * 1024);
}

int main(void)
{
  fam = tn_family_find("transpose");
  if (fam == NULL) {
    fprintf(stderr, "no transpose family\n");
    return 1;
  }
  test_option();
  test_exclusions();
  test_xor();
  test_model_fp16();
  test_model_int8();
  test_model_fp64();
  test_model_fp64_edges();
  test_model_tma();
  test_buffers();
  test_verify();
  test_smem_claim();
  TEST_DONE();
}

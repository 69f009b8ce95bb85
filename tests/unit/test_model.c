/* test_model.c -- the wavefront model against closed forms. */
#include <string.h>

#include "templates/smem_layout.h"
#include "base/arch.h"
#include "model/model.h"
#include "test_util.h"

static int gcd(int a, int b)
{
  while (b) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* The cost of one warp instruction at shared offsets addr[] (and, for
 * cp.async, global offsets gaddr[]); wavefronts -1 if the model refuses
 * it. */
static tn_access_cost access_cost(tn_op op, int width, const unsigned *addr,
                                  const unsigned *gaddr, unsigned active)
{
  tn_warp_access a;
  tn_access_cost c;
  char why[128];
  int i;
  memset(&a, 0, sizeof(a));
  a.op = op;
  a.width = width;
  a.active = active;
  for (i = 0; i < 32; i++) {
    a.addr[i] = addr[i];
    a.gaddr[i] = gaddr ? gaddr[i] : 0;
  }
  if (tn_model_access(&a, tn_arch_find("sm_90"), &c, why, sizeof(why)) != 0) {
    memset(&c, 0, sizeof(c));
    c.wavefronts = -1;
  }
  return c;
}

static tn_access_cost cost_of(tn_op op, int width, const unsigned *addr,
                              unsigned active)
{
  tn_access_cost c = access_cost(op, width, addr, NULL, active);
  if (c.wavefronts < 0)
    fprintf(stderr, "model error\n");
  return c;
}

/* A warp reading word lane * s costs gcd(s, 32) wavefronts. */
static void test_strides(void)
{
  int s, lane;
  for (s = 1; s <= 130; s++) {
    unsigned addr[32];
    tn_access_cost c;
    for (lane = 0; lane < 32; lane++)
      addr[lane] = 4u * (unsigned)(lane * s);
    c = cost_of(TN_OP_LD, 4, addr, 0xffffffffu);
    CHECK_EQ_INT(c.wavefronts, gcd(s, 32));
    CHECK_EQ_INT(c.degree, gcd(s, 32));
  }
}

/* All lanes on one word: a broadcast, one wavefront; stores too. */
static void test_broadcast(void)
{
  unsigned addr[32];
  int lane;
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 1024;
  CHECK_EQ_INT(cost_of(TN_OP_LD, 4, addr, 0xffffffffu).wavefronts, 1);
  CHECK_EQ_INT(cost_of(TN_OP_ST, 4, addr, 0xffffffffu).wavefronts, 1);
  /* pairs of lanes on the same word of a stride-2 pattern: 16 words in
   * 16 distinct banks */
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 4u * (unsigned)(lane / 2);
  CHECK_EQ_INT(cost_of(TN_OP_LD, 4, addr, 0xffffffffu).wavefronts, 1);
  /* bytes of one word are one word */
  for (lane = 0; lane < 32; lane++)
    addr[lane] = (unsigned)(lane % 4) + 4u * (unsigned)(lane / 4);
  CHECK_EQ_INT(cost_of(TN_OP_LD, 1, addr, 0xffffffffu).wavefronts, 1);
}

/* A column of a 32-wide fp32 tile through the shared layout header. */
static int column_cost(int width, int pad, int b, int m, int s, int col)
{
  unsigned addr[32];
  int lane;
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 4u * (unsigned)tn_smem_offset(lane, col, width, pad, b, m, s);
  return cost_of(TN_OP_LD, 4, addr, 0xffffffffu).wavefronts;
}

static void test_tile_columns(void)
{
  int col;
  for (col = 0; col < 32; col++) {
    CHECK_EQ_INT(column_cost(32, 0, 0, 0, 0, col), 32); /* no pad: 32-way */
    CHECK_EQ_INT(column_cost(32, 1, 0, 0, 0, col), 1);  /* pad 1 clears it */
    CHECK_EQ_INT(column_cost(32, 0, 5, 0, 5, col), 1);  /* xor swizzle too */
    CHECK_EQ_INT(column_cost(32, 2, 0, 0, 0, col), 2);  /* even pad: 2-way */
    CHECK_EQ_INT(column_cost(64, 0, 5, 0, 6, col), 1);  /* 64 wide, xor */
  }
}

/* A column of a tile of eb-byte elements, `width` wide and padded by pad
 * elements: lane i reads element (i, col), eb bytes. */
static int elem_column_cost(int eb, int width, int pad, int col)
{
  unsigned addr[32];
  int lane;
  for (lane = 0; lane < 32; lane++)
    addr[lane] = (unsigned)eb *
                 (unsigned)tn_smem_offset(lane, col, width, pad, 0, 0, 0);
  return cost_of(TN_OP_LD, eb, addr, 0xffffffffu).wavefronts;
}

/* Accesses of 1 and 2 bytes, counted by hand from the rules of the
 * design notes ("Shared memory"): the warp is one group; the cost is the most distinct 4-byte words
 * any bank must deliver, lanes on one word sharing it, loads and stores
 * alike. */
static void test_subword(void)
{
  unsigned addr[32];
  int lane, col;

  /* 32 bytes in a row: 8 words on 8 banks, one wavefront */
  for (lane = 0; lane < 32; lane++)
    addr[lane] = (unsigned)lane;
  CHECK_EQ_INT(cost_of(TN_OP_LD, 1, addr, ~0u).wavefronts, 1);
  CHECK_EQ_INT(cost_of(TN_OP_ST, 1, addr, ~0u).wavefronts, 1);
  /* 32 halves in a row: 16 words, two lanes a word, one wavefront */
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 2u * (unsigned)lane;
  CHECK_EQ_INT(cost_of(TN_OP_LD, 2, addr, ~0u).wavefronts, 1);
  CHECK_EQ_INT(cost_of(TN_OP_ST, 2, addr, ~0u).wavefronts, 1);
  /* a byte each 128 bytes apart: 32 words of bank 0 */
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 128u * (unsigned)lane;
  CHECK_EQ_INT(cost_of(TN_OP_LD, 1, addr, ~0u).wavefronts, 32);
  CHECK_EQ_INT(cost_of(TN_OP_ST, 1, addr, ~0u).degree, 32);
  /* four lanes on the 4 bytes of one word, the 8 words in bank 0: 8,
   * the four sharing their word (broadcast for loads; for stores the
   * rule is the same: one word) */
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 128u * (unsigned)(lane / 4) + (unsigned)(lane % 4);
  CHECK_EQ_INT(cost_of(TN_OP_LD, 1, addr, ~0u).wavefronts, 8);
  CHECK_EQ_INT(cost_of(TN_OP_ST, 1, addr, ~0u).wavefronts, 8);
  /* two lanes on the halves of one word, 16 words in bank 0: 16 */
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 128u * (unsigned)(lane / 2) + 2u * (unsigned)(lane % 2);
  CHECK_EQ_INT(cost_of(TN_OP_LD, 2, addr, ~0u).wavefronts, 16);
  CHECK_EQ_INT(cost_of(TN_OP_ST, 2, addr, ~0u).wavefronts, 16);
  /* all lanes on one byte: one word, one wavefront */
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 77;
  CHECK_EQ_INT(cost_of(TN_OP_LD, 1, addr, ~0u).wavefronts, 1);

  for (col = 0; col < 64; col++) {
    /* fp16, 64 wide (rows of 128 bytes = 32 words): row i's element is
     * in word 32 i + col / 2, all in one bank: 32-way.  A pad of one
     * element (130-byte rows): row 2k in word 65 k + col / 2, bank
     * k + col / 2, row 2k + 1 in word 65 k + 32 + (col + 1) / 2, bank
     * k + (col + 1) / 2 (65 = 1 mod 32): two rows a bank, 2-way.  A pad
     * of one word (33 words a row): bank (i + col / 2) % 32, one each:
     * conflict-free. */
    CHECK_EQ_INT(elem_column_cost(2, 64, 0, col), 32);
    CHECK_EQ_INT(elem_column_cost(2, 64, 1, col), 2);
    CHECK_EQ_INT(elem_column_cost(2, 64, 2, col), 1);
    /* int8, 64 wide (16 words a row): row i on bank 16 (i % 2) + col / 4,
     * the 16 rows of one parity on one bank: 16-way.  One byte of pad
     * (65-byte rows): row i in word floor((65 i + col) / 4), rows i and
     * i + 2 on one bank: 2-way.  One word of pad (17 words, odd): every
     * row on its own bank. */
    CHECK_EQ_INT(elem_column_cost(1, 64, 0, col), 16);
    CHECK_EQ_INT(elem_column_cost(1, 64, 1, col), 2);
    CHECK_EQ_INT(elem_column_cost(1, 64, 4, col), 1);
    /* int8, 128 wide (32 words a row): all rows on bank col / 4: 32 */
    CHECK_EQ_INT(elem_column_cost(1, 128, 0, col), 32);
  }
  for (col = 0; col < 32; col++) {
    /* fp64, 32 wide (64 words a row), half-warps: the 16 rows of a
     * phase on banks 0 and 1 of their row, 16 words a bank: 16 each,
     * 32 in all; a pad of one element (66 words): lane i on banks 2 i,
     * 2 i + 1 (mod 32), 16 lanes on 32 banks: 1 each, 2 in all */
    CHECK_EQ_INT(elem_column_cost(8, 32, 0, col), 32);
    CHECK_EQ_INT(elem_column_cost(8, 32, 1, col), 2);
  }
}

/* Inactive lanes cost nothing; a warp with none costs no wavefront. */
static void test_masks(void)
{
  unsigned addr[32];
  int lane;
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 4u * 32u * (unsigned)lane; /* all in bank 0 */
  CHECK_EQ_INT(cost_of(TN_OP_LD, 4, addr, 0xffffffffu).wavefronts, 32);
  CHECK_EQ_INT(cost_of(TN_OP_LD, 4, addr, 0x0000ffffu).wavefronts, 16);
  CHECK_EQ_INT(cost_of(TN_OP_LD, 4, addr, 0x1u).wavefronts, 1);
  CHECK_EQ_INT(cost_of(TN_OP_LD, 4, addr, 0x0u).wavefronts, 0);
}

/* 8- and 16-byte loads: phases merge two by two when every lane l and
 * l ^ 1 share an address (or one is inactive), or every l and l ^ 2 do;
 * stores never merge. */
static void test_wide_merge(void)
{
  unsigned addr[32];
  int lane;
  /* 16 chunks of 16 bytes, lanes l and l ^ 1 (then l ^ 2) on one: a
   * half-warp's 8 chunks fill the 32 banks once */
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 16u * (unsigned)(lane >> 1);
  CHECK_EQ_INT(cost_of(TN_OP_LD, 16, addr, ~0u).wavefronts, 2);
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 16u * (unsigned)((lane >> 2) * 2 + (lane & 1));
  CHECK_EQ_INT(cost_of(TN_OP_LD, 16, addr, ~0u).wavefronts, 2);
  CHECK_EQ_INT(cost_of(TN_OP_ST, 16, addr, ~0u).wavefronts, 4);
  /* ... but not l ^ 3: four quarter-warps */
  for (lane = 0; lane < 32; lane++)
    addr[lane] = 16u * (unsigned)((lane >> 2) * 2 + ((lane ^ lane >> 1) & 1));
  CHECK_EQ_INT(cost_of(TN_OP_LD, 16, addr, ~0u).wavefronts, 4);
  /* lanes 0, 1, 16, 17 on distinct words of distinct banks (an fp64
   * transpose's edge): their l ^ 2 partners are off, so one wavefront,
   * not one a half-warp; with lane 2 on as well, two */
  memset(addr, 0, sizeof(addr));
  addr[0] = 0;
  addr[1] = 8;
  addr[2] = 32;
  addr[16] = 16;
  addr[17] = 24;
  CHECK_EQ_INT(cost_of(TN_OP_LD, 8, addr, 0x00030003u).wavefronts, 1);
  CHECK_EQ_INT(cost_of(TN_OP_LD, 8, addr, 0x00030007u).wavefronts, 2);
}

/* The swizzle is a permutation of each tile, so no two elements share an
 * address, with or without padding. */
static void test_layout_bijective(void)
{
  static const int sw[][3] = {{0, 0, 0}, {5, 0, 5}, {3, 2, 3}, {2, 2, 3},
                              {1, 2, 3}, {4, 0, 6}};
  int k, w, pad;
  for (k = 0; k < 6; k++)
    for (w = 32; w <= 64; w *= 2)
      for (pad = 0; pad <= 2; pad++) {
        static unsigned char seen[64 * 66];
        int r, c, dup = 0;
        memset(seen, 0, sizeof(seen));
        for (r = 0; r < w; r++)
          for (c = 0; c < w; c++) {
            int off = tn_smem_offset(r, c, w, pad, sw[k][0], sw[k][1],
                                     sw[k][2]);
            if (off < 0 || off >= tn_smem_elems(w, w, pad) || seen[off]++)
              dup++;
          }
        CHECK_EQ_INT(dup, 0);
      }
}

/* A warp-wide cp.async of shared offsets s[] from global offsets g[]. */
static int cp_async_cost(tn_op op, int width, const unsigned *s,
                         const unsigned *g, unsigned active)
{
  return access_cost(op, width, s, g, active).wavefronts;
}

/* cp.async.ca: per store phase, the most lanes in one bank on either side
 * (global offset within its line, shared offset); none share. */
static void test_cp_async_ca(void)
{
  unsigned s[32], g[32];
  int lane, k;
  for (k = 1; k <= 8; k *= 2) {
    for (lane = 0; lane < 32; lane++) {
      s[lane] = 16u * (unsigned)(lane * k);  /* k-way on the shared side */
      g[lane] = 16u * (unsigned)lane;
    }
    CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CA, 16, s, g, ~0u), 4 * k);
    /* the same conflict on the global side only */
    CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CA, 16, g, s, ~0u), 4 * k);
  }
  /* 4 bytes from one global address: 32 lanes in one bank, no broadcast */
  for (lane = 0; lane < 32; lane++) {
    s[lane] = 4u * (unsigned)lane;
    g[lane] = 0;
  }
  CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CA, 4, s, g, ~0u), 32);
  /* both sides 2-way: the larger side counts, not the sum */
  for (lane = 0; lane < 32; lane++) {
    s[lane] = 32u * (unsigned)lane % 4096u;
    g[lane] = 32u * (unsigned)lane;
  }
  CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CA, 16, s, g, ~0u), 8);
  /* half the lanes: two of the four phases */
  for (lane = 0; lane < 32; lane++)
    s[lane] = g[lane] = 16u * (unsigned)lane;
  CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CA, 16, s, g, 0xffffu), 2);
}

/* cp.async.cg: by (global line, shared row), lanes in order, one XOR or
 * sector rotation of the chunk index a wavefront, odd rotations 2. */
static void test_cp_async_cg(void)
{
  unsigned s[32], g[32];
  int lane, c;
  for (lane = 0; lane < 32; lane++)
    s[lane] = g[lane] = 16u * (unsigned)lane;
  CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CG, 16, s, g, ~0u), 4);
  /* inactive lanes: counted as nothing (measured) */
  CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CG, 16, s, g, 0xffffu), 0);
  /* each row XOR-swizzled by its row number: still one per line */
  for (c = 0; c < 8; c++) {
    for (lane = 0; lane < 32; lane++)
      s[lane] = 128u * (unsigned)(lane / 8) +
                16u * (unsigned)((lane % 8) ^ ((lane / 8 + c) % 8));
    CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CG, 16, s, g, ~0u), 4);
  }
  /* rotations within the row: by sectors 1, by an odd chunk count 2 */
  for (c = 1; c < 8; c++) {
    for (lane = 0; lane < 32; lane++)
      s[lane] = 128u * (unsigned)(lane / 8) +
                16u * (unsigned)((lane % 8 + c) % 8);
    CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CG, 16, s, g, ~0u),
                 c % 2 ? 8 : 4);
  }
  /* every lane from one global address: a wavefront each */
  for (lane = 0; lane < 32; lane++) {
    s[lane] = 16u * (unsigned)lane;
    g[lane] = 0;
  }
  CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CG, 16, s, g, ~0u), 32);
  /* every lane to one shared address: only the last copy lands */
  for (lane = 0; lane < 32; lane++) {
    s[lane] = 0;
    g[lane] = 16u * (unsigned)lane;
  }
  CHECK_EQ_INT(cp_async_cost(TN_OP_CP_ASYNC_CG, 16, s, g, ~0u), 1);
  /* 8-byte copies are .ca only */
  CHECK(cp_async_cost(TN_OP_CP_ASYNC_CG, 8, s, g, ~0u) < 0);
}

/* A launch's totals keep cp.async's part of the stores apart (what Nsight
 * Compute counts as LDGSTS), and only that part. */
static void test_async_split(void)
{
  tn_model_cost total;
  tn_warp_access a;
  char why[128];
  int lane;
  memset(&total, 0, sizeof(total));
  memset(&a, 0, sizeof(a));
  a.width = 16;
  a.active = ~0u;
  for (lane = 0; lane < 32; lane++)
    a.addr[lane] = a.gaddr[lane] = 16u * (unsigned)lane;
  a.op = TN_OP_CP_ASYNC_CG; /* 4 wavefronts, 3 times */
  CHECK(tn_model_accumulate(&total, &a, 3, tn_arch_find("sm_90"), why,
                            sizeof(why)) == 0);
  a.op = TN_OP_ST; /* 4 wavefronts, 5 times */
  CHECK(tn_model_accumulate(&total, &a, 5, tn_arch_find("sm_90"), why,
                            sizeof(why)) == 0);
  a.op = TN_OP_LD;
  CHECK(tn_model_accumulate(&total, &a, 2, tn_arch_find("sm_90"), why,
                            sizeof(why)) == 0);
  CHECK_EQ_INT(total.st_wavefronts, 32);
  CHECK_EQ_INT(total.st_insts, 8);
  CHECK_EQ_INT(total.async_wavefronts, 12);
  CHECK_EQ_INT(total.async_insts, 3);
  CHECK_EQ_INT(total.ld_wavefronts, 8);
}

/* Malformed accesses are refused, not priced. */
static void test_errors(void)
{
  tn_warp_access a;
  tn_access_cost c;
  char why[128];
  memset(&a, 0, sizeof(a));
  a.op = TN_OP_LD;
  a.width = 8;
  a.active = 1;
  a.addr[0] = 4; /* not 8-byte aligned */
  CHECK(tn_model_access(&a, NULL, &c, why, sizeof(why)) != 0);
  a.width = 3;
  a.addr[0] = 0;
  CHECK(tn_model_access(&a, NULL, &c, why, sizeof(why)) != 0);
  a.op = TN_OP_LDMATRIX;
  a.width = 16;
  a.matrices = 3;
  CHECK(tn_model_access(&a, NULL, &c, why, sizeof(why)) != 0);
}

int main(void)
{
  test_strides();
  test_broadcast();
  test_tile_columns();
  test_subword();
  test_masks();
  test_wide_merge();
  test_layout_bijective();
  test_errors();
  test_cp_async_ca();
  test_cp_async_cg();
  test_async_split();
  TEST_DONE();
}

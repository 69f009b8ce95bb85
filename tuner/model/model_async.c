/* model_async.c -- shared-memory wavefronts of cp.async (LDGSTS).
 *
 * Both rules were measured on an H200 with Nsight Compute, one copy at a
 * time (scripts/smem_probe/patterns.py, sets ldgsts, ldgsts-map and
 * ldgsts-gemm; results/model-validation/measured-ldgsts.tsv), as the
 * SASS-level count
 * smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.  Inside a
 * kernel with many copies in flight the same counter also depends on when
 * the data arrives (copies of one shape counted differently), which no rule
 * of addresses can follow; see that folder's README.
 *
 * cp.async.ca (through L1): the lanes are served in the phases of a store
 * of the same width (8 lanes for 16 bytes, 16 for 8, 32 for 4).  A phase
 * takes as many wavefronts as the most lanes that meet in one bank on
 * either side: the bank of the global offset within its 128-byte line
 * (where L1 holds it) or the bank of the shared offset.  Lanes count
 * separately even on one address: nothing is broadcast or merged.
 *
 * cp.async.cg (bypassing L1), 16 bytes a lane: the data arrives by global
 * 128-byte line and is written row by row of 128 shared bytes.  A wavefront
 * writes the chunks (16 bytes) of one line into one shared row through a
 * network that can apply, to the 3-bit chunk index, any XOR or a rotation;
 * a rotation by an odd number of chunks costs two wavefronts, by an even
 * number (whole 32-byte sectors) one.  The lanes of each (line, row) pair
 * are taken in lane order, and a lane joins the current wavefront while one
 * transform still fits all of them.  Lanes writing the same shared address
 * keep only the last one (the value that lands).  This fits every
 * structured map measured (XORs, rotations, row shifts, pads, swizzles,
 * strides), not random permutations of a line's chunks (1 to 3 off).  A
 * copy with inactive lanes is counted as no wavefront at all: that is what
 * the counter says on the H200 (all 6 such rows of the table), though the
 * copy surely moves data; the templates never predicate part of a warp's
 * copy. */
#include "model/model_async.h"

#include <stdio.h>
#include <string.h>

#define BANKS 32
#define LINE 128     /* bytes of a global line and of a shared row */
#define CHUNK 16     /* bytes a cp.async.cg lane copies */
#define XOR_BITS 0x00ffu   /* transform bits 0-7: chunk ^ c */
#define EVEN_ROTS 0x5500u  /* bits 8 + r, r even: rotations by sectors */

static int check(const tn_warp_access *a, char *why, size_t why_len)
{
  int lane, w = a->width;
  int ok = a->op == TN_OP_CP_ASYNC_CG ? w == 16 : (w == 4 || w == 8 ||
                                                   w == 16);
  if (!ok) {
    snprintf(why, why_len, "cp.async.%s copies %s bytes, not %d",
             a->op == TN_OP_CP_ASYNC_CG ? "cg" : "ca",
             a->op == TN_OP_CP_ASYNC_CG ? "16" : "4, 8 or 16", w);
    return -1;
  }
  for (lane = 0; lane < 32; lane++) {
    if (!(a->active & (1u << lane)))
      continue;
    if (a->addr[lane] % (uint32_t)w || a->gaddr[lane] % (uint32_t)w) {
      snprintf(why, why_len,
               "lane %d: shared %u or global %u is not aligned to %d", lane,
               a->addr[lane], a->gaddr[lane], w);
      return -1;
    }
  }
  return 0;
}

/* The most lanes of [first, first + n) meeting in one bank, the banks of a
 * lane being those of its words at offs[lane]. */
static int lanes_per_bank(const uint32_t *offs, uint32_t active, int first,
                          int n, int words, uint32_t *busiest)
{
  int count[BANKS] = {0}, lane, k, worst = 0;
  for (lane = first; lane < first + n; lane++) {
    if (!(active & (1u << lane)))
      continue;
    for (k = 0; k < words; k++) {
      int b = (int)((offs[lane] / 4 + (uint32_t)k) % BANKS);
      if (++count[b] > worst)
        worst = count[b];
    }
  }
  *busiest = 0;
  for (k = 0; k < BANKS; k++)
    if (worst > 0 && count[k] == worst)
      *busiest |= 1u << k;
  return worst;
}

static void cost_ca(const tn_warp_access *a, tn_access_cost *cost)
{
  int per = a->width == 16 ? 8 : a->width == 8 ? 16 : 32;
  int words = a->width / 4, first;
  for (first = 0; first < 32; first += per) {
    uint32_t rb, wb, span = (per == 32 ? 0xffffffffu
                                       : ((1u << per) - 1u) << first);
    int r, w, c;
    if (!(a->active & span))
      continue;
    r = lanes_per_bank(a->gaddr, a->active, first, per, words, &rb);
    w = lanes_per_bank(a->addr, a->active, first, per, words, &wb);
    c = r > w ? r : w;
    cost->phases++;
    cost->wavefronts += c;
    if (c > cost->degree) {
      cost->degree = c;
      cost->busiest = 0;
    }
    if (c == cost->degree)
      cost->busiest |= (r == c ? rb : 0) | (w == c ? wb : 0);
  }
}

/* The transforms (bit c: XOR c, bit 8 + r: rotation by r) taking chunk j
 * of a line to chunk p of a row. */
static unsigned transforms(unsigned j, unsigned p)
{
  unsigned t = 1u << (j ^ p);
  return t | 1u << (8 + ((p - j) & 7u));
}

static void cost_cg(const tn_warp_access *a, tn_access_cost *cost)
{
  int keep[32], lane, other, i;
  int done[32] = {0};

  if (a->active != 0xffffffffu)
    return; /* counted as nothing: see the comment at the top */
  /* the last lane writing each shared address is the one that counts */
  for (lane = 0; lane < 32; lane++) {
    keep[lane] = 1;
    for (other = lane + 1; other < 32; other++)
      if (a->addr[other] == a->addr[lane])
        keep[lane] = 0;
  }
  /* each (line, row) pair in order of its first lane */
  for (lane = 0; lane < 32; lane++) {
    uint32_t line, row;
    unsigned cur = 0;
    int part = 0;
    if (!keep[lane] || done[lane])
      continue;
    line = a->gaddr[lane] / LINE;
    row = a->addr[lane] / LINE;
    for (i = lane; i < 32; i++) {
      unsigned t;
      if (!keep[i] || a->gaddr[i] / LINE != line || a->addr[i] / LINE != row)
        continue;
      done[i] = 1;
      t = transforms(a->gaddr[i] / CHUNK % 8, a->addr[i] / CHUNK % 8);
      if (cur & t) {
        cur &= t;
        continue;
      }
      if (cur)
        part += cur & (XOR_BITS | EVEN_ROTS) ? 1 : 2;
      cur = t;
    }
    part += cur & (XOR_BITS | EVEN_ROTS) ? 1 : 2;
    cost->phases++;
    cost->wavefronts += part;
    if (part > cost->degree)
      cost->degree = part;
  }
}

int tn_model_cp_async(const tn_warp_access *a, tn_access_cost *cost,
                      char *why, size_t why_len)
{
  memset(cost, 0, sizeof(*cost));
  if (check(a, why, why_len) != 0)
    return -1;
  if (a->op == TN_OP_CP_ASYNC_CA)
    cost_ca(a, cost);
  else
    cost_cg(a, cost);
  return 0;
}

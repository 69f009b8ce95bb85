/* model.c -- shared-memory wavefronts of warp accesses.
 *
 * The rule, per instruction: the active lanes are split into phases; a
 * phase is served in as many wavefronts as the most distinct 4-byte words
 * any one bank must deliver (lanes asking for the same word share it, for
 * loads by broadcast and for stores because one lane's value lands).
 *
 *   width <= 4   one phase of 32 lanes
 *   width 8      two phases of 16 lanes (half-warps)
 *   width 16     four phases of 8 lanes (quarter-warps)
 *   (ld|st)matrix .xN   N phases, matrix i from the 16-byte row addresses
 *                       of lanes 8i .. 8i+7
 *
 * Loads of 8 and 16 bytes merge phases two by two (0 with 1, 2 with 3)
 * when the whole warp is "paired": every lane l and lane l ^ 1 ask for
 * the same address or one of them is inactive, or else every lane l and
 * lane l ^ 2 do (the condition NVIDIA gives for packing two lanes' data
 * into one returned register; a partly active warp meets it with no two
 * lanes on one address, as the fp64 transpose's edge tiles do).  Stores
 * never merge.
 * These phase rules were measured on an H200 with Nsight Compute, pattern
 * by pattern (tests/fixtures/model-validation/), where the
 * programming guide's half- and quarter-warps alone were wrong for loads
 * with pairs of lanes on one address.  An empty phase costs nothing.
 * cp.async, which also depends on the global side, is in model_async.c.
 */
#include "model/model.h"

#include <stdio.h>
#include <string.h>

#include "model/model_async.h"

#define MAX_WORDS 128 /* 32 lanes x 4 words of 16 bytes */

int tn_model_phases(tn_op op, int width)
{
  if (op == TN_OP_LDMATRIX || op == TN_OP_STMATRIX ||
      op == TN_OP_CP_ASYNC_CG)
    return 0;
  return width == 16 ? 4 : width == 8 ? 2 : 1;
}

/* 1 if every active lane l whose partner l ^ mate is active asks for the
 * partner's address (mate a power of two). */
static int lanes_paired(const tn_warp_access *a, uint32_t active, int mate)
{
  int l;
  for (l = 0; l < 32; l++) {
    uint32_t both;
    if (l & mate)
      continue; /* each pair once */
    both = (1u << l) | (1u << (l ^ mate));
    if ((active & both) == both && a->addr[l] != a->addr[l ^ mate])
      return 0;
  }
  return 1;
}

/* Wavefronts of one phase: words[] are the 4-byte word indices it asks
 * for.  Sets *degree and the busiest banks.  Each bank keeps a list of
 * the distinct words asked of it, so a word is compared only with those
 * of its own bank (a space prices millions of phases). */
static int phase_cost(const uint32_t *words, int n, int banks, int *degree,
                      uint32_t *busiest)
{
  int head[64], next[MAX_WORDS], per_bank[64];
  int i, j, worst = 0;

  if (banks < 1 || banks > 64)
    banks = 32;
  for (j = 0; j < banks; j++) {
    head[j] = -1;
    per_bank[j] = 0;
  }
  for (i = 0; i < n; i++) {
    /* every architecture has 32 banks: a mask, not a division */
    int b = (banks & (banks - 1)) == 0
                ? (int)(words[i] & (uint32_t)(banks - 1))
                : (int)(words[i] % (uint32_t)banks);
    for (j = head[b]; j >= 0; j = next[j])
      if (words[j] == words[i])
        break;
    if (j >= 0)
      continue; /* the same word: served once */
    next[i] = head[b];
    head[b] = i;
    if (++per_bank[b] > worst)
      worst = per_bank[b];
  }
  *busiest = 0;
  for (j = 0; j < banks && j < 32; j++)
    if (worst > 0 && per_bank[j] == worst)
      *busiest |= 1u << j;
  *degree = worst;
  return worst;
}

int tn_model_access(const tn_warp_access *a, const tn_arch *arch,
                    tn_access_cost *cost, char *why, size_t why_len)
{
  int lanes_per_phase, phases, p, words_per_lane, merge;
  int banks = arch ? arch->banks : 32;
  uint32_t active = a->active;

  memset(cost, 0, sizeof(*cost));
  if (a->op == TN_OP_CP_ASYNC_CA || a->op == TN_OP_CP_ASYNC_CG)
    return tn_model_cp_async(a, cost, why, why_len);
  if (a->op == TN_OP_LDMATRIX || a->op == TN_OP_STMATRIX) {
    if (a->matrices != 1 && a->matrices != 2 && a->matrices != 4) {
      snprintf(why, why_len, "matrix count %d (need 1, 2 or 4)",
               a->matrices);
      return -1;
    }
    if (a->width != 16) {
      snprintf(why, why_len, "ldmatrix/stmatrix rows are 16 bytes, not %d",
               a->width);
      return -1;
    }
    phases = a->matrices;
    lanes_per_phase = 8;
    /* Only the lanes that supply row addresses matter; the instruction is
     * warp-wide, so the mask cannot switch them off. */
    active = a->matrices == 4 ? 0xffffffffu
                              : ((1u << (8 * a->matrices)) - 1u);
  } else {
    switch (a->width) {
    case 1:
    case 2:
    case 4:
    case 8:
    case 16:
      break;
    default:
      snprintf(why, why_len, "access width %d (need 1, 2, 4, 8 or 16)",
               a->width);
      return -1;
    }
    phases = tn_model_phases(a->op, a->width);
    lanes_per_phase = 32 / phases;
  }
  words_per_lane = a->width > 4 ? a->width / 4 : 1;

  /* a paired warp is served in half as many phases (measured) */
  merge = a->op == TN_OP_LD && a->width > 4 &&
          (lanes_paired(a, active, 1) || lanes_paired(a, active, 2));
  for (p = 0; p < phases; p++) {
    uint32_t words[MAX_WORDS];
    int n = 0, lane, deg, first = p * lanes_per_phase;
    int count = lanes_per_phase;
    uint32_t busy;
    if (merge) {
      count = 2 * lanes_per_phase; /* two paired phases served as one */
      p++;
    }
    for (lane = first; lane < first + count; lane++) {
      int k;
      if (!(active & (1u << lane)))
        continue;
      if ((a->addr[lane] & (uint32_t)(a->width - 1)) != 0) { /* 2^k */
        snprintf(why, why_len, "lane %d: address %u is not aligned to %d",
                 lane, a->addr[lane], a->width);
        return -1;
      }
      for (k = 0; k < words_per_lane; k++)
        words[n++] = a->addr[lane] / 4 + (uint32_t)k;
    }
    if (n == 0)
      continue;
    cost->phases++;
    cost->wavefronts += phase_cost(words, n, banks, &deg, &busy);
    if (deg > cost->degree) {
      cost->degree = deg;
      cost->busiest = busy;
    } else if (deg == cost->degree) {
      cost->busiest |= busy;
    }
  }
  return 0;
}

int tn_model_accumulate(tn_model_cost *total, const tn_warp_access *a,
                        long long times, const tn_arch *arch, char *why,
                        size_t why_len)
{
  tn_access_cost c;
  int is_load = a->op == TN_OP_LD || a->op == TN_OP_LDMATRIX;

  long long wf, ideal, *wsum, *isum;

  if (tn_model_access(a, arch, &c, why, why_len) != 0)
    return -1;
  wsum = is_load ? &total->ld_wavefronts : &total->st_wavefronts;
  isum = is_load ? &total->ld_insts : &total->st_insts;
  /* a launch too large to count is refused, not wrapped (signed overflow
   * is undefined; the families keep their launches far below this) */
  if (__builtin_mul_overflow((long long)c.wavefronts, times, &wf) ||
      __builtin_mul_overflow((long long)c.phases, times, &ideal) ||
      __builtin_add_overflow(*wsum, wf, wsum) ||
      __builtin_add_overflow(*isum, times, isum) ||
      __builtin_add_overflow(total->ideal_wavefronts, ideal,
                             &total->ideal_wavefronts)) {
    snprintf(why, why_len, "the launch has more than 2^63 wavefronts: too "
                           "large to model");
    return -1;
  }
  if ((a->op == TN_OP_CP_ASYNC_CA || a->op == TN_OP_CP_ASYNC_CG ||
       a->async_copy) &&
      (__builtin_add_overflow(total->async_wavefronts, wf,
                              &total->async_wavefronts) ||
       __builtin_add_overflow(total->async_insts, times,
                              &total->async_insts))) {
    snprintf(why, why_len, "the launch has more than 2^63 wavefronts: too "
                           "large to model");
    return -1;
  }
  if (c.degree > total->max_degree)
    total->max_degree = c.degree;
  return 0;
}

void tn_sink_access(tn_access_sink *sink, const tn_warp_access *a,
                    long long times)
{
  if (sink->failed || times <= 0)
    return;
  if (tn_model_accumulate(sink->total, a, times, sink->arch, sink->why,
                          sizeof(sink->why)) != 0)
    sink->failed = 1;
}

double tn_model_wavefronts_per_block(const tn_model_cost *c)
{
  if (c->blocks <= 0)
    return 0.0;
  return (double)(c->ld_wavefronts + c->st_wavefronts) / (double)c->blocks;
}

tn_ncu_kind tn_model_ncu_kind(const tn_warp_access *a)
{
  if (a->async_copy)
    return TN_KIND_LDGSTS;
  switch (a->op) {
  case TN_OP_LD:
    return TN_KIND_LD;
  case TN_OP_ST:
    return TN_KIND_ST;
  case TN_OP_LDMATRIX:
    return TN_KIND_LDSM;
  case TN_OP_STMATRIX:
    return TN_KIND_STSM;
  case TN_OP_CP_ASYNC_CA:
  case TN_OP_CP_ASYNC_CG:
    break;
  }
  return TN_KIND_LDGSTS;
}

const char *tn_model_ncu_kind_name(tn_ncu_kind k)
{
  static const char *const names[TN_KIND_COUNT] = {"ld", "st", "ldsm",
                                                   "stsm", "ldgsts"};
  return k >= 0 && k < TN_KIND_COUNT ? names[k] : "?";
}

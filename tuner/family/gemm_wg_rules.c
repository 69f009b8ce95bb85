/* gemm_wg_rules.c -- the wgmma GEMM family's rules: which points its
 * kernels take on a problem (each refused one with its reason), the
 * copy engine's tensor maps, whose own rules are among them, and which
 * problems no point takes (gemm_wg_shape.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "family/gemm_wg_shape.h"

/* The tensor maps: A and B (2D, innermost first: k for a K-major operand,
 * else m or n), boxes of one swizzle row by the tile's other extent (the
 * operand a cluster shares by multicast: by 1 / cluster of it); for
 * epilogue 1, C in boxes of a staged column (c_col bytes) by a consumer's
 * rows, under the swizzle of c_col bytes (the staging's layout). */
int tn_gemm_wg_tensor_maps(const tn_family *fam, const tn_params *p,
                           const tn_problem *prob, tn_tmap_desc *out)
{
  wg_geometry g;
  int i, n = 2;
  tn_gemm_wg_geometry(p, prob, &g);
  for (i = 0; i < 2; i++) {
    tn_tmap_desc *d = &out[i];
    long long mn = i ? g.n : g.m, tile = i ? g.bn : g.bm;
    int kmajor = i ? WG_TRANS_B(prob) : !WG_TRANS_A(prob);
    int parts = g.multicast == (i ? 1 : 2) ? g.cluster : 1;
    memset(d, 0, sizeof(*d));
    d->buffer = i ? WG_BUF_B : WG_BUF_A;
    d->elem = tn_gemm_wg_in_type(prob);
    d->rank = 2;
    d->dims[0] = (unsigned long long)(kmajor ? g.k : mn);
    d->dims[1] = (unsigned long long)(kmajor ? mn : g.k);
    d->strides[0] = d->dims[0] * (unsigned long long)g.in_bytes;
    d->box[0] = (unsigned)(g.swizzle / g.in_bytes);
    d->box[1] = (unsigned)((kmajor ? tile : g.bk) / parts);
    d->swizzle = g.swizzle;
    d->l2_promotion = 256;
  }
  if (g.epilogue == 1) {
    tn_tmap_desc *d = &out[n++];
    memset(d, 0, sizeof(*d));
    d->buffer = WG_BUF_C;
    d->elem = tn_gemm_wg_out_type(prob);
    d->rank = 2;
    d->dims[0] = (unsigned long long)g.n;
    d->dims[1] = (unsigned long long)g.m;
    d->strides[0] = d->dims[0] * (unsigned long long)g.out_bytes;
    d->box[0] = (unsigned)(g.c_col / g.out_bytes);
    d->box[1] = (unsigned)g.cm;
    d->swizzle = g.c_col;
  }
  return n;
}

int tn_gemm_wg_prepare(const tn_family *fam, tn_params *p,
                       const tn_problem *prob, char *why, size_t n)
{
  long long bm = p->v[WG_BM].i, bn = p->v[WG_BN].i, bk = p->v[WG_BK].i;
  long long cons = p->v[WG_CONSUMERS].i, swz = p->v[WG_SWIZZLE].i;
  long long k = prob->size.dims[2], acc, cm;
  int ping = p->v[WG_PINGPONG].i != 0;
  long long cl = p->v[WG_CLUSTER].i, mc = p->v[WG_MULTICAST].i;
  int fp8 = WG_IN_FP8(prob), eb = fp8 ? 1 : 2, kstep = fp8 ? 32 : 16;
  tn_tmap_desc maps[TN_MAX_TMAPS];
  wg_geometry g;
  int i, nm;

  if (prob->size.dims[0] > 2147483647LL - 1024 ||
      prob->size.dims[1] > 2147483647LL - 1024 || k > 2147483647LL - 1024) {
    snprintf(why, n, "dimensions beyond 2^31 - 1024 overflow int indices");
    return 1;
  }
  if ((bm != 64 && bm != 128 && bm != 256) || bn % 16 != 0) {
    snprintf(why, n, "bm must be 64, 128 or 256 (m64 slabs) and bn 64 to "
                     "256 by 16 (wgmma's n; the staging's stmatrix takes "
                     "its n8 blocks in pairs)");
    return 1;
  }
  if (!tn_is_pow2(bk) || bk < kstep) {
    snprintf(why, n, "bk must be a power of two of %d or more (k%d steps)",
             kstep, kstep);
    return 1;
  }
  if (fp8 && (WG_TRANS_A(prob) || !WG_TRANS_B(prob))) {
    snprintf(why, n, "fp8 operands must be K-major (trans_a false, trans_b "
                     "true): wgmma reads 8-bit types along K only");
    return 1;
  }
  if (ping && (cons != 2 || !p->v[WG_PRODUCER].i ||
               p->v[WG_PERSISTENT].i <= 0)) {
    snprintf(why, n, "pingpong takes a persistent block's tiles in turn "
                     "by two consumers fed by a producer: it needs "
                     "consumers 2, producer 1 and persistent > 0 (a count: "
                     "which tiles are padding depends on the grid)");
    return 1;
  }
  if (!ping && bm % (64 * cons) != 0) {
    snprintf(why, n, "%lld consumers cannot each take m64 slabs of a "
                     "%lld-row tile", cons, bm);
    return 1;
  }
  cm = ping ? bm : bm / cons;
  acc = (cm / 64) * (bn / 2);
  if (acc > 128) {
    snprintf(why, n, "a consumer of %lld x %lld holds %lld fp32 "
                     "accumulators per thread (more than 128 of the 255 "
                     "registers spill)", cm, bn, acc);
    return 1;
  }
  if (p->v[WG_PARTIALS].i == 2 && !WG_PROMOTE(prob)) {
    snprintf(why, n, "partials 2 is a second set of partial sums for "
                     "promotion: this problem has none (%s)",
             fp8 ? "fast_accum" : "16-bit inputs");
    return 1;
  }
  if (p->v[WG_PARTIALS].i == 2 && !p->v[WG_PRODUCER].i) {
    snprintf(why, n, "partials 2 needs a producer warpgroup (its k-loop "
                     "issues no copies)");
    return 1;
  }
  if (p->v[WG_PARTIALS].i != 2 && p->v[WG_PROMOTE_RUN].i != 4) {
    snprintf(why, n, "promote_run %lld shapes the runs of partials 2: "
                     "with partials %lld it would repeat promote_run 4's "
                     "kernel",
             p->v[WG_PROMOTE_RUN].i, p->v[WG_PARTIALS].i);
    return 1;
  }
  if (p->v[WG_PARTIALS].i == 2 && cm > 64) {
    snprintf(why, n, "partials 2 takes one m64 slab a consumer, not %lld "
                     "rows (the slabs of one take turns in a single set)",
             cm);
    return 1;
  }
  /* promotion's partial sums: a slab's (bn / 2 a thread) a set, the
   * slabs of a consumer taking turns in it; some 40 registers beside
   * them, of 255, or of the 168 that 384 threads get without setmaxnreg */
  if (WG_PROMOTE(prob)) {
    int narrow = cons == 2 && p->v[WG_PRODUCER].i && !p->v[WG_MAXNREG].i;
    long long sums = acc + p->v[WG_PARTIALS].i * (bn / 2);
    if (sums > (narrow ? 128 : 192)) {
      snprintf(why, n, "a consumer of %lld x %lld holds %lld fp32 "
                       "accumulators and %lld partial sums per thread "
                       "(promotion; more than %d of the %d registers %s "
                       "spill)",
               cm, bn, acc, sums - acc, narrow ? 128 : 192,
               narrow ? 168 : 255,
               narrow ? "384 threads have without setmaxnreg" : "a thread has");
      return 1;
    }
  }
  if (p->v[WG_C_RING].i != 0) {
    long long ring = p->v[WG_C_RING].i, cols;
    tn_gemm_wg_geometry(p, prob, &g);
    cols = g.c_subs;
    if (p->v[WG_EPILOGUE].i != 1) {
      snprintf(why, n, "c_ring %lld rings epilogue 1's staging: epilogue "
                       "is %lld", ring, p->v[WG_EPILOGUE].i);
      return 1;
    }
    if (ring >= cols || cols % ring != 0) {
      snprintf(why, n, "c_ring %lld must divide the %lld %d-byte columns "
                       "of a %lld-column tile of C and be fewer (c_ring 0 "
                       "stages them all)", ring, cols, g.c_col, bn);
      return 1;
    }
  }
  if (swz != 32 && swz != 64 && swz != 128) {
    snprintf(why, n, "swizzle must be 32, 64 or 128 bytes (the copy "
                     "engine's modes that wgmma reads)");
    return 1;
  }
  for (i = 0; i < 2; i++) {
    int kmajor = i ? WG_TRANS_B(prob) : !WG_TRANS_A(prob);
    long long rows = kmajor ? (i ? bn : bm) : bk;
    long long span = eb * (kmajor ? bk : (i ? bn : bm));
    if (span % swz != 0) {
      snprintf(why, n, "%c's tile is %lld bytes along its contiguous "
                       "dimension: not whole %lld-byte swizzle rows",
               i ? 'B' : 'A', span, swz);
      return 1;
    }
    if (rows * swz % 1024 != 0) {
      snprintf(why, n, "%c's sub-tiles of %lld rows x %lld bytes do not "
                       "keep the descriptors' 1024-byte alignment (the "
                       "swizzle's repeat, base offset 0)",
               i ? 'B' : 'A', rows, swz);
      return 1;
    }
    if (mc == (i ? 1 : 2) && cl > 1 &&
        (rows % cl != 0 || rows / cl * swz % 1024 != 0)) {
      snprintf(why, n, "multicast %lld shares %c's k-tile in %lld parts "
                       "of its sub-tiles' %lld rows x %lld bytes: each "
                       "part must keep the swizzle's 1024-byte repeat",
               mc, i ? 'B' : 'A', cl, rows, swz);
      return 1;
    }
  }
  if (cl != 1 && cl != 2 && cl != 4) {
    snprintf(why, n, "cluster must be 1, 2 or 4 blocks, not %lld", cl);
    return 1;
  }
  if (mc != 0 && cl == 1) {
    snprintf(why, n, "multicast %lld shares k-tiles among a cluster's "
                     "blocks: cluster must be 2 or 4, not 1", mc);
    return 1;
  }
  if (mc != 0 && !p->v[WG_PRODUCER].i) {
    snprintf(why, n, "multicast needs a producer warpgroup: a copy waits "
                     "for every block's consumers of the cluster, which "
                     "thread 0 between its wgmma would hold up");
    return 1;
  }
  if (p->v[WG_MAXNREG].i &&
      (!p->v[WG_PRODUCER].i || cons != 2)) {
    snprintf(why, n, "maxnreg needs a producer and two consumers: with "
                     "fewer than 384 threads each may hold 255 registers "
                     "already");
    return 1;
  }
  /* each pair of tile_order and group_m a walk of its own: no two points
   * compile the same kernel */
  if (p->v[WG_TILE_ORDER].i == 1 && p->v[WG_GROUP_M].i != 0) {
    snprintf(why, n, "tile_order 1 (the Hilbert curve) takes no groups "
                     "of rows: group_m must be 0, not %lld",
             p->v[WG_GROUP_M].i);
    return 1;
  }
  if (p->v[WG_TILE_ORDER].i == 2 && p->v[WG_GROUP_M].i == 0) {
    snprintf(why, n, "tile_order 2 (the serpentine) walks groups of "
                     "group_m rows: group_m must be more than 0");
    return 1;
  }
  if (p->v[WG_STREAM_K].i != 0 &&
      (p->v[WG_PERSISTENT].i == 0 || !p->v[WG_PRODUCER].i || ping)) {
    snprintf(why, n, "stream_k %lld splits the last wave's k-tiles among "
                     "persistent blocks whose producer walks their shares: "
                     "it needs persistent (not 0), producer 1 and pingpong "
                     "0",
             p->v[WG_STREAM_K].i);
    return 1;
  }
  if (p->v[WG_PERSISTENT].i > 0 &&
      p->v[WG_PERSISTENT].i % p->v[WG_CLUSTER].i != 0) {
    snprintf(why, n, "persistent %lld is not a whole number of clusters "
                     "of %lld", p->v[WG_PERSISTENT].i, p->v[WG_CLUSTER].i);
    return 1;
  }
  tn_gemm_wg_geometry(p, prob, &g);
  if (g.computed + 1 > 2147483647LL) {
    snprintf(why, n, "%lld tiles overflow the grid's int index",
             g.computed);
    return 1;
  }
  nm = tn_gemm_wg_tensor_maps(fam, p, prob, maps);
  for (i = 0; i < nm; i++)
    if (tn_tmap_check(&maps[i], why, n) != 0)
      return 1;
  if (g.computed * ((k + bk - 1) / bk) > (1LL << 40)) {
    snprintf(why, n, "more than 2^40 block-tile steps: too large to model");
    return 1;
  }
  return 0;
}

/* What the kernels cannot take, whatever the point (the config's
 * FILE:LINE or the results file's entry is the caller's): fp8 operands
 * not K-major, an fp8 C, and the fp8 options on 16-bit inputs. */
int tn_gemm_wg_check_problem(const tn_family *fam, const tn_problem *prob,
                             char *why, size_t n)
{
  const char *in = tn_elem_long_name(tn_gemm_wg_in_type(prob));
  if (WG_IN_FP8(prob)) {
    if (WG_TRANS_A(prob) || !WG_TRANS_B(prob)) {
      snprintf(why, n, "%s inputs must be K-major: trans_a = false (A "
                       "stored M x K) and trans_b = true (B stored N x K), "
                       "as wgmma reads 8-bit types; this problem has "
                       "trans_a = %s, trans_b = %s",
               in, WG_TRANS_A(prob) ? "true" : "false",
               WG_TRANS_B(prob) ? "true" : "false");
      return 1;
    }
    if (prob->opt[WG_OPT_OUTPUT] == 1) {
      snprintf(why, n, "output = \"input\" would make C %s: an fp8 GEMM's "
                       "C is \"f32\" or \"bf16\"", in);
      return 1;
    }
    if (prob->opt[WG_OPT_ALPHA] != 0) {
      /* the kernel multiplies alpha by the scales in fp32 */
      float f = (float)prob->opt[WG_OPT_ALPHA] *
                (float)prob->opt[WG_OPT_SCALE_A] *
                (float)prob->opt[WG_OPT_SCALE_B];
      if (!(fabsf(f) <= FLT_MAX) || fabsf(f) < FLT_MIN) {
        snprintf(why, n, "alpha * scale_a * scale_b = %g * %g * %g is "
                         "past fp32's range (%g to %g in magnitude), in "
                         "which the kernel multiplies them",
                 prob->opt[WG_OPT_ALPHA], prob->opt[WG_OPT_SCALE_A],
                 prob->opt[WG_OPT_SCALE_B], (double)FLT_MIN,
                 (double)FLT_MAX);
        return 1;
      }
    }
    return 0;
  }
  if (prob->opt[WG_OPT_OUTPUT] == 2) {
    snprintf(why, n, "output = \"bf16\" is for fp8 inputs: a %s GEMM's C "
                     "is \"f32\" or \"input\"", in);
    return 1;
  }
  if (prob->opt[WG_OPT_SCALE_A] != 1.0 || prob->opt[WG_OPT_SCALE_B] != 1.0 ||
      prob->opt[WG_OPT_FAST_ACCUM] != 0) {
    snprintf(why, n, "scale_a, scale_b and fast_accum are for fp8 inputs "
                     "(%s scales through alpha and accumulates in fp32)", in);
    return 1;
  }
  return 0;
}

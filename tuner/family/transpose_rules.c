/* transpose_rules.c -- the transpose family's rules of a point (which
 * points its kernels take, each refused one with its reason) and the copy
 * engine's tensor maps, whose own rules are among them
 * (transpose_shape.h). */
#include <stdio.h>
#include <string.h>

#include "family/transpose_shape.h"

/* The tensor maps of the copy engine's path: the input (cols inner, rows
 * outer) and, storing by TMA, the output (rows inner, cols outer), both in
 * boxes of box_rows x box_cols under the swizzle. */
int tn_transpose_tensor_maps(const tn_family *fam, const tn_params *p,
                             const tn_problem *prob, tn_tmap_desc *out)
{
  int span = tn_swizzle_tma_span(&p->v[TP_SWIZZLE].sw), i;
  unsigned long long rows, cols;
  tn_transpose_shape s;
  tn_transpose_dims m;

  (void)fam;
  if (!p->v[TP_TMA].i)
    return 0;
  tn_transpose_shape_of(p, prob, &s);
  tn_transpose_dims_of(prob, &m);
  rows = (unsigned long long)m.rows;
  cols = (unsigned long long)m.cols;
  for (i = 0; i < 1 + s.tma_store; i++) {
    tn_tmap_desc *d = &out[i];
    memset(d, 0, sizeof(*d));
    d->buffer = i; /* BUF_IN, BUF_OUT */
    d->elem = tn_transpose_elem(prob);
    d->rank = 2;
    d->dims[0] = i == 0 ? cols : rows;
    d->dims[1] = i == 0 ? rows : cols;
    d->strides[0] = d->dims[0] * (unsigned long long)s.eb;
    d->box[0] = (unsigned)s.box_cols;
    d->box[1] = (unsigned)s.box_rows;
    if (prob->size.n_dims > 2) {
      /* the batched families: the matrices one after the other, a box
       * in one of them (TN_BATCHED in the template) */
      d->rank = 3;
      d->dims[2] = (unsigned long long)m.batch;
      d->strides[1] = d->strides[0] * d->dims[1];
      d->box[2] = 1;
    }
    d->swizzle = span < 0 ? 0 : span;
    d->l2_promotion = 128;
  }
  return i;
}

/* The copy engine's path's rules, each failing one with its reason. */
static int prepare_tma(const tn_family *fam, tn_params *p,
                       const tn_problem *prob, char *why, size_t n)
{
  tn_tmap_desc maps[TN_MAX_TMAPS];
  tn_swizzle *sw = &p->v[TP_SWIZZLE].sw;
  int span = tn_swizzle_tma_span(sw), nm, i;
  long long box_bytes, period, tile_bytes;
  tn_transpose_shape s;
  tn_transpose_dims m;
  char name[64];

  tn_transpose_shape_of(p, prob, &s);
  tn_transpose_dims_of(prob, &m);
  if (m.batch > 2147483647LL) {
    snprintf(why, n, "a batch of %lld matrices: the copy engine's "
                     "coordinates are 32-bit signed (at most 2^31 - 1)",
             m.batch);
    return 1;
  }
  if (span < 0) {
    snprintf(why, n, "the copy engine swizzles as none, sw32, sw64 or "
                     "sw128, not %s", tn_swizzle_name(sw, name, sizeof(name)));
    return 1;
  }
  if (p->v[TP_PAD].i != 0) {
    snprintf(why, n, "pad %lld: the copy engine writes dense boxes (pad 0 "
                     "with tma = 1)", p->v[TP_PAD].i);
    return 1;
  }
  tile_bytes = (long long)s.eb * s.tile * s.tile;
  if (tile_bytes % 1024 != 0) {
    snprintf(why, n, "tile %d: the copy engine's tiles start on 1024 bytes, "
                     "and a tile of %d-byte elements must be a multiple of "
                     "them (%lld bytes)",
             s.tile, s.eb, tile_bytes);
    return 1;
  }
  if (s.tile % s.box_rows != 0 || s.tile % s.box_cols != 0) {
    snprintf(why, n, "a box of %d x %d does not divide the %dx%d tile",
             s.box_rows, s.box_cols, s.tile, s.tile);
    return 1;
  }
  if (span > 0 && s.box_cols * s.eb != span) {
    /* the driver takes narrower boxes; their layout is not modelled */
    snprintf(why, n, "a %d-byte swizzle needs boxes %d elements wide (its "
                     "span in %d-byte elements), not %d",
             span, span / s.eb, s.eb, s.box_cols);
    return 1;
  }
  box_bytes = (long long)s.eb * s.box_rows * s.box_cols;
  period = span > 0 ? 8LL * span : 128;
  if (box_bytes % period != 0) {
    snprintf(why, n, "a box of %lld bytes: each box must start on %lld "
                     "bytes (%s)", box_bytes, period,
             span > 0 ? "the swizzle's period, 8 rows of its span"
                      : "the copy engine's shared-memory alignment");
    return 1;
  }
  if (tn_swizzle_resolve(sw, s.box_cols, s.eb, why, n) != 0)
    return 1;
  memset(maps, 0, sizeof(maps));
  nm = tn_transpose_tensor_maps(fam, p, prob, maps);
  for (i = 0; i < nm; i++)
    if (tn_tmap_check(&maps[i], why, n) != 0) {
      size_t used = strlen(why);
      snprintf(why + used, n - used, " (%s: %lld x %lld)",
               i == 0 ? "the input" : "the output",
               i == 0 ? m.rows : m.cols, i == 0 ? m.cols : m.rows);
      return 1;
    }
  return 0;
}

static int log2_of(int x)
{
  int k = 0;
  while ((1 << k) < x)
    k++;
  return k;
}

/* Resolves the threads' path's swizzle.  fp32's "xor" is the column ^=
 * the row (tn_swizzle_resolve).  Other widths xor in units of a bank's
 * word (4 bytes; fp64: its element): the unit's bank bits within a
 * 128-byte line ^= the row, or, in rows narrower than a line, the line,
 * so that 32 rows of one column fall on 32 banks.  The copy engine's
 * modes move 16-byte chunks of eb-byte elements. */
static int resolve_swizzle(tn_swizzle *sw, int tile, int eb, char *why,
                           size_t n)
{
  int unit = eb < 4 ? 4 : eb, per_row, per_line;
  if (sw->kind != TN_SWZ_XOR || eb == 4)
    return tn_swizzle_resolve(sw, tile, eb, why, n);
  per_row = log2_of(tile * eb / unit);
  per_line = log2_of(128 / unit);
  sw->b = per_row < per_line ? per_row : per_line;
  sw->m = log2_of(unit / eb);
  sw->s = per_row > per_line ? per_row : per_line;
  return 0;
}

/* The rules of the elements' width: vectors and packed loads of at most
 * 16 bytes, a pad of words that is whole elements. */
static int prepare_width(const tn_params *p, int eb, char *why, size_t n)
{
  long long tile = p->v[TP_TILE].i, rows = p->v[TP_ROWS].i;
  long long vec = p->v[TP_VEC].i, pack = p->v[TP_PACK].i;
  long long pad = p->v[TP_PAD].i, unit = p->v[TP_PAD_UNIT].i;

  if (!tn_is_pow2(vec) || vec * eb > 16) {
    snprintf(why, n, "vec %lld of %d-byte elements: a global access of "
                     "1, 2, 4, 8 or 16 elements, at most 16 bytes",
             vec, eb);
    return 1;
  }
  if (vec > tile) {
    snprintf(why, n, "vec %lld is wider than the tile (%lld)", vec, tile);
    return 1;
  }
  if (!tn_is_pow2(pack) || pack * eb > 16) {
    snprintf(why, n, "pack %lld of %d-byte elements: a shared load of 1, "
                     "2, 4, 8 or 16 elements, at most 16 bytes",
             pack, eb);
    return 1;
  }
  if (rows % pack != 0) {
    snprintf(why, n, "pack %lld does not divide rows_per_thread %lld: a "
                     "thread reads its tile columns pack at a time",
             pack, rows);
    return 1;
  }
  if (unit != 0 && unit != 4) {
    snprintf(why, n, "pad_unit %lld: 0 (elements) or 4 (4-byte words)",
             unit);
    return 1;
  }
  if (unit != 0 && pad == 0) {
    snprintf(why, n, "pad_unit %lld with pad 0: the layout of pad_unit 0",
             unit);
    return 1;
  }
  if (unit != 0 && (pad * unit) % eb != 0) {
    snprintf(why, n, "pad %lld of %lld-byte words is not a whole number "
                     "of %d-byte elements", pad, unit, eb);
    return 1;
  }
  return 0;
}

/* The rules of a rectangular tile (tile_rows other than 0): a power of
 * two that the threads' rows and vectors divide, on the threads' path. */
static int prepare_rows(const tn_params *p, char *why, size_t n)
{
  long long trows = p->v[TP_TILE_ROWS].i, tile = p->v[TP_TILE].i;
  long long rows = p->v[TP_ROWS].i, vec = p->v[TP_VEC].i;

  if (trows == 0)
    return 0;
  if (trows == tile) {
    snprintf(why, n, "tile_rows %lld equals tile: the square tile of "
                     "tile_rows 0", trows);
    return 1;
  }
  if (trows < 8 || !tn_is_pow2(trows)) {
    snprintf(why, n, "tile_rows %lld: 0, or a power of two from 8 to 256",
             trows);
    return 1;
  }
  if (p->v[TP_TMA].i) {
    snprintf(why, n, "tile_rows %lld: the copy engine's tile is square "
                     "(tile_rows 0 with tma = 1)", trows);
    return 1;
  }
  if (trows % rows != 0) {
    snprintf(why, n, "rows_per_thread %lld does not divide tile_rows %lld",
             rows, trows);
    return 1;
  }
  if (trows % vec != 0) {
    snprintf(why, n, "vec %lld does not divide tile_rows %lld: the rows "
                     "written are tile_rows elements, vec at a time",
             vec, trows);
    return 1;
  }
  return 0;
}

int tn_transpose_prepare(const tn_family *fam, tn_params *p,
                         const tn_problem *prob, char *why, size_t n)
{
  long long tile = p->v[TP_TILE].i, rows = p->v[TP_ROWS].i;
  long long pack = p->v[TP_PACK].i;
  long long trows = p->v[TP_TILE_ROWS].i ? p->v[TP_TILE_ROWS].i : tile;
  tn_swizzle *sw = &p->v[TP_SWIZZLE].sw;
  int eb = tn_transpose_elem_bytes(prob), pad;
  tn_transpose_dims m;

  tn_transpose_dims_of(prob, &m);
  if (!tn_is_pow2(tile)) {
    snprintf(why, n, "tile %lld is not a power of two", tile);
    return 1;
  }
  if (tile % rows != 0) {
    snprintf(why, n, "rows_per_thread %lld does not divide tile %lld", rows,
             tile);
    return 1;
  }
  if (prepare_width(p, eb, why, n) != 0)
    return 1;
  if (prepare_rows(p, why, n) != 0)
    return 1;
  if (((m.rows + trows - 1) / trows) * ((m.cols + tile - 1) / tile) >
      2147483647LL) {
    snprintf(why, n, "more than 2^31 - 1 tiles of %lld%s", tile,
             m.batch > 1 ? " a matrix" : "");
    return 1;
  }
  if (p->v[TP_TMA].i && (p->v[TP_CACHE].i & 2)) {
    snprintf(why, n, "cache %lld: the copy engine loads the tile (the "
                     "threads' loads' hints need tma = 0)",
             p->v[TP_CACHE].i);
    return 1;
  }
  if (p->v[TP_TMA_STORE].i && p->v[TP_CACHE].i) {
    snprintf(why, n, "cache %lld: with tma_store the copy engine moves "
                     "every global byte (cache 0)",
             p->v[TP_CACHE].i);
    return 1;
  }
  if (p->v[TP_TMA].i)
    return prepare_tma(fam, p, prob, why, n);
  if (p->v[TP_TMA_STORE].i || p->v[TP_BOX_ROWS].i || p->v[TP_BOX_COLS].i) {
    snprintf(why, n,
             "tma_store, box_rows and box_cols belong to the copy "
             "engine's path (tma = 1)");
    return 1;
  }
  if (resolve_swizzle(sw, (int)tile, eb, why, n) != 0)
    return 1;
  if ((trows * tile) % (1LL << (sw->m + sw->b)) != 0 ||
      sw->m + sw->b + sw->s > 20) {
    snprintf(why, n, "swizzle spans more than the %lldx%lld tile", trows,
             tile);
    return 1;
  }
  pad = tn_transpose_pad_elems(p, eb);
  if (pack > 1 && (sw->b > 0 && (1 << sw->m) < pack)) {
    snprintf(why, n, "pack %lld: the swizzle moves groups of %d elements, "
                     "which split a packed load",
             pack, 1 << sw->m);
    return 1;
  }
  if (pack > 1 && pad % pack != 0) {
    snprintf(why, n, "pack %lld: a pad of %d elements leaves the packed "
                     "loads unaligned",
             pack, pad);
    return 1;
  }
  return 0;
}


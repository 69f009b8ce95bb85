/* tile_order.h -- the order in which a GEMM's blocks take its output tiles:
 * tile number t (0 <= t < tiles_m * tiles_n) to the tile (tm, tn).  Blocks
 * (or persistent blocks stepping by the grid) take the numbers in order,
 * so the order decides which row panels of A (one per tm) and column
 * panels of B (one per tn) the blocks running at once share in L2.
 *
 * TN_TILE_ORDER picks the order, TN_GROUP_M (g) its groups of tile rows:
 *   0  row-major (g = 0), or groups of g tile rows, each walked column by
 *      column, top to bottom in every column (the order before there was
 *      TN_TILE_ORDER);
 *   1  a generalized Hilbert curve over the whole tiles_m x tiles_n
 *      rectangle, of any shape (g must be 0: the curve makes its own
 *      groups); each step is to an edge neighbour but where the shape
 *      forbids it (see hilbert_tile), then one diagonal step;
 *   2  order 0's groups of g rows (g > 0) as a serpentine: down the
 *      group's first column, up the next, and so on (each step within a
 *      group to an edge neighbour), every other group from its last column
 *      back to its first, so that a group starts under the column where
 *      the one before ended (the B panel just used; the step is to an
 *      edge neighbour where tiles_n is odd, else g rows down).
 * The tuner's family (tuner/family/gemm_wg.c) refuses the other
 * combinations.  Each is a loop of integer operations on t alone (no
 * table): a persistent block computes its next tile where it needs it.
 *
 * Plain C++ of ints, so that tests/unit/test_tile_order.cpp compiles it on
 * the host (tests/support/cuda_host.h). */
#ifndef TN_TILE_ORDER_H
#define TN_TILE_ORDER_H

#ifndef TN_TILE_ORDER
#define TN_TILE_ORDER 0
#endif
static_assert(TN_TILE_ORDER >= 0 && TN_TILE_ORDER <= 2,
              "the tile orders");
static_assert(TN_TILE_ORDER != 1 || TN_GROUP_M == 0,
              "the Hilbert curve has no groups of rows");
static_assert(TN_TILE_ORDER != 2 || TN_GROUP_M > 0,
              "the serpentine walks groups of rows");

/* The generalized Hilbert ("gilbert") curve as a tile number to a tile,
 * after the recursive construction of J. Cerveny's generalized Hilbert
 * curve: a rectangle of w cells along its major axis a and h along its
 * minor axis b is walked from its origin corner to the far end of a.
 * Where w > 1.5 h, it is cut across a into two halves walked one after
 * the other; otherwise into three: the first half of a by the first half
 * of b (walked along b, away from a), all of a by the rest of b (along
 * a), and the second half of a by the first half of b (along b, back).
 * Each part ends next to where the next begins.  The cuts keep each
 * part's length along its own major axis even where they can, so that
 * every step is to an edge neighbour but where the rectangle's parity
 * forbids it: a walk through every cell from a corner to the far corner
 * of an odd major axis has the same checkerboard colour at both ends,
 * which an even number of cells (an even minor axis) cannot have, so it
 * takes one diagonal step.  The curve is laid along the grid's longer
 * side; where that is odd and the shorter even, it takes exactly one
 * diagonal step, except on grids 2 tiles wide, whose last 2 x 3 tiles
 * turn back and end beside the far corner instead (nothing follows
 * them); tests/unit/test_tile_order.cpp counts the steps on every grid up
 * to 64 x 64.
 *
 * The walk below descends the recursion to the part holding t, keeping
 * the part's origin (om, on) and its axes (unit vectors in tile rows and
 * columns), until the part is one cell wide, where the tile is t steps
 * along it. */
__device__ __forceinline__ void hilbert_tile(int t, int tiles_m, int tiles_n,
                                             int &tm, int &tn)
{
  int om = 0, on = 0;
  /* the major axis along the longer side: (am, an) its unit, w cells;
   * (bm, bn) the minor's, h cells */
  int am = 0, an = 1, bm = 1, bn = 0, w = tiles_n, h = tiles_m;
  if (tiles_m > tiles_n) {
    am = 1;
    an = 0;
    bm = 0;
    bn = 1;
    w = tiles_m;
    h = tiles_n;
  }
  while (w > 1 && h > 1) {
    int w2 = w / 2, h2 = h / 2;
    if (2 * w > 3 * h) {
      /* two halves along a; the first one's length even where it can */
      if ((w2 & 1) && w > 2)
        w2++;
      if (t < w2 * h) {
        w = w2;
      } else {
        t -= w2 * h;
        om += w2 * am;
        on += w2 * an;
        w -= w2;
      }
      continue;
    }
    /* three parts; the first and last are h2 long along their own major
     * axis (b), even where they can */
    if ((h2 & 1) && h > 2)
      h2++;
    const int first = w2 * h2, middle = w * (h - h2);
    if (t < first) {
      /* along b, h2 long, across the first w2 of a */
      const int old_m = am, old_n = an;
      am = bm;
      an = bn;
      bm = old_m;
      bn = old_n;
      w = h2;
      h = w2;
    } else if (t < first + middle) {
      t -= first;
      om += h2 * bm;
      on += h2 * bn;
      h -= h2;
    } else {
      /* from the far end of a, h2 - 1 along b, back along -b, across the
       * last w - w2 of a towards the origin */
      t -= first + middle;
      om += (w - 1) * am + (h2 - 1) * bm;
      on += (w - 1) * an + (h2 - 1) * bn;
      const int old_m = am, old_n = an;
      am = -bm;
      an = -bn;
      bm = -old_m;
      bn = -old_n;
      const int rest = w - w2;
      w = h2;
      h = rest;
    }
  }
  /* one cell wide: t steps along whichever axis is long */
  if (h == 1) {
    tm = om + t * am;
    tn = on + t * an;
  } else {
    tm = om + t * bm;
    tn = on + t * bn;
  }
}

/* The tile (tm, tn) of tile index t in the order TN_TILE_ORDER. */
__device__ __forceinline__ void tile_of(int t, int tiles_m, int tiles_n,
                                        int &tm, int &tn)
{
#if TN_TILE_ORDER == 1
  hilbert_tile(t, tiles_m, tiles_n, tm, tn);
#elif TN_GROUP_M > 0
  const int per_group = TN_GROUP_M * tiles_n;
  const int group = t / per_group;
  const int first = group * TN_GROUP_M;
  const int rows = min(tiles_m - first, TN_GROUP_M);
  const int in_group = t % per_group;
  tm = first + in_group % rows;
  tn = in_group / rows;
#if TN_TILE_ORDER == 2
  /* odd columns upwards; odd groups from their last column */
  if (tn & 1)
    tm = 2 * first + rows - 1 - tm;
  if (group & 1)
    tn = tiles_n - 1 - tn;
#endif
#else
  (void)tiles_m;
  tm = t / tiles_n;
  tn = t % tiles_n;
#endif
}

/* A cluster of cl blocks that shares one operand's k-tiles (TMA
 * multicast) must compute tiles in one column of tiles (along 1: the
 * same tn, B's panel shared) or one row (along 2: the same tm, A's).  The
 * order then walks units: the grid of tiles_m x tiles_n tiles with every
 * cl tiles along that axis taken as one, a ragged last unit padded past
 * the grid.  Unit u's tile for the block of rank `rank`; a tile past the
 * grid (tm >= tiles_m or tn >= tiles_n) is computed on zeros and not
 * stored.  along 0: units are tiles, rank unused. */
__device__ __forceinline__ int cluster_units(int cl, int along, int tiles_m,
                                             int tiles_n)
{
  if (along == 1)
    return (tiles_m + cl - 1) / cl * tiles_n;
  if (along == 2)
    return tiles_m * ((tiles_n + cl - 1) / cl);
  return tiles_m * tiles_n;
}

__device__ __forceinline__ void cluster_tile_of(int u, int rank, int cl,
                                                int along, int tiles_m,
                                                int tiles_n, int &tm,
                                                int &tn)
{
  if (along == 1) {
    tile_of(u, (tiles_m + cl - 1) / cl, tiles_n, tm, tn);
    tm = tm * cl + rank;
  } else if (along == 2) {
    tile_of(u, tiles_m, (tiles_n + cl - 1) / cl, tm, tn);
    tn = tn * cl + rank;
  } else {
    tile_of(u, tiles_m, tiles_n, tm, tn);
  }
}

#endif

/* test_tile_order.cpp -- templates/tile_order.h, the wgmma GEMM's tile
 * orders, compiled on the host (tests/support/cuda_host.h) for each order
 * and a few group_m values, on every grid of 1 to 64 tile rows by 1 to 64
 * tile columns and some large ones:
 *   - every order is a bijection of 0 .. tiles-1 onto the grid;
 *   - orders 0 and 2 walk the groups as nested loops written here (rows
 *     within columns within groups) say they do;
 *   - the Hilbert order (1) steps to an edge neighbour everywhere but
 *     where the grid's parity forbids it: exactly one diagonal step when
 *     the longer side is odd and the shorter even and 4 or more, none
 *     otherwise (tile_order.h says why);
 *   - order 2 steps to an edge neighbour within a group, and from a group
 *     to the next to the same column, one row down where tiles_n is odd
 *     and group_m rows down where it is even.
 * With multicast, cluster_tile_of and cluster_units for clusters of 2
 * and 4 along either axis, every order, the same grids up to 40 x 40:
 *   - the units' tiles cover the grid, each tile once, the rest (a ragged
 *     last unit's) past the grid's edge along the cluster's axis only;
 *   - a unit's blocks share their tile column (along 1) or row (along 2),
 *     rank r on tile unit * cluster + r along it; without multicast
 *     (along 0) a unit is tile_of's tile.
 * Then prints, for the grids of the shipped 4096^3 and 8192^3 tiles, how
 * many A row panels and B column panels each window of 132 consecutive
 * tiles (an H200's SMs, running at once) touches, per order, and how many
 * of the pairs a cluster of 2 takes (tiles 2j, 2j + 1) share a panel; and
 * checks that the Hilbert order's windows touch at most 25% more panels
 * than the fewest any 132 tiles of the grid can (a rectangle of them).
 * Exits 0 when every check passes. */
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "cuda_host.h"

/* Each order and group_m the kernel can be rendered with, in a namespace
 * of its own (the header's include guard undone for each). */
#define TN_GROUP_M 0
namespace rowmajor {
#include "tile_order.h"
}
#undef TN_TILE_ORDER_H
#undef TN_GROUP_M
#define TN_GROUP_M 1
namespace grouped1 {
#include "tile_order.h"
}
#undef TN_TILE_ORDER_H
#undef TN_GROUP_M
#define TN_GROUP_M 3
namespace grouped3 {
#include "tile_order.h"
}
#undef TN_TILE_ORDER_H
#undef TN_GROUP_M
#define TN_GROUP_M 8
namespace grouped8 {
#include "tile_order.h"
}
#undef TN_TILE_ORDER_H
#undef TN_GROUP_M
#undef TN_TILE_ORDER
#define TN_TILE_ORDER 1
#define TN_GROUP_M 0
namespace hilbert {
#include "tile_order.h"
}
#undef TN_TILE_ORDER_H
#undef TN_GROUP_M
#undef TN_TILE_ORDER
#define TN_TILE_ORDER 2
#define TN_GROUP_M 1
namespace serp1 {
#include "tile_order.h"
}
#undef TN_TILE_ORDER_H
#undef TN_GROUP_M
#define TN_GROUP_M 3
namespace serp3 {
#include "tile_order.h"
}
#undef TN_TILE_ORDER_H
#undef TN_GROUP_M
#define TN_GROUP_M 8
namespace serp8 {
#include "tile_order.h"
}

typedef void (*order_fn)(int, int, int, int &, int &);
typedef void (*cluster_fn)(int, int, int, int, int, int, int &, int &);
typedef int (*units_fn)(int, int, int, int);

struct variant {
  const char *name;
  int order, group_m;
  order_fn fn;
  cluster_fn cfn;
  units_fn units;
};

#define VARIANT(name, order, g, ns)                                          \
  {name, order, g, ns::tile_of, ns::cluster_tile_of, ns::cluster_units}
static const variant variants[] = {
    VARIANT("order 0, row-major", 0, 0, rowmajor),
    VARIANT("order 0, group_m 1", 0, 1, grouped1),
    VARIANT("order 0, group_m 3", 0, 3, grouped3),
    VARIANT("order 0, group_m 8", 0, 8, grouped8),
    VARIANT("order 1, Hilbert", 1, 0, hilbert),
    VARIANT("order 2, group_m 1", 2, 1, serp1),
    VARIANT("order 2, group_m 3", 2, 3, serp3),
    VARIANT("order 2, group_m 8", 2, 8, serp8),
};
#define N_VARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

static int failures;
static int reported; /* failures printed, the rest counted */

static void fail(const char *what, const variant &v, int m, int n, int t)
{
  failures++;
  if (reported++ < 20)
    fprintf(stderr, "FAIL: %s, %d x %d tiles, t = %d: %s\n", v.name, m, n,
            t, what);
}

/* Orders 0 and 2 as nested loops: groups of g rows (all rows for g = 0,
 * then row by row), within a group column by column, within a column row
 * by row; order 2 reverses every other column's rows and every other
 * group's columns. */
static void reference(const variant &v, int m, int n, std::vector<int> &tm,
                      std::vector<int> &tn)
{
  tm.clear();
  tn.clear();
  if (v.group_m == 0) {
    for (int r = 0; r < m; r++)
      for (int c = 0; c < n; c++) {
        tm.push_back(r);
        tn.push_back(c);
      }
    return;
  }
  for (int first = 0, group = 0; first < m; first += v.group_m, group++) {
    int rows = m - first < v.group_m ? m - first : v.group_m;
    for (int k = 0; k < n; k++) {
      int col = v.order == 2 && group % 2 ? n - 1 - k : k;
      for (int i = 0; i < rows; i++) {
        int row = v.order == 2 && k % 2 ? rows - 1 - i : i;
        tm.push_back(first + row);
        tn.push_back(col);
      }
    }
  }
}

/* Checks one order on an m x n grid. */
static void check_grid(const variant &v, int m, int n)
{
  int tiles = m * n, diagonals = 0;
  std::vector<char> seen((size_t)tiles, 0);
  std::vector<int> tm((size_t)tiles), tn((size_t)tiles), rm, rn;

  for (int t = 0; t < tiles; t++) {
    v.fn(t, m, n, tm[t], tn[t]);
    if (tm[t] < 0 || tm[t] >= m || tn[t] < 0 || tn[t] >= n) {
      fail("off the grid", v, m, n, t);
      return;
    }
    if (seen[(size_t)tm[t] * n + tn[t]]++) {
      fail("a tile taken twice", v, m, n, t);
      return;
    }
  }
  if (v.order != 1) {
    reference(v, m, n, rm, rn);
    for (int t = 0; t < tiles; t++)
      if (tm[t] != rm[t] || tn[t] != rn[t]) {
        fail("not the nested loops' tile", v, m, n, t);
        return;
      }
  }
  for (int t = 1; t < tiles; t++) {
    int dm = abs(tm[t] - tm[t - 1]), dn = abs(tn[t] - tn[t - 1]);
    if (v.order == 1) {
      if (dm == 1 && dn == 1)
        diagonals++;
      else if (dm + dn != 1)
        fail("a step that is not to a neighbour", v, m, n, t);
    } else if (v.order == 2) {
      bool next_group = t % (v.group_m * n) == 0;
      int want = next_group && n % 2 == 0 ? v.group_m : 1;
      if (dn != 0 && !(dm == 0 && dn == 1 && !next_group))
        fail("a step across columns", v, m, n, t);
      if (dn == 0 && dm != want)
        fail("a step of the wrong length down a column", v, m, n, t);
    }
  }
  if (v.order == 1) {
    int lng = m > n ? m : n, shrt = m > n ? n : m;
    int want = lng % 2 == 1 && shrt % 2 == 0 && shrt >= 4 ? 1 : 0;
    if (diagonals != want) {
      char what[96];
      snprintf(what, sizeof(what), "%d diagonal steps, expected %d",
               diagonals, want);
      fail(what, v, m, n, 0);
    }
  }
}

/* Checks the units of clusters of cl blocks along `along` on an m x n
 * grid. */
static void check_units(const variant &v, int m, int n, int cl, int along)
{
  int units = v.units(cl, along, m, n), padded = 0;
  int um = along == 1 ? (m + cl - 1) / cl * cl : m;
  int un = along == 2 ? (n + cl - 1) / cl * cl : n;
  std::vector<char> seen((size_t)m * n, 0);
  char what[96];

  snprintf(what, sizeof(what), "cluster %d along %d", cl, along);
  if ((long long)units * (along ? cl : 1) != (long long)um * un) {
    fail("units do not span the padded grid", v, m, n, 0);
    return;
  }
  for (int u = 0; u < units; u++) {
    int tm0 = 0, tn0 = 0;
    for (int r = 0; r < (along ? cl : 1); r++) {
      int tm, tn;
      v.cfn(u, r, cl, along, m, n, tm, tn);
      if (along == 0) {
        int wm, wn;
        v.fn(u, m, n, wm, wn);
        if (tm != wm || tn != wn)
          fail("a unit that is not tile_of's tile", v, m, n, u);
      }
      if (r == 0) {
        tm0 = tm;
        tn0 = tn;
        if ((along == 1 && tm % cl) || (along == 2 && tn % cl))
          fail("a unit's first tile off its cluster's alignment", v, m, n,
               u);
      } else if ((along == 1 && (tn != tn0 || tm != tm0 + r)) ||
                 (along == 2 && (tm != tm0 || tn != tn0 + r))) {
        fail(what, v, m, n, u); /* not the unit's column or row */
        return;
      }
      if (tm < 0 || tn < 0 || tm >= um || tn >= un) {
        fail("off the padded grid", v, m, n, u);
        return;
      }
      if (tm >= m || tn >= n) {
        padded++;
        continue;
      }
      if (seen[(size_t)tm * n + tn]++) {
        fail("a tile taken twice by the units", v, m, n, u);
        return;
      }
    }
  }
  if (padded != um * un - m * n)
    fail("padding tiles miscounted", v, m, n, 0);
}

/* The fewest panels (rows + columns) any `window` tiles of an m x n grid
 * touch: those of the squarest rectangle r x c >= window that fits. */
static int fewest_panels(int m, int n, int window)
{
  int best = m + n;
  for (int r = 1; r <= m; r++) {
    int c = (window + r - 1) / r;
    if (c <= n && r + c < best)
      best = r + c;
  }
  return best;
}

/* The panels of A (rows) and B (columns) that windows of `window`
 * consecutive tiles touch: their mean and largest sum over every window;
 * and the share of cluster pairs (2j, 2j + 1) in one row or column. */
struct locality {
  double rows, cols, sum;
  int max_sum;
  double pairs;
};

static locality measure(const variant &v, int m, int n, int window)
{
  int tiles = m * n, windows = 0, shared = 0;
  std::vector<int> tm((size_t)tiles), tn((size_t)tiles);
  std::vector<int> row_uses((size_t)m, 0), col_uses((size_t)n, 0);
  int rows = 0, cols = 0;
  locality l = {0, 0, 0, 0, 0};

  for (int t = 0; t < tiles; t++)
    v.fn(t, m, n, tm[t], tn[t]);
  if (window > tiles)
    window = tiles;
  /* slide the window, counting the panels in it */
  for (int t = 0; t < tiles; t++) {
    rows += row_uses[tm[t]]++ == 0;
    cols += col_uses[tn[t]]++ == 0;
    if (t >= window) {
      rows -= --row_uses[tm[t - window]] == 0;
      cols -= --col_uses[tn[t - window]] == 0;
    }
    if (t >= window - 1) {
      windows++;
      l.rows += rows;
      l.cols += cols;
      if (rows + cols > l.max_sum)
        l.max_sum = rows + cols;
    }
  }
  l.rows /= windows;
  l.cols /= windows;
  l.sum = l.rows + l.cols;
  for (int t = 0; t + 1 < tiles; t += 2)
    shared += tm[t] == tm[t + 1] || tn[t] == tn[t + 1];
  l.pairs = tiles > 1 ? (double)shared / (tiles / 2) : 1.0;
  return l;
}

int main(void)
{
  static const int large[][2] = {{128, 96}, {96, 128}, {256, 256},
                                 {127, 255}, {255, 126}, {1, 300},
                                 {300, 1}, {2, 257}};
  /* the shipped configs' tiles (128 x 256, 256 x 128, 128 x 128) at
   * 4096^3 and 8192^3 */
  static const int shipped[][2] = {{32, 16}, {16, 32}, {32, 32},
                                   {64, 32}, {32, 64}, {64, 64}};
  int grids = 0;

  for (int i = 0; i < N_VARIANTS; i++) {
    for (int m = 1; m <= 64; m++)
      for (int n = 1; n <= 64; n++, grids++)
        check_grid(variants[i], m, n);
    for (const auto &g : large)
      check_grid(variants[i], g[0], g[1]);
  }
  printf("%d orders on %d grids of up to 64 x 64 and %d larger: %d "
         "failures\n",
         N_VARIANTS, grids / N_VARIANTS,
         (int)(sizeof(large) / sizeof(large[0])), failures);
  for (int i = 0; i < N_VARIANTS; i++)
    for (int m = 1; m <= 40; m++)
      for (int n = 1; n <= 40; n++) {
        check_units(variants[i], m, n, 1, 0);
        for (int cl = 2; cl <= 4; cl += 2)
          for (int along = 1; along <= 2; along++)
            check_units(variants[i], m, n, cl, along);
      }
  printf("the units of clusters of 2 and 4 along either axis, every "
         "order, grids up to 40 x 40: %d failures\n\n", failures);

  printf("panels a window of 132 consecutive tiles touches (mean over "
         "every window; A rows + B columns, their largest), and the share "
         "of cluster pairs in one row or column:\n");
  printf("%-8s %-20s %8s %8s %8s %6s %7s\n", "grid", "order", "A rows",
         "B cols", "sum", "max", "pairs");
  for (const auto &g : shipped) {
    locality l[N_VARIANTS];
    int fewest = fewest_panels(g[0], g[1], 132);
    for (int i = 0; i < N_VARIANTS; i++) {
      l[i] = measure(variants[i], g[0], g[1], 132);
      printf("%3dx%-4d %-20s %8.1f %8.1f %8.1f %6d %6.0f%%\n", g[0], g[1],
             variants[i].name, l[i].rows, l[i].cols, l[i].sum, l[i].max_sum,
             100.0 * l[i].pairs);
    }
    printf("%3dx%-4d %-20s %8s %8s %8d\n\n", g[0], g[1],
           "fewest possible", "", "", fewest);
    /* variants[4]: Hilbert */
    if (!(l[4].sum <= 1.25 * fewest)) {
      fprintf(stderr, "FAIL: %d x %d: the Hilbert order's windows touch "
                      "%.1f panels, more than 1.25 x the fewest, %d\n",
              g[0], g[1], l[4].sum, fewest);
      failures++;
    }
  }
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}

/* test_stream_k.c -- the wgmma GEMM's stream-K schedule
 * (templates/gemm_wg_schedule.h, C on the host as in the template) walked
 * for every block of a grid.
 *
 * For units, grid columns and k-tiles from small to 4096^3's and
 * 8192^3's (512 and 2048 tiles on 132 blocks, 256 and 1024 units on 66
 * clusters), stream_k 0, 1 and 2: every k-tile of every unit is computed
 * by exactly one item; items never go past a unit's k-tiles; without
 * stream-K (and where the units fill whole waves) the walk is the
 * family's old one; stream_k 1's shares differ by at most one k-tile, 2's
 * are no longer than the head and shorter than a unit; each slot of the
 * workspace is written by one share at most; the slots an owner adds
 * (next_slot) are exactly those written for its unit, each by a block
 * after it (waits run one way: no deadlock), and every slot written is
 * added.  gemm_wg_geometry's dp_units, split_ktiles and split_busiest
 * are the template's.  Exits 0 when every check passes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "family/gemm_wg_shape.h"

extern const tn_family tn_family_gemm_wg;

/* the template's macros, as values the test sets */
static int grid_units, unit_first, sk_mode;
#define GRID_UNITS grid_units
#define UNIT_FIRST unit_first
#define UNIT_STEP grid_units
#define TN_STREAM_K sk_mode
#define __device__
#define __forceinline__ static inline
#include "templates/gemm_wg_schedule.h"

#define MAX_ITEMS 4096

/* The split units' k-tiles the busiest column takes, by walking them. */
static int busiest(int units, int ktiles)
{
  int j, w, most = 0;
  for (j = 0; j < grid_units; j++) {
    wg_sched s;
    wg_item it;
    int load = 0;
    unit_first = j;
    s = make_sched(units, ktiles);
    for (w = s.mine; item_of(&s, w, &it) && w < MAX_ITEMS; w++)
      load += it.ke - it.kb;
    if (load > most)
      most = load;
  }
  return most;
}

/* One shape: units on cols columns of ktiles each, stream_k mode. */
static void walk(int units, int cols, int ktiles, int mode)
{
  int *cover = calloc((size_t)units * ktiles, sizeof(int));
  int *pub = malloc((size_t)cols * sizeof(int));  /* a slot's writer */
  int *unit = malloc((size_t)cols * sizeof(int)); /* ... and its unit */
  int *added = calloc((size_t)cols, sizeof(int));
  int lo_min = -1, lo_max = -1, rem = 0, head = 0;
  int j, w, u, bad = 0;
  grid_units = cols;
  sk_mode = mode;
  for (j = 0; j < cols; j++)
    pub[j] = unit[j] = -1;
  for (j = 0; j < cols && !bad; j++) {
    wg_sched s;
    wg_item it;
    int load = 0;
    unit_first = j;
    s = make_sched(units, ktiles);
    rem = s.rem;
    head = s.head;
    for (w = 0; item_of(&s, w, &it) && w < MAX_ITEMS; w++) {
      int k;
      if (it.u < 0 || it.u >= units || it.kb < 0 || it.ke > ktiles ||
          it.kb >= it.ke) {
        fprintf(stderr, "  units %d cols %d kt %d sk %d: column %d item %d "
                        "is unit %d k %d..%d\n",
                units, cols, ktiles, mode, j, w, it.u, it.kb, it.ke);
        bad = 1;
        break;
      }
      for (k = it.kb; k < it.ke; k++)
        cover[(size_t)it.u * ktiles + k]++;
      if (w < s.mine) {
        /* the old walk: unit j + w cols, whole */
        bad |= it.u != j + w * cols || it.kb != 0 || it.ke != ktiles;
        continue;
      }
      load += it.ke - it.kb;
      if (it.kb > 0) { /* a share: one writer a slot, in range */
        int slot = share_slot(&s, &it);
        if (slot < 0 || slot >= cols || pub[slot] >= 0) {
          fprintf(stderr, "  units %d cols %d kt %d sk %d: column %d writes "
                          "slot %d (written by %d)\n",
                  units, cols, ktiles, mode, j, slot,
                  slot >= 0 && slot < cols ? pub[slot] : -2);
          bad = 1;
          break;
        }
        pub[slot] = j;
        unit[slot] = it.u;
      }
    }
    if (mode == 0 || units % cols == 0)
      bad |= s.dp != units || load != 0;
    if (lo_min < 0 || load < lo_min)
      lo_min = load;
    if (load > lo_max)
      lo_max = load;
  }
  /* balance: stream_k 1 even, 2 no column past the head; neither past
   * the whole unit the last wave would take */
  if ((mode == 1 && lo_max - lo_min > 1) || (mode == 2 && lo_max > head) ||
      lo_max > ktiles || (mode == 2 && rem > 0 && lo_max >= ktiles)) {
    fprintf(stderr, "  units %d cols %d kt %d sk %d: columns take %d to %d "
                    "k-tiles of the split (head %d)\n",
            units, cols, ktiles, mode, lo_min, lo_max, head);
    bad = 1;
  }
  for (u = 0; u < units * ktiles && !bad; u++)
    if (cover[u] != 1) {
      fprintf(stderr, "  units %d cols %d kt %d sk %d: unit %d k-tile %d "
                      "computed %d times\n",
              units, cols, ktiles, mode, u / ktiles, u % ktiles, cover[u]);
      bad = 1;
    }
  /* the owners: each adds the slots written for its unit, each once,
   * each written by a column after it (waits run one way) */
  for (j = 0; j < cols && !bad; j++) {
    wg_sched s;
    wg_item it;
    unit_first = j;
    s = make_sched(units, ktiles);
    for (w = s.mine; item_of(&s, w, &it) && w < MAX_ITEMS; w++) {
      int slot, got = 0;
      if (it.kb > 0 || it.ke == ktiles)
        continue; /* not an owner, or a unit of one share */
      for (slot = next_slot(&s, &it, -1); slot >= 0 && got <= cols;
           slot = next_slot(&s, &it, slot)) {
        got++;
        if (slot >= cols || pub[slot] <= j || unit[slot] != it.u ||
            added[slot]++) {
          fprintf(stderr, "  units %d cols %d kt %d sk %d: column %d owns "
                          "unit %d and adds slot %d (of unit %d, by %d)\n",
                  units, cols, ktiles, mode, j, it.u, slot,
                  slot < cols ? unit[slot] : -1,
                  slot < cols ? pub[slot] : -1);
          bad = 1;
        }
      }
      bad |= got == 0;
    }
  }
  for (j = 0; j < cols && !bad; j++)
    if (pub[j] >= 0 && !added[j]) {
      fprintf(stderr, "  units %d cols %d kt %d sk %d: slot %d (unit %d) "
                      "written, never added\n",
              units, cols, ktiles, mode, j, unit[j]);
      bad = 1;
    }
  CHECK(!bad);
  free(cover);
  free(pub);
  free(unit);
  free(added);
}

/* The family's geometry says what the template computes. */
static void geometry(int m, int n, int k, int cluster, int multicast,
                     int mode)
{
  tn_params p;
  tn_problem prob;
  wg_geometry g;
  wg_sched s;
  int i;
  memset(&p, 0, sizeof(p));
  memset(&prob, 0, sizeof(prob));
  for (i = 0; i < WG_N_PARAMS; i++)
    p.v[i].i = tn_family_gemm_wg.params[i].def;
  p.v[WG_BN].i = 256;
  p.v[WG_STAGES].i = 4;
  p.v[WG_PRODUCER].i = 1;
  p.v[WG_PERSISTENT].i = 132;
  p.v[WG_CLUSTER].i = cluster;
  p.v[WG_MULTICAST].i = multicast;
  p.v[WG_STREAM_K].i = mode;
  for (i = 0; i < WG_N_OPTIONS; i++)
    prob.opt[i] = tn_family_gemm_wg.options[i].def;
  prob.size.n_dims = 3;
  prob.size.dims[0] = m;
  prob.size.dims[1] = n;
  prob.size.dims[2] = k;
  tn_gemm_wg_geometry(&p, &prob, &g);
  grid_units = (int)(g.blocks / (multicast ? cluster : 1));
  unit_first = 0;
  sk_mode = mode;
  s = make_sched((int)g.units, (k + 63) / 64);
  CHECK_EQ_INT((int)g.dp_units, s.dp);
  CHECK_EQ_INT((int)g.split_ktiles, s.rem * ((k + 63) / 64));
  CHECK_EQ_INT((int)g.split_busiest, busiest((int)g.units, (k + 63) / 64));
  CHECK_EQ_INT((int)g.workspace_block, mode ? 4 * (32 + 128 * 256) : 0);
}

int main(void)
{
  static const int shapes[][3] = {
      /* units, columns, k-tiles */
      {512, 132, 64},  {256, 66, 64}, {2048, 132, 128}, {1024, 66, 128},
      {272, 132, 16},  {15, 6, 4},    {10, 6, 63},      {8, 6, 1},
      {7, 7, 5},       {1, 1, 3},     {13, 5, 2},       {100, 33, 3}};
  int i, mode;
  for (i = 0; i < (int)(sizeof(shapes) / sizeof(shapes[0])); i++)
    for (mode = 0; mode <= 2; mode++)
      walk(shapes[i][0], shapes[i][1], shapes[i][2], mode);
  /* 4096^3 and 8192^3 of 128 x 256 tiles, clusters of 1 and of 2
   * sharing B */
  for (mode = 0; mode <= 2; mode++) {
    geometry(4096, 4096, 4096, 1, 0, mode);
    geometry(4096, 4096, 4096, 2, 1, mode);
    geometry(8192, 8192, 8192, 2, 1, mode);
    geometry(2000, 2056, 1000, 2, 1, mode);
  }
  /* the split at 4096^3: 116 of 512 tiles over 132 blocks (3712 k-tiles
   * on 66 clusters with B shared: 56 or 57 each) */
  {
    wg_sched s;
    grid_units = 66;
    unit_first = 0;
    sk_mode = 1;
    s = make_sched(256, 64);
    CHECK_EQ_INT(s.dp, 198);
    CHECK_EQ_INT((int)s.iters, 58 * 64);
    sk_mode = 2;
    s = make_sched(256, 64);
    /* 58 heads of 57 k-tiles; 8 idle clusters take 8 tails of 7 */
    CHECK_EQ_INT(s.dp, 198);
    CHECK_EQ_INT(s.head, 57);
    CHECK_EQ_INT(busiest(256, 64), 57);
  }
  TEST_DONE();
}

/* test_c_ring.c -- the wgmma GEMM's epilogue staging through a ring of
 * C's columns (c_ring, templates/gemm_wg_epilogue.h) as a model.
 *
 * Thread 0 of a consumer, tile after tile: before it has column s of a
 * tile written into buffer s % R, it waits (cp.async.bulk.wait_group.read
 * N) until at most N of the bulk groups it committed last are still
 * reading their staging; a stored tile then issues that column's TMA
 * store and commits it alone, a tile not stored (ping-pong's padding)
 * commits nothing.  No group completes unless a wait forces it, the worst
 * case: the check is that no group still reading names the buffer about
 * to be written.  Every sequence of 1 to 6 tiles, each stored or not, for
 * rings of 1, 2 and 4 buffers over 2, 4 and 8 columns a tile (R dividing
 * them): the template's rule (N = R - 1 for a stored tile, 0 for one not
 * stored) holds on all; the count alone (N = R - 1 for every tile) must
 * overwrite a buffer being read (the test can fail).  Exits 0 when every
 * check passes. */
#include <stdio.h>

#include "test_util.h"

#define MAX_GROUPS 64

/* Tiles of `cols` columns through `ring` buffers, tile t stored where bit
 * t of `stored` is set; `fixed`: the template's waits.  Returns the
 * writes of a buffer a pending group was still reading. */
static int overwrites(int ring, int cols, int tiles, unsigned stored,
                      int fixed)
{
  int pending[MAX_GROUPS], n = 0, bad = 0, t, s, i;
  for (t = 0; t < tiles; t++) {
    int store = (stored >> t) & 1;
    for (s = 0; s < cols; s++) {
      int keep = store || !fixed ? ring - 1 : 0, b = s % ring;
      if (n > keep) { /* the oldest complete: the newest `keep` remain */
        for (i = 0; i < keep; i++)
          pending[i] = pending[n - keep + i];
        n = keep;
      }
      for (i = 0; i < n; i++)
        bad += pending[i] == b;
      if (store && n < MAX_GROUPS)
        pending[n++] = b;
    }
  }
  return bad;
}

int main(void)
{
  static const int rings[] = {1, 2, 4}, colss[] = {2, 4, 8};
  int r, c, tiles, unfixed_bad = 0, shapes = 0;
  for (r = 0; r < 3; r++)
    for (c = 0; c < 3; c++) {
      int ring = rings[r], cols = colss[c];
      unsigned stored;
      if (ring >= cols && ring > 1)
        continue; /* the family's rule: fewer buffers than columns */
      for (tiles = 1; tiles <= 6; tiles++)
        for (stored = 0; stored < 1u << tiles; stored++) {
          int bad = overwrites(ring, cols, tiles, stored, 1);
          shapes++;
          if (bad) {
            fprintf(stderr, "  ring %d, %d columns, tiles stored 0x%x: "
                            "%d writes of a buffer being read\n",
                    ring, cols, stored, bad);
            CHECK(0);
          }
          unfixed_bad += overwrites(ring, cols, tiles, stored, 0) > 0;
        }
    }
  /* without the padding tile's full wait, some sequence overwrites */
  CHECK(unfixed_bad > 0);
  if (tn_test_failures == 0)
    fprintf(stderr, "c_ring: %d sequences, no staging written while "
                    "read; %d would be without the padding's wait\n",
            shapes, unfixed_bad);
  TEST_DONE();
}

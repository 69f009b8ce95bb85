#define _POSIX_C_SOURCE 200809L
/* fuzz_results.c -- libFuzzer target: any bytes as one results document
 * for `tuner merge` (tn_fleet_read_doc, the reader and its checks).  A
 * document it accepts must hold together: its best names a candidate,
 * an "ok" one unless predicted, within the file's noise of the fastest,
 * and so does each size's winner at its size (a file without a table by
 * size has best for every size);
 * a rejection must say why. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  mg_run *r = calloc(1, sizeof(*r)), *again;
  tn_err err = {{0}};
  int rc, i;

  if (r == NULL)
    return 0;
  rc = tn_fleet_read_doc("fuzz.json", (const char *)data, size, NULL, 0, r,
                         &err);
  if (rc != 0 && err.msg[0] == '\0')
    abort(); /* rejected without a message */
  if (rc == 0) {
    if (r->best >= r->n_cands || r->n_problems < 1)
      abort();
    for (i = 0; i < r->n_cands; i++)
      if (r->cands[i].ok &&
          (!isfinite(r->cands[i].ms) || !(r->cands[i].ms > 0)))
        abort();
    if (r->best >= 0 && !r->predicted &&
        (!r->cands[r->best].ok ||
         r->cands[r->best].ms > r->fastest * (1.0 + r->noise) * 1.000001))
      abort();
    for (i = 0; i < r->n_cands; i++)
      if (r->cands[i].ok &&
          tn_fleet_find_cand(r, r->cands[i].text) != &r->cands[i])
        abort();
    /* each size's winner: a candidate, and measured ones "ok" within that
     * size's noise of its fastest */
    for (i = 0; r->best >= 0 && i < r->n_problems; i++) {
      const mg_cand *w;
      if (r->best_at[i] < 0 || r->best_at[i] >= r->n_cands)
        abort();
      w = &r->cands[r->best_at[i]];
      if (!r->has_sizes) { /* written before them: best for every size */
        if (r->best_at[i] != r->best)
          abort();
        continue;
      }
      if (!r->predicted &&
          (!w->ok || !(w->ms_at[i] > 0) ||
           w->ms_at[i] > r->fastest_at[i] * (1.0 + r->noise_at[i]) *
                             1.000001))
        abort();
    }
    /* the same document again, as a second file of the same merge */
    again = calloc(1, sizeof(*again));
    if (again != NULL) {
      tn_err e2 = {{0}};
      if (tn_fleet_read_doc("again.json", (const char *)data, size, r, 0,
                            again, &e2) != 0)
        abort(); /* accepted once, refused the second time */
      tn_fleet_run_free(again);
    }
  }
  tn_fleet_run_free(r);
  return 0;
}

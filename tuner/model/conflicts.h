/* conflicts.h -- `tuner conflicts`: the wavefront model as a calculator.
 *
 * Input lines: OP WIDTH A0 A1 ... A31 [| G0 G1 ... G31]
 *   OP     ld | st | ldmatrix.x1|x2|x4 | stmatrix.x1|x2|x4, (ld|st)matrix
 *          optionally with .trans | cp.async.ca | cp.async.cg
 *   WIDTH  bytes per lane: 1, 2, 4, 8, 16 (16 for ldmatrix/stmatrix and
 *          cp.async.cg; 4, 8 or 16 for cp.async.ca)
 *   Ai     lane i's byte offset in shared memory, decimal, or - (inactive);
 *          a cp.async lane's may end in z (zero-filled); the command
 *          refuses a lane whose WIDTH bytes end past the architecture's
 *          shared memory per block (tn_arch.smem_per_block)
 *   Gi     cp.async only: the global byte offset lane i reads from a
 *          128-byte-aligned base (default Gi = Ai), - where Ai is -
 * Blank lines and lines starting with # are skipped.  Output, one line per
 * input line:  WAVEFRONTS DEGREE BANKS   (BANKS: the busiest banks,
 * comma-separated, or - when no lane is active). */
#ifndef TN_CONFLICTS_H
#define TN_CONFLICTS_H

#include <stddef.h>

#include "model/model.h"

/* Parses one line into a.  Returns 0, 1 for a line to skip (blank or
 * comment), or -1 with a message in why. */
int tn_conflicts_parse_line(const char *line, tn_warp_access *a, char *why,
                            size_t why_len);

/* The subcommand; argv[0] is "conflicts". Returns the exit status. */
int tn_conflicts_main(int argc, char **argv);

#endif

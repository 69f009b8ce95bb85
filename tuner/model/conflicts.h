/* conflicts.h -- `tuner conflicts`: the wavefront model as a calculator.
 *
 * Input lines: OP WIDTH A0 A1 ... A31
 *   OP     ld | st | ldmatrix.x1|x2|x4 | stmatrix.x1|x2|x4, (ld|st)matrix
 *          optionally with .trans
 *   WIDTH  bytes per lane: 1, 2, 4, 8, 16 (16 for ldmatrix/stmatrix)
 *   Ai     lane i's byte offset in shared memory, decimal, or - (inactive)
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

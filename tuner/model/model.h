/* model.h -- shared-memory wavefronts of warp accesses and whole launches.
 *
 * A warp-wide shared-memory instruction is served in wavefronts: passes of
 * the shared-memory pipeline, each reading or writing at most one 4-byte
 * word per bank (32 banks).  The model counts them from the 32 lanes' byte
 * addresses, the width, the active lanes and the kind of instruction. */
#ifndef TN_MODEL_H
#define TN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/arch.h"
#include "model/access.h"

/* Phases (groups of lanes served separately) of an ld/st (or cp.async.ca)
 * of width bytes; 0 for ldmatrix/stmatrix, whose phases are their
 * matrices, and for cp.async.cg, served by global line. */
int tn_model_phases(tn_op op, int width);

/* Costs one warp instruction.  Returns 0, or -1 if the access is malformed
 * (bad width, unaligned address, wrong matrices) with a reason in why. */
int tn_model_access(const tn_warp_access *a, const tn_arch *arch,
                    tn_access_cost *cost, char *why, size_t why_len);

/* Totals over one kernel launch. */
typedef struct {
  long long ld_wavefronts, st_wavefronts; /* ldmatrix counts as ld, */
  long long ld_insts, st_insts;           /* stmatrix and cp.async as st */
  long long ideal_wavefronts;   /* the same instructions without conflicts */
  /* of st: the cp.async part (its shared side), which Nsight Compute
   * counts apart and the hardware serves by more than addresses */
  long long async_wavefronts, async_insts;
  int max_degree;               /* worst conflict degree of any access */
  long long blocks;             /* thread blocks in the launch */
} tn_model_cost;

/* Receives every distinct warp access of a launch with how many times the
 * launch executes it.  Families call it from their access plans. */
typedef struct tn_access_sink {
  tn_model_cost *total;
  const tn_arch *arch;
  int failed;       /* the first malformed access, kept in why */
  char why[1024];
} tn_access_sink;
void tn_sink_access(tn_access_sink *sink, const tn_warp_access *a,
                    long long times);

/* Adds an access to a cost (used by the plan walker and by tests). */
int tn_model_accumulate(tn_model_cost *total, const tn_warp_access *a,
                        long long times, const tn_arch *arch, char *why,
                        size_t why_len);

/* Wavefronts per thread block, the unit the candidate table shows. */
double tn_model_wavefronts_per_block(const tn_model_cost *c);

#endif

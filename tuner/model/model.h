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

/* The kinds Nsight Compute counts a launch's shared-memory instructions
 * and wavefronts by: smsp__sass_inst_executed_op_shared_ld, _op_shared_st,
 * _op_ldsm, _op_shared_stsm and _op_ldgsts, each with the matching
 * smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld, _st, _ldsm,
 * _stsm, _ldgsts.  The launch totals above fold ldmatrix into ld and
 * stmatrix and cp.async into st; ncu keeps all five apart (op_shared_st
 * counts no LDGSTS: results/model-validation/ncu-gemm.tsv). */
typedef enum {
  TN_KIND_LD,     /* LDS */
  TN_KIND_ST,     /* STS */
  TN_KIND_LDSM,   /* LDSM: ldmatrix */
  TN_KIND_STSM,   /* STSM: stmatrix */
  TN_KIND_LDGSTS, /* LDGSTS: cp.async, and a family's store marked as its
                     shared side (async_copy) */
  TN_KIND_COUNT
} tn_ncu_kind;

/* The kind a's instruction is counted under. */
tn_ncu_kind tn_model_ncu_kind(const tn_warp_access *a);
/* "ld", "st", "ldsm", "stsm" or "ldgsts". */
const char *tn_model_ncu_kind_name(tn_ncu_kind k);

/* Wavefronts per thread block, the unit the candidate table shows. */
double tn_model_wavefronts_per_block(const tn_model_cost *c);

#endif

/* gemm_shape.h -- what the parts of the GEMM family share (private to
 * tuner/family/gemm*.c): the parameters' and options' indices and the
 * shape a point gives the template.  The parts, each calling only those
 * above it here:
 *
 *   gemm_shape.c  the shape of a point on a problem (tn_gemm_geometry)
 *   gemm_plan.c   the shared-memory access plan the model prices
 *   gemm_check.c  the fp64 reference on the GPU and the verification
 *                 (shared with the tensor-core families: gemm_ref.h)
 *   gemm.c        the family: parameters, rules, launch, defines, buffers,
 *                 problem options, units, baselines */
#ifndef TN_GEMM_SHAPE_H
#define TN_GEMM_SHAPE_H

#include "family/family.h"

enum {
  P_KERNEL,
  P_BM,
  P_BN,
  P_BK,
  P_TM,
  P_TN,
  P_LANES_M,
  P_A_KMAJOR,
  P_B_KMAJOR,
  P_PIPELINE,
  P_MIN_BLOCKS,
  P_PAD_A,
  P_PAD_B,
  P_SWIZZLE_A,
  P_SWIZZLE_B,
  P_STAGES,   /* added after results files: the TMA ring's buffers */
  P_PRODUCER, /* added after results files: who refills the ring */
  P_RUN_M,    /* added after results files: A's runs of rows a thread */
  P_LANE_ORDER, /* added after results files: the lanes in the warp */
  N_PARAMS
};

#define STATIC_SMEM_MAX (48 * 1024)

/* One shared array: an operand's tile (A: mn = m, B: mn = n). */
typedef struct {
  int mn;           /* bm or bn */
  int kcontig;      /* contiguous along k in global memory */
  int kmajor;       /* shared rows are k (Xs[k][mn]), else mn */
  int copy;         /* global and shared rows run the same way */
  int cl;           /* tile extent along the global contiguous dimension */
  int slots, iters; /* 4-element slots of the tile, per-thread rounds */
  int rows, width, pad, elems; /* shared rows x width (+ pad), per buffer */
  int vec;          /* widest access in floats: pad and swizzle keep it */
  int base;         /* element offset of buffer 0 in shared memory */
  int span; /* pipeline 3: the swizzle's bytes, the map's (0: none) */
  tn_swizzle sw;
} operand;

/* Everything the template derives from a point, computed once here. */
typedef struct {
  int kernel, bm, bn, bk, tm, tn, wm, wn;
  int threads, stages, vm, vn, lm, ln, warps_n;
  int lane_order; /* templates/gemm_lanes.h */
  int tma; /* pipeline 3: a ring of `stages` buffers the copy engine fills */
  int producer; /* pipeline 3: 1, a warp beyond `threads` refills it */
  int tb_vec; /* textbook: floats per As row load */
  operand op[2];
  long long smem_bytes; /* the tiles */
  int bar_bytes;        /* the TMA ring's mbarriers, after the tiles */
  long long m, n, k;
} geometry;


/* The problem options, in the order of gemm.c's table. */
enum { OPT_TRANS_A, OPT_TRANS_B, OPT_ALPHA, OPT_BETA, N_OPTIONS };
#define GEMM_TRANS_A(prob) ((prob)->opt[OPT_TRANS_A] != 0)
#define GEMM_TRANS_B(prob) ((prob)->opt[OPT_TRANS_B] != 0)
#define GEMM_ALPHA(prob) ((prob)->opt[OPT_ALPHA])
#define GEMM_BETA(prob) ((prob)->opt[OPT_BETA])

/* The buffers of a problem, in tn_family.buffers order. */
enum { BUF_A, BUF_B, BUF_C };

/* The shape of point p on prob (prob's sizes and transposes). */
void tn_gemm_geometry(const tn_params *p, const tn_problem *prob,
                      geometry *g);
/* tn_family.plan of the family. */
void tn_gemm_plan(const tn_params *p, const tn_problem *prob,
                  tn_access_sink *sink);

#endif

/* gemm_wg_shape.h -- what the parts of the wgmma GEMM family share
 * (private to tuner/family/gemm_wg*.c): the parameters' and options'
 * indices and the shape a point gives templates/gemm_wg.cu.  The parts,
 * each calling only those above it here:
 *
 *   gemm_wg_shape.c the shape of a point on a problem
 *   gemm_wg_plan.c  the threads' shared-memory accesses the model prices
 *   gemm_wg.c       the family: parameters, rules, launch, defines,
 *                   tensor maps, buffers, options, units, baseline, check */
#ifndef TN_GEMM_WG_SHAPE_H
#define TN_GEMM_WG_SHAPE_H

#include "family/family.h"

enum {
  WG_BM,
  WG_BN,
  WG_BK,
  WG_CONSUMERS,
  WG_STAGES,
  WG_SWIZZLE,
  WG_PRODUCER,
  WG_MAXNREG,
  WG_CLUSTER,
  WG_PERSISTENT,
  WG_GROUP_M,
  WG_EPILOGUE,
  WG_N_PARAMS
};

/* The problem options: the tensor-core GEMM's (gemm_tc.c), in its order. */
enum {
  WG_OPT_TRANS_A,
  WG_OPT_TRANS_B,
  WG_OPT_ALPHA,
  WG_OPT_BETA,
  WG_OPT_INPUT,  /* choice: 0 bf16, 1 fp16 */
  WG_OPT_OUTPUT, /* choice: 0 f32, 1 the input type */
  WG_N_OPTIONS
};
#define WG_TRANS_A(prob) ((prob)->opt[WG_OPT_TRANS_A] != 0)
#define WG_TRANS_B(prob) ((prob)->opt[WG_OPT_TRANS_B] != 0)
#define WG_IN_F16(prob) ((prob)->opt[WG_OPT_INPUT] != 0)
#define WG_OUT_F32(prob) ((prob)->opt[WG_OPT_OUTPUT] == 0)

/* The buffers of a problem, in tn_family.buffers order. */
enum { WG_BUF_A, WG_BUF_B, WG_BUF_C };

/* The sizes of a point, as the template computes them (bytes unless
 * said): a stage of A (bm x bk) and of B (bn x bk), each consumer's
 * staging of C for epilogue 1 (bm / consumers rows by bn, C's type). */
typedef struct {
  int bm, bn, bk, consumers, stages, swizzle, producer, epilogue;
  int cm;         /* rows of a consumer: bm / consumers */
  int threads;    /* 128 per warpgroup */
  int out_bytes;  /* of C's elements: 4 or 2 */
  long long a_stage, b_stage, c_staging;
  long long smem_bytes; /* 1024 of alignment slack, the rings, the
                           staging, two mbarriers per stage */
  long long m, n, k, tiles;
} wg_geometry;

void tn_gemm_wg_geometry(const tn_params *p, const tn_problem *prob,
                         wg_geometry *g);
/* tn_family.plan of the family. */
void tn_gemm_wg_plan(const tn_params *p, const tn_problem *prob,
                     tn_access_sink *sink);

#endif

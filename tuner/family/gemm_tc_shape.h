/* gemm_tc_shape.h -- what the parts of the tensor-core GEMM family share
 * (private to tuner/family/gemm_tc*.c): the parameters' and options'
 * indices and the shape a point gives templates/gemm_tc.cu.  The parts,
 * each calling only those above it here:
 *
 *   gemm_tc_shape.c the shape of a point on a problem
 *   gemm_tc_plan.c  the shared-memory access plan the model prices
 *   gemm_tc.c       the family: parameters, rules, launch, defines,
 *                   buffers, problem options, units, baseline, check */
#ifndef TN_GEMM_TC_SHAPE_H
#define TN_GEMM_TC_SHAPE_H

#include "family/family.h"

enum {
  TC_BM,
  TC_BN,
  TC_BK,
  TC_WARP_M,
  TC_WARP_N,
  TC_STAGES,
  TC_EPILOGUE,
  TC_GROUP_M,
  TC_MIN_BLOCKS,
  TC_PAD_A,
  TC_PAD_B,
  TC_PAD_C,
  TC_SWIZZLE_A,
  TC_SWIZZLE_B,
  TC_N_PARAMS
};

/* The problem options, in the order of gemm_tc.c's table. */
enum {
  TC_OPT_TRANS_A,
  TC_OPT_TRANS_B,
  TC_OPT_ALPHA,
  TC_OPT_BETA,
  TC_OPT_INPUT,  /* choice: 0 bf16, 1 fp16 */
  TC_OPT_OUTPUT, /* choice: 0 f32, 1 the input type */
  TC_N_OPTIONS
};
#define TC_TRANS_A(prob) ((prob)->opt[TC_OPT_TRANS_A] != 0)
#define TC_TRANS_B(prob) ((prob)->opt[TC_OPT_TRANS_B] != 0)
#define TC_IN_F16(prob) ((prob)->opt[TC_OPT_INPUT] != 0)
#define TC_OUT_F32(prob) ((prob)->opt[TC_OPT_OUTPUT] == 0)

/* The buffers of a problem, in tn_family.buffers order. */
enum { TC_BUF_A, TC_BUF_B, TC_BUF_C };

/* One operand's shared tile per stage, in 2-byte elements.  It keeps the
 * operand's storage order: rows along the global rows, `width` elements
 * along the contiguous dimension (k when kcontig, else m or n). */
typedef struct {
  int kcontig;
  int rows, width, pad, elems; /* elems: rows * (width + pad) */
  int base;                    /* element offset of stage 0 */
  tn_swizzle sw;
} tc_operand;

typedef struct {
  int bm, bn, bk, warps_m, warps_n, wm, wn, mi, ni;
  int threads, stages, epilogue, pad_c, group_m;
  tc_operand op[2];
  long long ring_bytes;    /* the stages of both operands */
  long long staging_bytes; /* every warp's 16 x (wn + pad_c): floats for
                              epilogue 1, 16-bit elements for 2 */
  long long smem_bytes;    /* the larger: the staging reuses the ring */
  long long m, n, k;
} tc_geometry;

void tn_gemm_tc_geometry(const tn_params *p, const tn_problem *prob,
                         tc_geometry *g);
/* tn_family.plan of the family. */
void tn_gemm_tc_plan(const tn_params *p, const tn_problem *prob,
                     tn_access_sink *sink);

#endif

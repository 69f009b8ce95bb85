/* gemm_wg_shape.h -- what the parts of the wgmma GEMM family share
 * (private to tuner/family/gemm_wg*.c): the parameters' and options'
 * indices and the shape a point gives templates/gemm_wg.cu.  The parts,
 * each calling only those above it here:
 *
 *   gemm_wg_shape.c the shape of a point on a problem
 *   gemm_wg_plan.c  the threads' shared-memory accesses the model prices
 *   gemm_wg_rules.c which points and problems the kernels take, the
 *                   tensor maps
 *   gemm_wg.c       the family: parameters, options, launch, defines,
 *                   buffers, units, time model's view, baseline, check */
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
  WG_TILE_ORDER, /* added after results files were written */
  WG_MULTICAST,  /* added after results files were written */
  WG_PARTIALS,   /* added after results files were written */
  WG_PINGPONG,   /* added after results files were written */
  WG_PROMOTE_RUN, /* added after results files were written */
  WG_C_RING,      /* added after results files were written */
  WG_STREAM_K,    /* added after results files were written */
  WG_N_PARAMS
};

/* The problem options: the tensor-core GEMM's (gemm_tc.c), in its order,
 * then those of fp8 inputs (added after results files were written). */
enum {
  WG_OPT_TRANS_A,
  WG_OPT_TRANS_B,
  WG_OPT_ALPHA,
  WG_OPT_BETA,
  WG_OPT_INPUT,  /* choice: 0 bf16, 1 fp16, 2 e4m3, 3 e5m2 */
  WG_OPT_OUTPUT, /* choice: 0 f32, 1 the input type, 2 bf16 (fp8 only) */
  WG_OPT_SCALE_A,
  WG_OPT_SCALE_B,
  WG_OPT_FAST_ACCUM,
  WG_N_OPTIONS
};
#define WG_TRANS_A(prob) ((prob)->opt[WG_OPT_TRANS_A] != 0)
#define WG_TRANS_B(prob) ((prob)->opt[WG_OPT_TRANS_B] != 0)
#define WG_IN_F16(prob) ((prob)->opt[WG_OPT_INPUT] == 1)
#define WG_IN_FP8(prob) ((prob)->opt[WG_OPT_INPUT] >= 2)
#define WG_OUT_F32(prob) ((prob)->opt[WG_OPT_OUTPUT] == 0)
/* each k-tile's fp8 sums added into fp32 registers (gemm_ref.h) */
#define WG_PROMOTE(prob)                                                     \
  (WG_IN_FP8(prob) && (prob)->opt[WG_OPT_FAST_ACCUM] == 0)

/* The types of A and B, and of C. */
tn_elem_type tn_gemm_wg_in_type(const tn_problem *prob);
tn_elem_type tn_gemm_wg_out_type(const tn_problem *prob);

/* The buffers of a problem, in tn_family.buffers order: fp8 problems add
 * their scales (gemm_ref.h's TN_GEMM_BUF_SCALE_A, _B). */
enum { WG_BUF_A, WG_BUF_B, WG_BUF_C, WG_BUF_SCALE_A, WG_BUF_SCALE_B };

/* The sizes of a point, as the template computes them (bytes unless
 * said): a stage of A (bm x bk) and of B (bn x bk), each consumer's
 * staging of C for epilogue 1 (its rows by bn of C's type, or by c_ring
 * columns of c_col bytes), the grid. */
typedef struct {
  int bm, bn, bk, consumers, stages, swizzle, producer, epilogue;
  int pingpong;   /* 1: the consumers take whole tiles in turn */
  int cm;         /* rows of a consumer: bm / consumers (bm with
                     ping-pong) */
  int threads;    /* 128 per warpgroup */
  int in_bytes;   /* of A's and B's elements: 2, or 1 (fp8) */
  int out_bytes;  /* of C's elements: 4 or 2 */
  int kstep;      /* k of one wgmma: 16, or 32 (fp8) */
  int c_col;      /* bytes of a staged column of C: 128, or the widest
                     of 64 and 32 that divides a row of the tile (bn of
                     bf16 at 144: 288 bytes, 9 columns of 32) */
  int c_subs;     /* staged columns of a consumer's tile of C */
  int c_bufs;     /* epilogue 1's staging buffers of cm x c_col bytes a
                     consumer: c_subs, or c_ring's ring of them */
  int promote;    /* 1: each k-tile's sums added into fp32 registers */
  int partials;   /* promotion's sets of a k-tile's sums: 1 or 2 */
  long long a_stage, b_stage, c_staging;
  long long smem_bytes; /* 1024 of alignment slack, the rings, the
                           staging, two mbarriers per stage */
  int cluster;    /* blocks per cluster: 1, 2 or 4 */
  int multicast;  /* 0; 1: a cluster's blocks share B's k-tiles (tiles
                     along M), 2: A's (along N) */
  long long m, n, k, tiles;
  long long units; /* what the blocks walk: tiles, or with multicast a
                      cluster's `cluster` tiles (the grid padded) */
  long long computed; /* tiles computed: units x cluster with multicast */
  long long blocks;   /* the launch's: persistent, or one per tile
                         computed where there are fewer; whole clusters
                         (persistent -1: the most, the launch fits it to
                         the GPU) */
  /* stream_k (templates/gemm_wg_schedule.h): the units walked whole,
   * the k-tiles of the split units, the most a unit column takes of
   * them */
  int stream_k;
  long long dp_units, split_ktiles, split_busiest;
  long long workspace_block; /* bytes of workspace a block: its slot */
} wg_geometry;

void tn_gemm_wg_geometry(const tn_params *p, const tn_problem *prob,
                         wg_geometry *g);
/* The family's rules (gemm_wg_rules.c): tn_family.tensor_maps, .prepare
 * and .check_problem. */
int tn_gemm_wg_tensor_maps(const tn_family *fam, const tn_params *p,
                           const tn_problem *prob, tn_tmap_desc *out);
int tn_gemm_wg_prepare(const tn_family *fam, tn_params *p,
                       const tn_problem *prob, char *why, size_t n);
int tn_gemm_wg_check_problem(const tn_family *fam, const tn_problem *prob,
                             char *why, size_t n);
/* tn_family.plan of the family. */
void tn_gemm_wg_plan(const tn_params *p, const tn_problem *prob,
                     tn_access_sink *sink);

#endif

/* time.h -- a candidate's predicted time on one problem, from its launch,
 * its shared-memory wavefronts (model.h), what its family knows of its
 * work (global bytes, flops, the instructions a layout adds) and a device
 * profile (profile.h).
 *
 * A roofline with overlap, wave by wave: whole waves of the blocks the
 * SMs hold at once, then a last wave of the rest.  In each, every
 * resource's time at the profile's measured rate: the per-SM ones
 * (shared-memory wavefronts, fp32 FMA and the issue of every
 * instruction, tensor-core flops) for the blocks of the busiest SM, DRAM
 * for the wave's bytes, a block's barriers one after another; the
 * longest of them plus a share of the others that grows as fewer warps
 * (or independent streams of a warp) are resident to hide one behind
 * another; floored by a cp.async ring's loads.  The copy engine's boxes
 * are a per-SM resource too, at what the profile says a box of their
 * shape costs beyond its bytes.  Plus the launch.  A last wave of few
 * blocks thus costs what its busiest SM does, not a whole wave.  Occupancy is the CUDA toolkit's (cuda_occupancy.h). */
#ifndef TN_TIME_H
#define TN_TIME_H

#include "model/model.h"
#include "model/profile.h"

/* What a family knows of one launch beyond its shared-memory plan: the
 * work and the instructions that are not shared-memory accesses (those
 * the plan counts), in lane operations or warp instructions as named. */
typedef struct {
  double dram_bytes;   /* global bytes that reach DRAM, read + written */
  /* the bytes of the rows DRAM serves them in, far apart (a tiled
   * transpose's tile width); 0: long runs, the copy's bandwidth */
  double dram_row_bytes;
  /* where the written half's rows differ (a rectangular tile): their
   * bytes; 0: as dram_row_bytes */
  double dram_write_row_bytes;
  double fp32_flops;   /* fp32 FMA flops, 2 a lane an FMA */
  double tensor_flops; /* tensor-core flops of mma.sync */
  /* tensor-core flops of wgmma, 8-bit inputs' counted half (their rate is
   * twice bf16's): at the profile's dense-GEMM rate, or mma.sync's where
   * it has none */
  double wgmma_flops;
  double imad_ops;     /* lane ops of address arithmetic (IMAD, IADD) */
  double lop_ops;      /* lane ops of shifts and logic: swizzles (LOP3) */
  double other_insts;  /* other warp instructions: global loads and
                          stores, barriers, conversions, branches */
  int regs;            /* registers a thread, estimated before compile */
  /* global loads: bytes a thread has in flight at once (issued before
   * the first is used), and the bytes loaded in all; with the resident
   * threads they bound the bandwidth by Little's law */
  double bytes_in_flight, load_bytes;
  /* barriers a block crosses one after another (__syncthreads of a
   * k-tile loop): each costs the block TN_TIME_BARRIER_NS that only the
   * SM's other blocks can fill */
  double syncs;
  /* a ring of cp.async stages: the k-tiles a block walks and the stages
   * in flight ahead of the one it computes.  A k-tile takes at least
   * TN_TIME_RING_LATENCY_NS over those: the ring hides the loads'
   * latency behind the compute, not beside it (0: no ring) */
  double ring_ktiles, ring_ahead;
  /* independent streams of work a warp keeps in flight at once (a
   * register tile's loads of the next k-step beside the products of this
   * one): a scheduler with few warps still overlaps their resources.
   * 0 or 1: one stream, the warps alone hide each other's waits */
  double ilp;
  /* the copy engine's (TMA's) boxes of the launch, loads [0] and stores
   * [1]: how many in all, their rows and the bytes of a row.  The SM
   * that issues them waits for its engine: each costs what the profile
   * says a box of its shape takes beyond its bytes
   * (tn_profile_tma_excess_ns; the bytes are DRAM's term), a per-SM
   * resource like shared memory.  0 boxes: none, or a profile without
   * them */
  double tma_boxes[TN_PROFILE_TMA_OPS], tma_box_rows[TN_PROFILE_TMA_OPS];
  double tma_row_bytes[TN_PROFILE_TMA_OPS];
} tn_time_work;

typedef enum {
  TN_BOUND_SMEM,
  TN_BOUND_DRAM,
  TN_BOUND_FMA,
  TN_BOUND_TENSOR,
  TN_BOUND_ISSUE,
  TN_BOUND_SYNC,
  TN_BOUND_RING,
  TN_BOUND_TMA,
  TN_BOUND_LAUNCH,
  TN_N_BOUNDS
} tn_bound;

/* One launch of a candidate on one problem. */
typedef struct {
  long long blocks;
  int threads, smem_static, smem_dynamic;
  int regs;            /* compiled, or 0: work.regs (the estimate) */
  const tn_model_cost *smem;
  tn_time_work work;
} tn_time_input;

typedef struct {
  double ms, lo_ms, hi_ms;
  tn_bound bound;
  double term_ms[TN_N_BOUNDS]; /* each resource's time alone */
  int blocks_per_sm;           /* cuda_occupancy.h's */
  double waves;                /* blocks over the resident slots */
} tn_time_pred;

/* The model's own relative error on one prediction, either side, beyond
 * the profile's spreads: what the committed H200 runs showed between
 * siblings (docs/notes/time-model.md has the figures of this constant
 * and of those below). */
#define TN_TIME_MODEL_ERR 0.12

/* The time a thread's loads stay in flight, in ns, for Little's law: an
 * effective figure (the DRAM latency under load, and a block's barrier
 * between its loads and its stores) that calibrate does not measure,
 * fitted on the H200 transpose. */
#define TN_TIME_DRAM_LATENCY_NS 3000.0

/* The time a k-tile's copies of a cp.async ring stay in flight, in ns:
 * the loads' latency under a GEMM's load, which calibrate does not
 * measure; read off H200 GEMMs whose blocks have an SM to themselves and
 * wait for their ring. */
#define TN_TIME_RING_LATENCY_NS 1100.0

/* How the ring's floor and the compute combine: their p-norm at this p,
 * the longer of the two plus a little of the other as they near each
 * other (infinity: the longer alone); fitted by the replay of the H200
 * runs (scripts/replay_measured.py). */
#define TN_TIME_RING_SOFTNESS 6.0

/* The time a block's warps stand at one barrier of a k-tile loop, in ns:
 * the last warp's shared-memory stores and loads to drain and the next
 * k-tile's first loads to issue.  An effective figure that calibrate does
 * not measure, fitted on the H200 SIMT GEMM. */
#define TN_TIME_BARRIER_NS 400.0

/* The least share of the other resources' times that shows beside the
 * longest, however many warps an SM has: a block's phases (its loads,
 * then its shared-memory traffic, then its stores) overlap with other
 * blocks' only in part; fitted on the H200 transposes. */
#define TN_TIME_OVERLAP_MIN 0.5

/* Resident blocks per SM by cudaOccMaxActiveBlocksPerMultiprocessor for
 * arch (the device limits from the architecture table, the SM count from
 * sms); 0 if none fits. */
int tn_time_occupancy(const tn_arch *arch, int sms, int threads, int regs,
                      int smem_static, int smem_dynamic);
/* The same, and what limits it (cudaOccResult's limiting factors, the
 * first of "threads", "blocks", "shared memory", "registers", "barriers";
 * "nothing fits" when 0). */
int tn_time_occupancy_why(const tn_arch *arch, int sms, int threads,
                          int regs, int smem_static, int smem_dynamic,
                          const char **limited_by);

/* Predicts in into out for arch and profile p.  Always fills out; a
 * launch that cannot be resident is predicted as one block an SM. */
void tn_time_predict(const tn_time_input *in, const tn_arch *arch,
                     const tn_profile *p, tn_time_pred *out);

/* Sums per-problem predictions as the results sum medians: ms, lo and hi
 * add, the bound is the one of the longest problem. */
void tn_time_sum(const tn_time_pred *per, int n, tn_time_pred *total);

/* "smem", "dram", "fma", "tensor", "issue", "sync", "ring", "tma",
 * "launch". */
const char *tn_bound_name(tn_bound b);

#endif

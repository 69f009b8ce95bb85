/* profile.h -- a device profile: what `tuner calibrate` measured on one
 * GPU, the figures a time model needs, each with its unit, its spread
 * and the method that measured it; written as JSON (results/devices/)
 * and as a summary for people. */
#ifndef TN_CALIB_PROFILE_H
#define TN_CALIB_PROFILE_H

#include <stdio.h>

#include "calibrate/kernels.h"
#include "base/util.h"
#include "model/profile.h"

#define TN_CALIB_N_WIDTHS 3 /* 4, 8 and 16 bytes */
#define TN_CALIB_SCHEMA "tuner-device-profile/1"

/* Median, quartiles, min and max of the repetitions, in a unit. */
typedef struct {
  double median, q1, q3, min, max;
  int reps;
} tn_calib_stat;

/* Sorts v (n values, in the stat's unit) and takes its figures. */
void tn_calib_stat_from(double *v, int n, tn_calib_stat *s);

/* One scalar measurement. */
typedef struct {
  const char *key;    /* its JSON key, "global_copy" */
  const char *unit;   /* "GB/s" */
  const char *method; /* how, in a sentence or two */
  int measured;       /* 0: not measured, skipped says why */
  char skipped[256];
  tn_calib_stat stat;
  double work;        /* bytes, flops or operations of one repetition */
} tn_calib_metric;

/* One stride of the sweep, at one width. */
typedef struct {
  int stride;
  int predicted_wavefronts, predicted_degree;
  double predicted_ratio;          /* against stride 1, from the model */
  tn_calib_stat warp_cycles;       /* one warp: SM cycles per load */
  tn_calib_stat sm_ns;             /* many warps: ns per load per SM */
  tn_calib_stat sm_cycles;         /* the same in SM cycles (clock64,
                                      each SM's span, median of SMs) */
  /* medians against stride 1: one warp's cycles, many warps' cycles
   * (clock64) and many warps' event time (which carries the launch) */
  double warp_ratio, sm_ratio, sm_ns_ratio;
} tn_calib_stride;

typedef struct {
  int width;         /* bytes a lane */
  int blocks_per_sm; /* of the many-warps launch: as many as fit */
  int most_blocks_seen; /* the most that one SM ran, over its launches */
  tn_calib_stride s[TN_CALIB_MAX_STRIDE];
  /* least-squares slope of time per load over predicted wavefronts:
   * the time one wavefront adds */
  double warp_cycles_per_wavefront;
  double sm_ns_per_wavefront, sm_cycles_per_wavefront;
} tn_calib_width;

typedef struct {
  /* the device, from cuDeviceGetAttribute */
  char name[128], arch[16], pci_bus_id[32];
  int ordinal, cc_major, cc_minor, sm_count;
  int clock_khz, mem_clock_khz, bus_width_bits;
  int l2_bytes, smem_per_sm, smem_per_block_optin;
  int max_threads_per_sm, regs_per_sm, warp_size;
  long long total_mem;
  /* the run */
  char driver[16], nvrtc[16], version[32], date[32], host[256];
  char command[4096];
  int repetitions, warmup;
  /* measurements */
  tn_calib_metric clock;       /* MHz, clock64 against events */
  tn_calib_metric launch;      /* us a launch, back to back */
  tn_calib_metric copy;        /* GB/s, a copy kernel */
  tn_calib_metric memcpy_dtod; /* GB/s, cuMemcpyDtoDAsync */
  /* GB/s, tn_cal_copy_tiles with rows of 64, 128, 256, 512 bytes */
  tn_calib_metric tiles[TN_CALIB_N_TILE_ROWS];
  /* ns a box an SM, the copy engine's boxes by op, row bytes and rows
   * (model/profile.h's TN_PROFILE_TMA_*) */
  tn_calib_metric tma[TN_PROFILE_TMA_OPS][TN_PROFILE_TMA_N_WIDTHS]
                     [TN_PROFILE_TMA_N_ROWS];
  char tma_keys[TN_PROFILE_TMA_OPS][TN_PROFILE_TMA_N_WIDTHS]
               [TN_PROFILE_TMA_N_ROWS][32];
  tn_calib_metric fma;         /* TFLOP/s */
  tn_calib_metric imad;        /* Gop/s */
  tn_calib_metric shift_lop3;  /* Gop/s */
  tn_calib_metric mma_bf16;    /* TFLOP/s, mma.sync */
  tn_calib_metric cublas_bf16; /* TFLOP/s, cublasGemmEx */
  /* the stride sweep */
  const char *smem_method;
  int smem_loads;         /* loads a thread, each launch */
  tn_calib_width smem[TN_CALIB_N_WIDTHS];
} tn_calib_profile;

/* Zeroes p and names its metrics (keys, units, methods). */
void tn_calib_profile_init(tn_calib_profile *p);

/* The metrics of p in the order they are written into out (at most
 * TN_CALIB_MAX_METRICS); returns their number. */
#define TN_CALIB_MAX_METRICS 32
int tn_calib_metrics(const tn_calib_profile *p,
                     const tn_calib_metric *out[TN_CALIB_MAX_METRICS]);

/* The keys every profile has at its top level, NULL-terminated; the
 * tests check a written profile against them. */
extern const char *const tn_calib_required_keys[];

/* Writes p as JSON to path, atomically.  Returns 0 or TN_ETOOL. */
int tn_calib_write(const tn_calib_profile *p, const char *path,
                   tn_err *err);

/* The summary for people: device, each metric, the sweep's table. */
void tn_calib_print(const tn_calib_profile *p, FILE *out);

#endif

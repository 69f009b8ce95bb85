/* profile.h -- the device profile a time model reads: the figures of a
 * `tuner calibrate` JSON (results/devices/), or a profile derived for an
 * architecture nobody measured, from the architecture table's vendor
 * figures scaled by what was measured on another GPU. */
#ifndef TN_PROFILE_H
#define TN_PROFILE_H

#include "base/arch.h"
#include "base/util.h"

#define TN_PROFILE_SCHEMA "tuner-device-profile/1"
#define TN_PROFILE_DIR "results/devices"

/* The tile row lengths of a profile's tiled copies, in bytes. */
#define TN_PROFILE_N_TILE_ROWS 4
#define TN_PROFILE_TILE_ROWS {64, 128, 256, 512}

/* The copy engine's (TMA's) boxes a profile measures: loads and stores,
 * rows of these many bytes, these many rows a box. */
#define TN_PROFILE_TMA_OPS 2 /* 0 load into shared memory, 1 store */
#define TN_PROFILE_TMA_N_WIDTHS 4
#define TN_PROFILE_TMA_WIDTHS {32, 64, 128, 256}
#define TN_PROFILE_TMA_N_ROWS 2
#define TN_PROFILE_TMA_ROWS {8, 64}

/* One measured rate or time: its median and the quartiles around it. */
typedef struct {
  double mid, lo, hi;
} tn_range;

typedef struct {
  char path[4096];        /* the file read; "" when derived */
  char arch[16];          /* "sm_90" */
  char device[128];       /* "NVIDIA H200", or the reference product */
  int derived;            /* 1: built by tn_profile_derive */
  char derived_from[2048]; /* what, in a sentence */
  int sm_count;
  tn_range clock_mhz;     /* SM clock under load */
  tn_range launch_us;     /* one launch, back to back */
  tn_range copy_gbs;      /* global memory, read + written */
  /* the same moved as a tiled transpose moves it, by square tiles whose
   * rows are TN_PROFILE_TILE_ROWS bytes long; mid 0: not measured */
  tn_range tile_copy_gbs[TN_PROFILE_N_TILE_ROWS];
  /* ns one box of the copy engine takes an SM, by op, row bytes and
   * rows (TN_PROFILE_TMA_*), with its data in L2; mid 0: not measured */
  tn_range tma_box_ns[TN_PROFILE_TMA_OPS][TN_PROFILE_TMA_N_WIDTHS]
                     [TN_PROFILE_TMA_N_ROWS];
  tn_range fma_tflops;    /* fp32 FMA */
  tn_range imad_gops;     /* integer multiply-add (address arithmetic) */
  tn_range lop3_gops;     /* shifts and logic (swizzle arithmetic) */
  tn_range mma_tflops;    /* mma.sync bf16; mid 0: none */
  /* a dense GEMM's tensor rate, cublasGemmEx bf16 at 4096^3: wgmma's on
   * sm_90, where mma.sync reaches about 80 % of it; mid 0: none */
  tn_range gemm_tflops;
  /* SM cycles one shared-memory wavefront takes with many warps, for
   * accesses of 4, 8 and 16 bytes */
  double smem_cycles_per_wavefront[3];
  /* theoretical peaks of the measured GPU from its own attributes, to
   * scale a derived profile by (0 when unknown) */
  double peak_dram_gbs;
} tn_profile;

/* DRAM bandwidth, as a share of the copy's, when the traffic comes in
 * rows of row_bytes (a tiled kernel's tile width): the measured tiled
 * copies against the copy, log-linear between the lengths measured, the
 * nearest beyond them, at most 1; 1 when row_bytes is 0 or the profile
 * has no tiled copies (a profile has all of them or none: the reader
 * refuses some). */
double tn_profile_row_share(const tn_profile *p, double row_bytes);

/* The measurements key of the tiled copy whose rows are the k-th of
 * TN_PROFILE_TILE_ROWS bytes long: "global_tiles_64".  The writer
 * (calibrate/profile.c) and the reader share it. */
const char *tn_profile_tile_key(int k);

/* The measurements key of the copy engine's box of op (0 load, 1
 * store), width index w and rows index r: "tma_load_8x32B".  The writer
 * (calibrate/profile.c) and the reader share it. */
void tn_profile_tma_key(int op, int w, int r, char *out, size_t n);

/* ns the copy engine takes an SM for one box of op with rows of
 * row_bytes and `rows` rows, at the profile's end (0 median, +1 fast, -1
 * slow): linear in the rows through the two measured (a box's fixed cost
 * and its rows'), log-linear in the row bytes between the widths
 * measured, the narrowest's below them, the widest's time a byte above.  0 when the profile has none (not
 * measured, or before sm_90). */
double tn_profile_tma_box_ns(const tn_profile *p, int op, double row_bytes,
                             double rows, int end);

/* What one box of that shape costs the SM beyond its bytes: its time
 * less its bytes at the least ns a byte any measured box of op took (a
 * wide one's: the path to L2's own rate, which a DRAM-bound kernel pays
 * in its DRAM time already), at least 0.  This is the copy
 * engine's cost of a narrow box, a row a request: what a swizzle's span
 * decides.  0 when the profile has none. */
double tn_profile_tma_excess_ns(const tn_profile *p, int op,
                                double row_bytes, double rows, int end);

/* Reads a calibrate profile.  Returns 0, or TN_EINPUT with the file and
 * the key that is missing or wrong in err (a profile is the user's
 * input: exit 2 before any work). */
int tn_profile_read(const char *path, tn_profile *out, tn_err *err);

/* The newest profile for arch in dir (files <arch>-*.json, the greatest
 * name: their names end in the date), or with arch NULL the newest of
 * any architecture.  Returns 1 with its path in out, 0 if none. */
int tn_profile_find(const char *dir, const char *arch, char *out, size_t n);

/* A profile for arch from the architecture table's vendor figures, each
 * scaled by the ratio of measured to theoretical on the measured profile
 * from (NULL: none; the vendor figures stand unscaled, at a wider
 * uncertainty).  Always succeeds; out->derived_from says how. */
void tn_profile_derive(const tn_arch *arch, const tn_profile *from,
                       tn_profile *out);

/* The profile a run on arch uses: path if given (read, errors as
 * tn_profile_read), else the newest measured one for arch in dir, else
 * one derived from the newest measured one of any architecture there,
 * else derived from the vendor figures alone.  Returns 0 or TN_EINPUT. */
int tn_profile_for(const char *path, const char *dir, const tn_arch *arch,
                   tn_profile *out, tn_err *err);

#endif

/* kernels.h -- the CUDA source of `tuner calibrate`'s microbenchmarks.
 *
 * One NVRTC source holds every kernel (tn_calib_kernel_names); each one
 * writes a result that depends on all the work it timed, so that neither
 * NVRTC nor ptxas can drop that work.  The tensor-core kernel is empty
 * below sm_80 (no mma.sync m16n8k16 there); the host does not time it
 * there. */
#ifndef TN_CALIB_KERNELS_H
#define TN_CALIB_KERNELS_H

/* Bytes of the shared buffer the stride sweep reads: lane 31 at the
 * widest access (16 bytes) and the largest stride reads byte
 * 31 * 64 * 16 + 15 = 31759, inside it. */
#define TN_CALIB_SMEM_BYTES 32768
#define TN_CALIB_MAX_STRIDE 64
/* Threads of a block of the many-warps sweep and of the throughput
 * kernels. */
#define TN_CALIB_BLOCK 256
/* Independent chains per thread in the FMA and integer kernels, and
 * accumulators per warp in the mma kernel; the steps per loop iteration
 * of the FMA and integer kernels (the source writes them out). */
#define TN_CALIB_CHAINS 8
#define TN_CALIB_MMA_CHAINS 8
#define TN_CALIB_UNROLL 4
/* The tiled copy (tn_cal_copy_tiles): a square matrix of this many
 * floats a side, moved in square tiles whose rows are 64, 128, 256 and
 * 512 bytes long (tuner/model/profile.h's TN_PROFILE_TILE_ROWS). */
#define TN_CALIB_TILES_SIDE 8192
#define TN_CALIB_N_TILE_ROWS 4

extern const char tn_calib_kernel_source[];

/* Every kernel of the source, NULL-terminated. */
extern const char *const tn_calib_kernel_names[];

#endif

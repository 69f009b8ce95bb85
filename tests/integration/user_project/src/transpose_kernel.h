/* transpose_kernel.h -- the host side of transpose_kernel.cu: the shipped
 * transpose template, compiled with the dispatch header's parameters. */
#ifndef USER_TRANSPOSE_KERNEL_H
#define USER_TRANSPOSE_KERNEL_H

#include "common.h"
#include "transpose_dispatch.h"

/* What the kernel's code for the current device was compiled with, as that
 * code reports it from its TN_ macros. */
typedef struct {
  int cuda_arch;   /* __CUDA_ARCH__ (900 for sm_90) */
  int config_arch; /* TRANSPOSE_CONFIG_ARCH (90; 0: the portable default) */
  int tile, rows_per_thread, vec, pad, swizzle_b, swizzle_m, swizzle_s;
  int group;
} transpose_built;

/* Fills *b from the kernel itself and *attr from cudaFuncGetAttributes(). */
void transpose_query(transpose_built *b, cudaFuncAttributes *attr);

/* The launch shape of configuration c on a rows x cols matrix. */
void transpose_shape(const transpose_config *c, int rows, int cols,
                     launch_shape *s);

/* out (cols x rows) = in (rows x cols) transposed, launched with shape s
 * (of the configuration compiled in), and waits for it. */
void transpose_run(const launch_shape *s, const float *in, float *out,
                   int rows, int cols);

#endif

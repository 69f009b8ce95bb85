/* transpose_kernel.cu -- the tuner's transpose template, built with the
 * parameters of the generated dispatch header.
 *
 * With TUNER_TEMPLATE_MACROS defined, the dispatch header defines, in the
 * code nvcc compiles for each architecture, every TN_ macro the template
 * needs, from that architecture's entry (else the nearest older one's,
 * else the portable default).  So this one file builds, for every
 * architecture in CMAKE_CUDA_ARCHITECTURES, the configuration tuned for
 * it.  The host code below launches whichever the device runs. */
#define TUNER_TEMPLATE_MACROS
#include "transpose_dispatch.h"
#include "transpose.cu" /* the shipped template, from TUNER_TEMPLATE_DIR */

#include "transpose_kernel.h"

/* What the code running on this device was compiled with. */
extern "C" __global__ void transpose_built_probe(transpose_built *b)
{
#if defined(__CUDA_ARCH__)
  b->cuda_arch = __CUDA_ARCH__;
  b->config_arch = TRANSPOSE_CONFIG_ARCH;
  b->tile = TN_TILE;
  b->rows_per_thread = TN_ROWS_PER_THREAD;
  b->vec = TN_VEC;
  b->pad = TN_PAD;
  b->swizzle_b = TN_SWIZZLE_B;
  b->swizzle_m = TN_SWIZZLE_M;
  b->swizzle_s = TN_SWIZZLE_S;
  b->group = TN_GROUP;
#else
  (void)b;
#endif
}

void transpose_query(transpose_built *b, cudaFuncAttributes *attr)
{
  transpose_built *d;
  CK(cudaFuncGetAttributes(attr, transpose));
  CK(cudaMalloc(&d, sizeof(*d)));
  CK(cudaMemset(d, 0, sizeof(*d)));
  transpose_built_probe<<<1, 1>>>(d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(b, d, sizeof(*b), cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
}

/* The user's side: the launch shape follows from the parameters by the
 * template's rules, which the tuner's family writes the same way
 * (launch() in tuner/family/transpose.c).  A block of tile / vec x
 * tile / rows_per_thread threads moves one tile x tile tile; the grid is
 * one-dimensional, one block per tile. */
void transpose_shape(const transpose_config *c, int rows, int cols,
                     launch_shape *s)
{
  long long tiles_r = (rows + c->tile - 1) / c->tile;
  long long tiles_c = (cols + c->tile - 1) / c->tile;
  s->block = dim3(c->tile / c->vec, c->tile / c->rows_per_thread, 1);
  s->grid = dim3((unsigned)(tiles_r * tiles_c), 1, 1);
  s->threads = (int)(s->block.x * s->block.y);
  /* the threads' tile is extern: the padded tile's bytes at launch */
  s->smem_static = 0;
  s->smem_dynamic = (size_t)c->tile * (c->tile + c->pad) * sizeof(float);
}

void transpose_run(const launch_shape *s, const float *in, float *out,
                   int rows, int cols)
{
  /* past 48 KiB a kernel takes dynamic shared memory only when allowed */
  if (s->smem_dynamic > 48 * 1024)
    CK(cudaFuncSetAttribute(transpose,
                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)s->smem_dynamic));
  transpose<<<s->grid, s->block, s->smem_dynamic>>>(in, out, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
}

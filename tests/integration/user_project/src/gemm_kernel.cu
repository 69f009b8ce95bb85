/* gemm_kernel.cu -- the tuner's GEMM template, built with the parameters
 * of the generated dispatch header (see transpose_kernel.cu: the same
 * TUNER_TEMPLATE_MACROS scheme).  The problem's defines come with them:
 * TN_TRANS_A and TN_TRANS_B (the storage of A and B the results were
 * tuned for), TN_THREADS, TN_DYNAMIC_SMEM, ... */
#define TUNER_TEMPLATE_MACROS
#include "gemm_dispatch.h"
#include "gemm.cu" /* the shipped template, from TUNER_TEMPLATE_DIR */

#include "gemm_kernel.h"

/* What the code running on this device was compiled with. */
extern "C" __global__ void gemm_built_probe(gemm_built *b)
{
#if defined(__CUDA_ARCH__)
  b->cuda_arch = __CUDA_ARCH__;
  b->config_arch = GEMM_CONFIG_ARCH;
  b->kernel = TN_KERNEL;
  b->bm = TN_BM;
  b->bn = TN_BN;
  b->bk = TN_BK;
  b->tm = TN_TM;
  b->tn = TN_TN;
  b->lanes_m = TN_LANES_M;
  b->a_kmajor = TN_A_KMAJOR;
  b->b_kmajor = TN_B_KMAJOR;
  b->pipeline = TN_PIPELINE;
  b->min_blocks = TN_MIN_BLOCKS;
  b->pad_a = TN_PAD_A;
  b->pad_b = TN_PAD_B;
  b->swizzle_a_b = TN_SWIZZLE_A_B;
  b->swizzle_a_m = TN_SWIZZLE_A_M;
  b->swizzle_a_s = TN_SWIZZLE_A_S;
  b->swizzle_b_b = TN_SWIZZLE_B_B;
  b->swizzle_b_m = TN_SWIZZLE_B_M;
  b->swizzle_b_s = TN_SWIZZLE_B_S;
  b->trans_a = TN_TRANS_A;
  b->trans_b = TN_TRANS_B;
  b->threads = TN_THREADS;
  b->dynamic_smem = TN_DYNAMIC_SMEM;
#else
  (void)b;
#endif
}

void gemm_query(gemm_built *b, cudaFuncAttributes *attr)
{
  gemm_built *d;
  CK(cudaFuncGetAttributes(attr, gemm));
  CK(cudaMalloc(&d, sizeof(*d)));
  CK(cudaMemset(d, 0, sizeof(*d)));
  gemm_built_probe<<<1, 1>>>(d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(b, d, sizeof(*b), cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
}

/* The user's side: the launch shape follows from the parameters by the
 * template's rules, which the tuner's family writes the same way
 * (launch() and tn_gemm_geometry() in tuner/family/gemm.c).  blockIdx.x
 * walks the N tiles, blockIdx.y the M tiles.  The textbook kernel
 * (kernel 0) has TILE x TILE threads, TILE = bm, and one TILE x TILE tile
 * of A and of B in shared memory; the register-tiled one (kernel 1) has
 * bm / tm x bn / tn threads in one dimension and, per stage (two when
 * pipelined), a bm x bk tile of A and a bk x bn tile of B, each stored
 * k-major (rows of k) or not, every row padded.  Over 48 KiB, the shared
 * memory is dynamic. */
void gemm_shape(const gemm_config *c, int M, int N, int K, launch_shape *s)
{
  size_t floats;
  (void)K;
  if (c->kernel == 0) {
    int t = c->bm;
    s->grid = dim3((N + t - 1) / t, (M + t - 1) / t, 1);
    s->block = dim3(t, t, 1);
    s->threads = t * t;
    floats = (size_t)t * (t + c->pad_a) + (size_t)t * (t + c->pad_b);
  } else {
    int stages = c->pipeline ? 2 : 1;
    size_t a = c->a_kmajor ? (size_t)c->bk * (c->bm + c->pad_a)
                           : (size_t)c->bm * (c->bk + c->pad_a);
    size_t b = c->b_kmajor ? (size_t)c->bk * (c->bn + c->pad_b)
                           : (size_t)c->bn * (c->bk + c->pad_b);
    s->grid = dim3((N + c->bn - 1) / c->bn, (M + c->bm - 1) / c->bm, 1);
    s->threads = (c->bm / c->tm) * (c->bn / c->tn);
    s->block = dim3(s->threads, 1, 1);
    floats = stages * (a + b);
  }
  if (floats * sizeof(float) > 48 * 1024) {
    s->smem_static = 0;
    s->smem_dynamic = floats * sizeof(float);
  } else {
    s->smem_static = floats * sizeof(float);
    s->smem_dynamic = 0;
  }
}

void gemm_run(const launch_shape *s, const float *A, const float *B,
              float *C, int M, int N, int K, float alpha, float beta)
{
  if (s->smem_dynamic > 0)
    CK(cudaFuncSetAttribute(gemm,
                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)s->smem_dynamic));
  gemm<<<s->grid, s->block, s->smem_dynamic>>>(A, B, C, M, N, K, alpha,
                                               beta);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
}

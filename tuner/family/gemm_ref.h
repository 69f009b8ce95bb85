/* gemm_ref.h -- the check the GEMM families share (gemm_check.c): a fp64
 * reference on the GPU for C = alpha * op(A) * op(B) + beta * C with
 * inputs and output of any tn_elem_type, and an element accepted when
 *
 *     |c - ref| <= ((K + 2) * u_acc + u_out) * absref,
 *     absref = |alpha| * sum |a||b| + |beta| |c0|,
 *
 * the bound of an accumulation whose every step errs by at most u_acc
 * relative to the magnitudes summed (fp32 round-to-nearest: 2^-24; the
 * tensor cores' truncating fp32 adds: 2^-23), plus one rounding to the
 * output type (u_out: 0 for fp32 out of fp32 sums, 2^-8 bf16, 2^-11 fp16).
 * The products of bf16, fp16, fp32 or fp8 inputs are exact in fp64, so
 * the reference is the exact sum up to fp64 rounding.
 *
 * fp8 (e4m3, e5m2: the wgmma family) is bounded otherwise, since Hopper's
 * fp8 tensor cores do not accumulate in fp32: they keep 13 fraction bits
 * (an e8m13 accumulator, truncated; DeepSeek-V3's report measured "around
 * 14 bits", the PyTorch team and Khattak & Mikaitis, "Accurate Models of
 * NVIDIA Tensor Cores", 2025, 13).  Within one wgmma chain, then, a sum
 * is exact while every magnitude it holds is below 2^14 units of the grid
 * its terms lie on, and may lose up to 2^-13 of the largest magnitude at
 * each term otherwise.  The inputs are the generator's (family.h,
 * tn_random_elem): 0, +-1/8, +-1/4, whose products are multiples of 2^-6
 * of at most 2^-4, so a sum of them holds multiples of 2^-6 no larger than
 * sum |a||b|; exact while that is below 2^8.  Hence, with C = alpha *
 * scale_a * scale_b * A B + beta C:
 *
 *   promoted (fast_accum off; the kernel adds each k-tile's chain, at most
 *   128 products and so at most 8 in magnitude, into fp32 registers, as
 *   cuBLASLt does with CUBLASLT_MATMUL_DESC_FAST_ACCUM 0): every chain is
 *   exact; the fp32 adds of the chains, ceil(K/32) at most (bk >= 32),
 *   round by 2^-24 of the running magnitude each; alpha, scale_a, scale_b
 *   and beta rounded to fp32, alpha * scale_a * scale_b, its product with
 *   the sum, beta * c0 and the add: 8 roundings, 2^-21 together; then C's
 *   rounding (u_out).  rel = ceil(K/32) 2^-24 + 2^-21 + u_out.
 *   fast (fast_accum on: one chain over all of K, no fp32 adds):
 *   rel = 2^-21 + u_out where sum |a||b| < 2^8 (exact), and where it is
 *   not, rel_far = (K + 2 ceil(K/32)) 2^-13 more: each of K products and
 *   ceil(K/32) incoming accumulators truncated by 2^-13 of the magnitudes
 *   summed, and each k32 instruction's result once more.
 *
 * A check of the promoted kernels, then, is as strict as the fp32
 * rounding allows, and so is a fast one while sum |a||b| < 2^8: at K =
 * 4096 and 8192 the generator's sums are about 92 and 184 (E|ab| = 1.44 /
 * 64).  The promoted chains need 9 bits of the model's 13 (a sum of at
 * most 8 on a grid of 2^-6), so the bound leans on the model only as far
 * as that; where it does not hold, the check fails rather than passes. */
#ifndef TN_GEMM_REF_H
#define TN_GEMM_REF_H

#include "family/family.h"

typedef struct {
  tn_elem_type in, out; /* A and B; C */
  int buf_a, buf_b, buf_c; /* the buffers' indices */
  int trans_a, trans_b;
  double alpha, beta;
  double u_acc, u_out;
  /* More of the bound (0 for the families that accumulate in fp32):
   * u_fixed relative to absref for every element, and u_far more where
   * sum |a||b| reaches exact_below (the fp8 tensor cores' sums, exact
   * below it). */
  double u_fixed, u_far, exact_below;
  const char *bound_text; /* the bound, for the message */
} tn_gemm_check_spec;

/* tn_family.verify (and verify_device: it reads no host buffer when the
 * worker keeps none) with spec c.  0 right, 1 wrong (why), -1 the check
 * could not run. */
int tn_gemm_check(tn_verify_env *env, const tn_gemm_check_spec *c,
                  char *why, size_t n);
/* The buffers of a GEMM of m x k A, k x n B and m x n C (A, B and C at
 * indices 0, 1, 2 of out, as the 16-bit families number them), A and B
 * of type in, C of type out; C is read (TN_BUF_INOUT) only when beta is
 * not 0: with beta 0 it is poisoned with NaN, and a read shows.  Returns
 * the count, 3 (tn_family.buffers). */
int tn_gemm_buffers(const tn_problem *prob, tn_elem_type in,
                    tn_elem_type out_type, double beta, tn_buffer_desc *out);
/* A GEMM on the tensor cores (gemm_tc, gemm_wg), as its family reads it
 * from its problem options; its buffers as tn_gemm_buffers lays them,
 * and for fp8 inputs the scales after them: one fp32 each, which the
 * kernel and cuBLASLt read from device memory. */
typedef struct {
  tn_elem_type in, out; /* A and B; C */
  int trans_a, trans_b;
  double alpha, beta;
  /* fp8: scale_a * scale_b (each as fp32 holds it), and 1 when each
   * k-tile's sums are not added into fp32 registers but accumulate on in
   * the tensor cores (gemm_ref.h above) */
  double scale;
  int fast_accum;
} tn_gemm_tc_problem;
#define TN_GEMM_BUF_SCALE_A 3
#define TN_GEMM_BUF_SCALE_B 4

/* 1 if t is an 8-bit float (e4m3, e5m2). */
int tn_gemm_is_fp8(tn_elem_type t);
/* tn_family.verify of such a GEMM: tn_gemm_check with the tensor cores'
 * bound (u_acc 2^-23: their fp32 adds truncate) and one rounding to a
 * 16-bit C; for fp8 inputs, the bound above. */
int tn_gemm_tc_verify(tn_verify_env *env, const tn_gemm_tc_problem *g,
                      char *why, size_t n);
/* tn_family.baseline of such a GEMM: "cublas", cublasGemmEx with the same
 * types and fp32 compute, or for fp8 inputs cuBLASLt's matmul with the
 * same types, scales and accumulation (env->gemm_fp8); family names it in
 * the message for another name. */
int tn_gemm_tc_baseline(const char *family, const char *name,
                        tn_baseline_env *env, const tn_gemm_tc_problem *g,
                        char *why, size_t n);
/* The reference kernels (tn_family.reference_source of both families). */
extern const char tn_gemm_reference_source[];

#endif

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
 * The products of bf16, fp16 or fp32 inputs are exact in fp64, so the
 * reference is the exact sum up to fp64 rounding. */
#ifndef TN_GEMM_REF_H
#define TN_GEMM_REF_H

#include "family/family.h"

typedef struct {
  tn_elem_type in, out; /* A and B; C */
  int buf_a, buf_b, buf_c; /* the buffers' indices */
  int trans_a, trans_b;
  double alpha, beta;
  double u_acc, u_out;
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
 * from its problem options; its buffers as tn_gemm_buffers lays them. */
typedef struct {
  tn_elem_type in, out; /* A and B; C */
  int trans_a, trans_b;
  double alpha, beta;
} tn_gemm_tc_problem;

/* tn_family.verify of such a GEMM: tn_gemm_check with the tensor cores'
 * bound (u_acc 2^-23: their fp32 adds truncate) and one rounding to a
 * 16-bit C. */
int tn_gemm_tc_verify(tn_verify_env *env, const tn_gemm_tc_problem *g,
                      char *why, size_t n);
/* tn_family.baseline of such a GEMM: "cublas", cublasGemmEx with the same
 * types and fp32 compute; family names it in the message for another
 * name. */
int tn_gemm_tc_baseline(const char *family, const char *name,
                        tn_baseline_env *env, const tn_gemm_tc_problem *g,
                        char *why, size_t n);
/* The reference kernels (tn_family.reference_source of both families). */
extern const char tn_gemm_reference_source[];

#endif

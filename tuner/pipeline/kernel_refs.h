/* kernel_refs.h -- a described kernel's reference and baseline, compiled
 * for the run's architecture.
 *
 * The reference is another kernel of the user's, or the space's default
 * point (its first valid one) run once per problem; the baseline, when it
 * is a kernel, is another kernel of the user's.  Each is rendered with the
 * default point's macros (a file that needs the parameters compiles) and
 * launched with the default point's values: the worker runs it on the
 * problem's inputs and keeps its outputs (gpu/bench.h). */
#ifndef TN_KERNEL_REFS_H
#define TN_KERNEL_REFS_H

#include "base/arch.h"
#include "base/util.h"
#include "gpu/bench.h"
#include "pipeline/job.h"

typedef struct {
  void *cubin; /* NULL: none */
  size_t len;
  char kernel[256]; /* its symbol */
  tn_params params; /* the default point */
  int which;        /* 0: the reference, 1: the baseline */
} tn_kernel_ref;

/* Compiles job's reference (into ref) and kernel baseline (into base, if
 * it has one) for arch.  Families compiled in have neither: both stay
 * empty.  Returns 0, TN_EINPUT (a file that does not compile, its log
 * shown) or TN_ETOOL. */
int tn_kernel_refs_build(const tn_job *job, const tn_arch *arch,
                         tn_kernel_ref *ref, tn_kernel_ref *base,
                         tn_err *err);

/* The launch of r on prob.  0, or -1 with why. */
int tn_kernel_ref_launch(const tn_job *job, const tn_kernel_ref *r,
                         const tn_problem *prob, tn_launch *out, char *why,
                         size_t n);

/* The reference ref (if any) for job bj of size k: its CUBIN goes with
 * the job (the caller sends run->ref.cubin).  0, or TN_EINPUT with err. */
int tn_kernel_ref_attach(const tn_job *job, const tn_kernel_ref *ref,
                         tn_bench_job *bj, int k, tn_err *err);

/* A baseline job bj of size k that runs the kernel base (if any) as a
 * candidate runs, checked against ref.  0, or TN_EINPUT with err. */
int tn_kernel_ref_baseline_job(const tn_job *job, const tn_kernel_ref *base,
                               const tn_kernel_ref *ref, tn_bench_job *bj,
                               int k, tn_err *err);

void tn_kernel_ref_free(tn_kernel_ref *r);

#endif

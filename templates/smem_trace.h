/* smem_trace.h -- hooks around every shared-memory access of the templates.
 *
 * They expand to nothing unless TN_TRACE is defined to 1, as the drift GPU
 * test (tests/gpu/gpu_drift_trace.c) does in an instrumented build: then block
 * (0, 0, 0) records, for every access of every thread, the thread's warp,
 * the access's sequence number in the thread, its lane, the byte address
 * (relative to TN_TRACE_BASE's array), the op and the width, into
 * tn_trace_buf (tn_trace_cap records of 6 words), the host reading them
 * back to compare with the family's plan.  A hook runs in every lane of a
 * warp, with `active` saying whether the lane makes the access, so that
 * lanes' sequence numbers stay aligned; put it outside lane-divergent
 * branches.  CUDA only (not for the C model).
 *
 * TN_TRACE_HOST, for a template run on the host (tests/support/
 * cuda_host.h): the hooks call tn_trace_host_base and tn_trace_host_access,
 * which the host program defines, for every block of the grid; there the
 * transpose's and the SIMT GEMM's hooks are also checked against the
 * accesses the compiled code makes (tests/support/host_trace.h). */
#ifndef TN_SMEM_TRACE_H
#define TN_SMEM_TRACE_H

/* 1 where the hooks record (on a GPU or on the host), for code that
 * computes what only a hook needs. */
#if (defined(TN_TRACE) && TN_TRACE) ||                                       \
    (defined(TN_TRACE_HOST) && TN_TRACE_HOST)
#define TN_TRACE_ON 1
#else
#define TN_TRACE_ON 0
#endif

/* The values of tuner/model/access.h's tn_op. */
#define TN_TRACE_OP_LD 0
#define TN_TRACE_OP_ST 1
#define TN_TRACE_OP_LDMATRIX 2
#define TN_TRACE_OP_STMATRIX 3
#define TN_TRACE_OP_CP_ASYNC_CG 5

#if defined(TN_TRACE) && TN_TRACE
extern "C" {
__device__ unsigned *tn_trace_buf;
__device__ unsigned tn_trace_cap;
__device__ unsigned tn_trace_n;
__device__ unsigned tn_trace_base;
__device__ unsigned tn_trace_seq[1024];
}

__device__ __forceinline__ bool tn_trace_block(void)
{
  return (blockIdx.x | blockIdx.y | blockIdx.z) == 0;
}

__device__ __forceinline__ unsigned tn_trace_tid(void)
{
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __noinline__ void tn_trace_access(unsigned op, unsigned width,
                                             const void *p, bool active)
{
  if (!tn_trace_block())
    return;
  const unsigned tid = tn_trace_tid();
  const unsigned seq = tn_trace_seq[tid]++;
  if (!active)
    return;
  const unsigned i = atomicAdd(&tn_trace_n, 1u);
  if (i >= tn_trace_cap)
    return;
  unsigned *r = tn_trace_buf + 6 * (size_t)i;
  r[0] = tid / 32;
  r[1] = seq;
  r[2] = tid % 32;
  r[3] = (unsigned)__cvta_generic_to_shared(p) - tn_trace_base;
  r[4] = op;
  r[5] = width;
}

/* Names the array whose start is shared address 0 of the plan; before
 * the first hook, followed by a barrier (the kernels' first one). */
#define TN_TRACE_BASE(array)                                                 \
  do {                                                                       \
    if (tn_trace_block() && tn_trace_tid() == 0)                             \
      tn_trace_base = (unsigned)__cvta_generic_to_shared(array);             \
    __syncthreads();                                                         \
  } while (0)
#define TN_TRACE_LD(p, width, active)                                        \
  tn_trace_access(TN_TRACE_OP_LD, (width), (p), (active))
#define TN_TRACE_ST(p, width, active)                                        \
  tn_trace_access(TN_TRACE_OP_ST, (width), (p), (active))
#define TN_TRACE_CP_ASYNC(p, width, active)                                  \
  tn_trace_access(TN_TRACE_OP_CP_ASYNC_CG, (width), (p), (active))
/* ldmatrix: the lane's row address, 16 bytes */
#define TN_TRACE_LDMATRIX(p, active)                                         \
  tn_trace_access(TN_TRACE_OP_LDMATRIX, 16, (p), (active))
/* stmatrix: the same, the lane's row address of 16 bytes */
#define TN_TRACE_STMATRIX(p, active)                                         \
  tn_trace_access(TN_TRACE_OP_STMATRIX, 16, (p), (active))
#elif defined(TN_TRACE_HOST) && TN_TRACE_HOST
static void tn_trace_host_base(const void *array);
static void tn_trace_host_access(unsigned op, unsigned width, const void *p,
                                 bool active);
#define TN_TRACE_BASE(array) tn_trace_host_base(array)
#define TN_TRACE_LD(p, width, active)                                        \
  tn_trace_host_access(TN_TRACE_OP_LD, (width), (p), (active))
#define TN_TRACE_ST(p, width, active)                                        \
  tn_trace_host_access(TN_TRACE_OP_ST, (width), (p), (active))
#define TN_TRACE_CP_ASYNC(p, width, active)                                  \
  tn_trace_host_access(TN_TRACE_OP_CP_ASYNC_CG, (width), (p), (active))
#define TN_TRACE_LDMATRIX(p, active)                                         \
  tn_trace_host_access(TN_TRACE_OP_LDMATRIX, 16, (p), (active))
#define TN_TRACE_STMATRIX(p, active)                                         \
  tn_trace_host_access(TN_TRACE_OP_STMATRIX, 16, (p), (active))
#else
#define TN_TRACE_BASE(array) ((void)0)
#define TN_TRACE_LD(p, width, active) ((void)0)
#define TN_TRACE_ST(p, width, active) ((void)0)
#define TN_TRACE_CP_ASYNC(p, width, active) ((void)0)
#define TN_TRACE_LDMATRIX(p, active) ((void)0)
#define TN_TRACE_STMATRIX(p, active) ((void)0)
#endif

#endif

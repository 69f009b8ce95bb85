/* tc_ops.h -- the PTX that templates/gemm_tc.cu issues, one wrapper each:
 * cp.async of 16 bytes (zero-filled when the source is outside the
 * matrix) and its groups, ldmatrix.x4 (.trans), both also predicated,
 * stmatrix.x4 (sm_90 and later), mma.sync m16n8k16 with fp32
 * accumulators, and the 16-bit conversions (no cuda_bf16.h: NVRTC
 * need not find it).  TN_IN_F16 picks fp16 over bf16.  CUDA only. */
#ifndef TN_TC_OPS_H
#define TN_TC_OPS_H

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
  return (unsigned)__cvta_generic_to_shared(p);
}

/* A 16-byte shared load kept on every path.  The staged epilogues load a
 * row before they test whether C has it, as their plan (gemm_tc_plan.c)
 * lists; a plain load, even a plain ld.shared in asm volatile, is sunk
 * below that test by ptxas and skipped at the matrix edges (measured:
 * Nsight Compute counted exactly the loads of rows past M fewer than the
 * plan on 3000 x 5000).  .volatile is what ptxas keeps. */
__device__ __forceinline__ uint4 lds128(const void *p)
{
  uint4 v;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(smem_addr(p)));
  return v;
}

/* 16 bytes global -> shared; full false: zeros, nothing read. */
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src,
                                           bool full)
{
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
               "l"(src), "r"(full ? 16 : 0));
}

/* The same when go, else nothing: a predicate, not a branch, so that the
 * mainloop of aligned operands stays one block ptxas can schedule. */
__device__ __forceinline__ void cp_async16_if(unsigned dst, const void *src,
                                              bool full, bool go)
{
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %3, 0;\n"
               "@p cp.async.cg.shared.global [%0], [%1], 16, %2;\n}\n" ::"r"(
                   dst),
               "l"(src), "r"(full ? 16 : 0), "r"(go ? 1 : 0));
}

__device__ __forceinline__ void cp_async_commit(void)
{
  asm volatile("cp.async.commit_group;\n" ::);
}

template <int N> __device__ __forceinline__ void cp_async_wait(void)
{
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, "
               "[%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4],
                                                  unsigned addr)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
               "{%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

/* ldmatrix.x4 (.trans with TRANS) when go; else r keeps its values. */
template <bool TRANS>
__device__ __forceinline__ void ldmatrix_x4_if(unsigned (&r)[4],
                                               unsigned addr, bool go)
{
  if (TRANS)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %5, 0;\n"
                 "@p ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
                 "{%0,%1,%2,%3}, [%4];\n}\n"
                 : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3])
                 : "r"(addr), "r"(go ? 1 : 0));
  else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %5, 0;\n"
                 "@p ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
                 "{%0,%1,%2,%3}, [%4];\n}\n"
                 : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3])
                 : "r"(addr), "r"(go ? 1 : 0));
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
/* Four 8 x 8 matrices of 16-bit elements to shared memory: lane l gives
 * the 16-byte row address of row l % 8 of matrix l / 8, and r[q] holds,
 * of matrix q, row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 (lo
 * first): the layout of an mma accumulator fragment's pairs, packed.
 * "memory": the shared reads after it must not move above it. */
__device__ __forceinline__ void stmatrix_x4(unsigned addr,
                                            const unsigned (&r)[4])
{
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], "
               "{%1,%2,%3,%4};\n" ::"r"(addr),
               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}
#endif

/* d += a * b on one m16n8k16 fragment.  volatile: the mma keep their
 * place among the ldmatrix and cp.async written between them. */
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4],
                                         unsigned b0, unsigned b1)
{
#if TN_IN_F16
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
      "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
      "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

/* ---- Element conversions. */
__device__ __forceinline__ float elem_to_float(unsigned short h)
{
#if TN_IN_F16
  float f;
  asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(h));
  return f;
#else
  return __uint_as_float((unsigned)h << 16);
#endif
}

/* Two floats rounded to nearest into one 32-bit pair, lo first. */
__device__ __forceinline__ unsigned pack2(float lo, float hi)
{
  unsigned r;
#if TN_IN_F16
  asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#else
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#endif
  return r;
}

__device__ __forceinline__ unsigned short round1(float v)
{
  return (unsigned short)(pack2(v, 0.0f) & 0xffffu);
}

#endif

/* wg_ops.h -- the sm_90a PTX that templates/gemm_wg.cu issues, one wrapper
 * each: wgmma.mma_async m64nNk16 or, for fp8, m64nNk32 (N = 64 to 256 by 16;
 * fp32 accumulators, both operands read from shared memory through matrix
 * descriptors), its fence, commit and wait, the shared-memory matrix
 * descriptor, setmaxnreg, named barriers, and mbarrier arrivals for the
 * ring's "empty" side.
 * These need NVRTC's -arch=sm_90a (wgmma and setmaxnreg exist only
 * there: NVRTC 13 refuses them for sm_100a and sm_120a).  CUDA only.
 *
 * Before including: WG_TNSP_A, WG_TNSP_B (1: that operand's shared tile
 * runs along M or N, wgmma's "transpose" bit; 0: along K), TN_IN_F16, and
 * for the 8-bit floats TN_IN_FP8 (1 e4m3, 2 e5m2): then the instructions
 * are m64nNk32 with both operands K-major, all that wgmma takes for them
 * (it has no transpose operands for 8-bit types). */
#ifndef TN_WG_OPS_H
#define TN_WG_OPS_H

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "wgmma and setmaxnreg need the sm_90a target (-arch=sm_90a)"
#endif

#ifndef TN_IN_FP8
#define TN_IN_FP8 0
#endif
#if TN_IN_FP8 && (WG_TNSP_A || WG_TNSP_B)
#error "wgmma takes 8-bit operands K-major only"
#endif
#if TN_IN_FP8 == 1
#define WG_AB_TYPE "e4m3.e4m3"
#elif TN_IN_FP8 == 2
#define WG_AB_TYPE "e5m2.e5m2"
#elif TN_IN_F16
#define WG_AB_TYPE "f16.f16"
#else
#define WG_AB_TYPE "bf16.bf16"
#endif
/* the k of one instruction, and its operands after imm-scale-a and -b:
 * the transpose immediates (operands a and b of the asm), which 8-bit
 * types do not have */
#if TN_IN_FP8
#define WG_K "k32"
#define WG_TRANS(a, b) ";\n}\n"
#else
#define WG_K "k16"
#define WG_TRANS(a, b) ", %" #a ", %" #b ";\n}\n"
#endif

/* The descriptor's layout type (bits 62-63) of a swizzle of `bytes`:
 * 1 = 128B, 2 = 64B, 3 = 32B (0, no swizzle, is not used here). */
#define WG_LAYOUT(bytes) ((bytes) == 128 ? 1 : (bytes) == 64 ? 2 : 3)

/* A shared-memory matrix descriptor of the matrix 16 off16 bytes past
 * saddr: start address, leading and stride byte offsets (each in 16-byte
 * units, 14 bits), base offset 0 (every tile starts on its swizzle's
 * 1024-byte-aligned repeat), layout type.  The start address is added
 * to in 32 bits, so that a chain's descriptors are one add each from
 * their stage's; shared addresses lie below 2^18, so the 14-bit field
 * cannot carry into the next. */
__device__ __forceinline__ unsigned long long
wg_desc_at(unsigned saddr, unsigned off16, unsigned lbo, unsigned sbo,
           int layout)
{
  const unsigned lo =
      (((saddr & 0x3ffffu) >> 4) | ((lbo >> 4) & 0x3fffu) << 16) + off16;
  const unsigned hi = ((sbo >> 4) & 0x3fffu) | (unsigned)layout << 30;
  return (unsigned long long)hi << 32 | lo;
}

/* Orders this warpgroup's register and shared-memory accesses before the
 * wgmma that follow (needed before the first, and after the accumulators
 * were touched by other instructions). */
__device__ __forceinline__ void wg_fence(void)
{
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wg_commit(void)
{
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* Waits until at most N committed groups of this warpgroup are pending. */
template <int N> __device__ __forceinline__ void wg_wait(void)
{
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Keeps the compiler from moving accesses to v across this point: the
 * accumulators belong to the asynchronous wgmma between issue and wait. */
__device__ __forceinline__ void wg_pin(float &v)
{
  asm volatile("" : "+f"(v)::"memory");
}

/* The warpgroup's registers per thread, raised or lowered to N (a
 * multiple of 8 in 24..256); every thread of the warpgroup executes it. */
template <int N> __device__ __forceinline__ void wg_setmaxnreg_inc(void)
{
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

template <int N> __device__ __forceinline__ void wg_setmaxnreg_dec(void)
{
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

/* A barrier of `threads` threads (a multiple of 32) on hardware barrier
 * id (1..15; 0 is __syncthreads's). */
__device__ __forceinline__ void wg_bar(int id, int threads)
{
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/* An arrival on hardware barrier id that does not wait: `threads` count
 * the arriving and the waiting (bar.sync) warps together. */
__device__ __forceinline__ void wg_bar_arrive(int id, int threads)
{
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/* One plain arrival on an mbarrier (a consumer warp's "slot free"). */
__device__ __forceinline__ void wg_mbar_arrive(unsigned long long *bar)
{
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(
                   tn_smem_u32(bar))
               : "memory");
}

/* d (+)= A * B over k16 (k32 for fp8) for a 64 x N tile: d is the
 * warpgroup's fragment of the m64nN accumulator (thread t of the
 * warpgroup: rows 16 (t / 32) + (t % 32) / 4 and 8 more, columns 8 j + 2
 * (t % 4) and the next, d[4 j .. 4 j + 3], the same for every input
 * type); scale_d 0 ignores d's values (d = A * B).  One wgmma per width
 * N (64 to 256 by 16: the epilogue's stmatrix takes n8 blocks in pairs),
 * its N / 2 accumulators listed out (inline asm takes no arrays): WG_R*
 * name the operands %0 .. in the asm string 8 at a time, WG_D8 bind 8. */
#define WG_R0 "%0,%1,%2,%3,%4,%5,%6,%7"
#define WG_R8 "%8,%9,%10,%11,%12,%13,%14,%15"
#define WG_R16 "%16,%17,%18,%19,%20,%21,%22,%23"
#define WG_R24 "%24,%25,%26,%27,%28,%29,%30,%31"
#define WG_R32 "%32,%33,%34,%35,%36,%37,%38,%39"
#define WG_R40 "%40,%41,%42,%43,%44,%45,%46,%47"
#define WG_R48 "%48,%49,%50,%51,%52,%53,%54,%55"
#define WG_R56 "%56,%57,%58,%59,%60,%61,%62,%63"
#define WG_R64 "%64,%65,%66,%67,%68,%69,%70,%71"
#define WG_R72 "%72,%73,%74,%75,%76,%77,%78,%79"
#define WG_R80 "%80,%81,%82,%83,%84,%85,%86,%87"
#define WG_R88 "%88,%89,%90,%91,%92,%93,%94,%95"
#define WG_R96 "%96,%97,%98,%99,%100,%101,%102,%103"
#define WG_R104 "%104,%105,%106,%107,%108,%109,%110,%111"
#define WG_R112 "%112,%113,%114,%115,%116,%117,%118,%119"
#define WG_R120 "%120,%121,%122,%123,%124,%125,%126,%127"
#define WG_D4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define WG_D8(i) WG_D4(i), WG_D4(i + 4)
/* the first H accumulators: WG_RLH their names, WG_DLH their bindings */
#define WG_RL8 WG_R0
#define WG_DL8 WG_D8(0)
#define WG_RL16 WG_RL8 "," WG_R8
#define WG_DL16 WG_DL8, WG_D8(8)
#define WG_RL24 WG_RL16 "," WG_R16
#define WG_DL24 WG_DL16, WG_D8(16)
#define WG_RL32 WG_RL24 "," WG_R24
#define WG_DL32 WG_DL24, WG_D8(24)
#define WG_RL40 WG_RL32 "," WG_R32
#define WG_DL40 WG_DL32, WG_D8(32)
#define WG_RL48 WG_RL40 "," WG_R40
#define WG_DL48 WG_DL40, WG_D8(40)
#define WG_RL56 WG_RL48 "," WG_R48
#define WG_DL56 WG_DL48, WG_D8(48)
#define WG_RL64 WG_RL56 "," WG_R56
#define WG_DL64 WG_DL56, WG_D8(56)
#define WG_RL72 WG_RL64 "," WG_R64
#define WG_DL72 WG_DL64, WG_D8(64)
#define WG_RL80 WG_RL72 "," WG_R72
#define WG_DL80 WG_DL72, WG_D8(72)
#define WG_RL88 WG_RL80 "," WG_R80
#define WG_DL88 WG_DL80, WG_D8(80)
#define WG_RL96 WG_RL88 "," WG_R88
#define WG_DL96 WG_DL88, WG_D8(88)
#define WG_RL104 WG_RL96 "," WG_R96
#define WG_DL104 WG_DL96, WG_D8(96)
#define WG_RL112 WG_RL104 "," WG_R104
#define WG_DL112 WG_DL104, WG_D8(104)
#define WG_RL120 WG_RL112 "," WG_R112
#define WG_DL120 WG_DL112, WG_D8(112)
#define WG_RL128 WG_RL120 "," WG_R120
#define WG_DL128 WG_DL120, WG_D8(120)

/* wg_mma_nN: REGS the accumulators' names, DA/DB/SD/TA/TB the numbers of
 * the operands after them (descriptors, scale_d, the transposes), the
 * rest the accumulators' bindings. */
#define WG_MMA(N, REGS, DA, DB, SD, TA, TB, ...)                            \
  __device__ __forceinline__ void wg_mma_n##N(float (&d)[N / 2],           \
                                              unsigned long long da,       \
                                              unsigned long long db,       \
                                              int scale_d)                 \
  {                                                                        \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #SD ", 0;\n"         \
                 "wgmma.mma_async.sync.aligned.m64n" #N WG_K               \
                 ".f32." WG_AB_TYPE " {" REGS "}, %" #DA ", %" #DB         \
                 ", p, 1, 1" WG_TRANS(TA, TB)                              \
                 : __VA_ARGS__                                             \
                 : "l"(da), "l"(db), "r"(scale_d), "n"(WG_TNSP_A),         \
                   "n"(WG_TNSP_B)                                          \
                 : "memory");                                              \
  }

WG_MMA(64, WG_RL32, 32, 33, 34, 35, 36, WG_DL32)
WG_MMA(80, WG_RL40, 40, 41, 42, 43, 44, WG_DL40)
WG_MMA(96, WG_RL48, 48, 49, 50, 51, 52, WG_DL48)
WG_MMA(112, WG_RL56, 56, 57, 58, 59, 60, WG_DL56)
WG_MMA(128, WG_RL64, 64, 65, 66, 67, 68, WG_DL64)
WG_MMA(144, WG_RL72, 72, 73, 74, 75, 76, WG_DL72)
WG_MMA(160, WG_RL80, 80, 81, 82, 83, 84, WG_DL80)
WG_MMA(176, WG_RL88, 88, 89, 90, 91, 92, WG_DL88)
WG_MMA(192, WG_RL96, 96, 97, 98, 99, 100, WG_DL96)
WG_MMA(208, WG_RL104, 104, 105, 106, 107, 108, WG_DL104)
WG_MMA(224, WG_RL112, 112, 113, 114, 115, 116, WG_DL112)
WG_MMA(240, WG_RL120, 120, 121, 122, 123, 124, WG_DL120)
WG_MMA(256, WG_RL128, 128, 129, 130, 131, 132, WG_DL128)

#endif

/* measure.c -- `tuner calibrate` on the GPU: the device, the kernels'
 * compile and load, timing, and the throughput measurements. */
#define _POSIX_C_SOURCE 200809L
#include "calibrate/measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "gpu/cublas.h"
#include "gpu/nvrtc.h"

#define CU(call) tn_cuda_failed(&g->cu, &g->st, g->cu.call, #call)

/* Blocks of TN_CALIB_BLOCK threads per SM in the throughput kernels, at
 * most: 2048 threads, the most any SM holds. */
#define BLOCKS_PER_SM 8
#define LAUNCH_BATCH 1000
#define SPIN_SHORT (1LL << 22)
#define SPIN_LONG (1LL << 24)
/* about 1 ms a launch on an H200 (7e10 flops of fp32 FMA at ~60 TFLOP/s,
 * 6e11 of mma.sync at ~500): long against a launch's few microseconds */
#define ALU_ITERS 4096
#define MMA_ITERS 2048
#define GEMM_N 4096

int tn_calib_fail(tn_calib_gpu *g, tn_err *err)
{
  return tn_errf(err, TN_ETOOL, "%s", g->st.what[0] ? g->st.what
                                                    : "a CUDA call failed");
}

static int attr(tn_calib_gpu *g, int *out, CUdevice_attribute a)
{
  return CU(cuDeviceGetAttribute(out, a, g->dev));
}

/* The device's figures into p. */
static int describe(tn_calib_gpu *g, int ordinal, tn_calib_profile *p)
{
  size_t mem = 0;
  int v = 0;
  if (CU(cuDeviceGetName(p->name, sizeof(p->name), g->dev)) ||
      CU(cuDeviceGetPCIBusId(p->pci_bus_id, sizeof(p->pci_bus_id),
                             g->dev)) ||
      CU(cuDeviceTotalMem(&mem, g->dev)) || CU(cuDriverGetVersion(&v)) ||
      attr(g, &p->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) ||
      attr(g, &p->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) ||
      attr(g, &p->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) ||
      attr(g, &p->clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) ||
      attr(g, &p->mem_clock_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) ||
      attr(g, &p->bus_width_bits,
           CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) ||
      attr(g, &p->l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) ||
      attr(g, &p->smem_per_sm,
           CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) ||
      attr(g, &p->smem_per_block_optin,
           CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) ||
      attr(g, &p->max_threads_per_sm,
           CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) ||
      attr(g, &p->regs_per_sm,
           CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR) ||
      attr(g, &p->warp_size, CU_DEVICE_ATTRIBUTE_WARP_SIZE))
    return -1;
  p->ordinal = ordinal;
  p->total_mem = (long long)mem;
  snprintf(p->arch, sizeof(p->arch), "sm_%d%d", p->cc_major, p->cc_minor);
  snprintf(p->driver, sizeof(p->driver), "%d.%d", v / 1000, (v % 1000) / 10);
  tn_nvrtc_version(p->nvrtc, sizeof(p->nvrtc));
  return 0;
}

int tn_calib_load_module(tn_calib_gpu *g, const tn_calib_profile *p,
                         const char *source, const char *name,
                         const char *what, CUmodule *mod, tn_err *err)
{
  const tn_arch *arch = tn_arch_from_cc(p->cc_major, p->cc_minor);
  void *cubin = NULL;
  size_t len = 0;
  char *log = NULL;
  int rc;
  if (arch == NULL)
    arch = tn_arch_nearest_older(p->cc_major, p->cc_minor);
  if (arch == NULL)
    return tn_errf(err, TN_ETOOL, "no known architecture for compute "
                                  "capability %d.%d",
                   p->cc_major, p->cc_minor);
  rc = tn_nvrtc_helper(source, name, arch, &cubin, &len, &log, err);
  if (rc > 0)
    tn_errf(err, TN_ETOOL, "%s: does not compile for %s: %.1500s", what,
            arch->name, log ? log : "(no log)");
  free(log);
  if (rc != 0)
    return TN_ETOOL;
  rc = CU(cuModuleLoadData(mod, cubin));
  free(cubin);
  return rc ? tn_calib_fail(g, err) : 0;
}

int tn_calib_open(tn_calib_gpu *g, int ordinal, tn_calib_profile *p,
                  tn_err *err)
{
  int count = 0, reps = g->repetitions, warmup = g->warmup;
  memset(g, 0, sizeof(*g));
  g->repetitions = reps;
  g->warmup = warmup;
  if (tn_cuda_load(&g->cu, err) != 0)
    return TN_ENODEV;
  if (CU(cuDeviceGetCount(&count)))
    goto nodev;
  if (ordinal >= count) {
    tn_errf(err, TN_ENODEV, "no GPU %d: this machine has %d", ordinal,
            count);
    tn_calib_close(g);
    return TN_ENODEV;
  }
  if (CU(cuDeviceGet(&g->dev, ordinal)) || describe(g, ordinal, p))
    goto nodev;
  if (CU(cuDevicePrimaryCtxRetain(&g->ctx, g->dev)) ||
      CU(cuCtxSetCurrent(g->ctx)) ||
      CU(cuStreamCreate(&g->stream, CU_STREAM_NON_BLOCKING)) ||
      CU(cuEventCreate(&g->ev[0], CU_EVENT_DEFAULT)) ||
      CU(cuEventCreate(&g->ev[1], CU_EVENT_DEFAULT)))
    goto nodev;
  if (tn_calib_load_module(g, p, tn_calib_kernel_source, "calibrate.cu",
                           "the calibration kernels", &g->module,
                           err) != 0) {
    tn_calib_close(g);
    return TN_ETOOL;
  }
  return 0;
nodev:
  tn_errf(err, TN_ENODEV, "GPU %d: %s", ordinal, g->st.what);
  tn_calib_close(g);
  return TN_ENODEV;
}

void tn_calib_close(tn_calib_gpu *g)
{
  int i;
  if (g->cu.lib == NULL)
    return;
  if (g->module)
    g->cu.cuModuleUnload(g->module);
  for (i = 0; i < 2; i++)
    if (g->ev[i])
      g->cu.cuEventDestroy(g->ev[i]);
  if (g->stream)
    g->cu.cuStreamDestroy(g->stream);
  if (g->ctx)
    g->cu.cuDevicePrimaryCtxRelease(g->dev);
  tn_cuda_unload(&g->cu);
  g->module = NULL;
  g->stream = NULL;
  g->ctx = NULL;
  g->ev[0] = g->ev[1] = NULL;
}

CUfunction tn_calib_fn(tn_calib_gpu *g, const char *name)
{
  CUfunction fn = NULL;
  if (CU(cuModuleGetFunction(&fn, g->module, name)))
    return NULL;
  return fn;
}

/* One unit of timed work: a kernel launch, a copy or a library call. */
typedef struct {
  int (*run)(tn_calib_gpu *g, void *ctx);
  void *ctx;
} op;

static int time_op(tn_calib_gpu *g, const op *o, int batch, int warm,
                   double *ms)
{
  float f = 0.0f;
  int i;
  for (i = 0; warm && i < g->warmup; i++)
    if (o->run(g, o->ctx))
      return -1;
  if (CU(cuEventRecord(g->ev[0], g->stream)))
    return -1;
  for (i = 0; i < batch; i++)
    if (o->run(g, o->ctx))
      return -1;
  if (CU(cuEventRecord(g->ev[1], g->stream)) ||
      CU(cuEventSynchronize(g->ev[1])) ||
      CU(cuEventElapsedTime(&f, g->ev[0], g->ev[1])))
    return -1;
  *ms = f;
  return 0;
}

typedef struct {
  CUfunction fn;
  unsigned grid, block;
  void **args;
} launch;

static int run_launch(tn_calib_gpu *g, void *ctx)
{
  launch *l = ctx;
  return CU(cuLaunchKernel(l->fn, l->grid, 1, 1, l->block, 1, 1, 0,
                           g->stream, l->args, NULL));
}

int tn_calib_time(tn_calib_gpu *g, CUfunction fn, unsigned grid,
                  unsigned block, void **args, int batch, int warm,
                  double *ms)
{
  launch l = {fn, grid, block, args};
  op o = {run_launch, &l};
  return time_op(g, &o, batch, warm, ms);
}

/* Times o g->repetitions times; each sample becomes work / ms * scale
 * (rate) or ms * scale (per_unit) in m. */
static int sample(tn_calib_gpu *g, const op *o, int batch, double work,
                  double scale, int rate, tn_calib_metric *m)
{
  double *v = malloc(sizeof(*v) * (size_t)g->repetitions), ms;
  int r;
  if (v == NULL) {
    snprintf(g->st.what, sizeof(g->st.what), "out of memory");
    g->st.last = CUDA_ERROR_OUT_OF_MEMORY;
    return -1;
  }
  for (r = 0; r < g->repetitions; r++) {
    if (time_op(g, o, batch, r == 0, &ms)) {
      free(v);
      return -1;
    }
    v[r] = rate ? (ms > 0 ? work / ms * scale : 0.0) : ms * scale;
  }
  tn_calib_stat_from(v, g->repetitions, &m->stat);
  m->work = work;
  m->measured = 1;
  free(v);
  return 0;
}

int tn_calib_sample_launch(tn_calib_gpu *g, CUfunction fn, unsigned grid,
                           unsigned block, void **args, double work,
                           double scale, int rate, tn_calib_metric *m)
{
  launch l = {fn, grid, block, args};
  op o = {run_launch, &l};
  return sample(g, &o, 1, work, scale, rate, m);
}

/* SM clock: the difference of two spins, so that launch and event
 * overheads cancel. */
static int measure_clock(tn_calib_gpu *g, tn_calib_profile *p,
                         CUdeviceptr scratch)
{
  CUfunction fn = tn_calib_fn(g, "tn_cal_spin");
  double *v = malloc(sizeof(*v) * (size_t)g->repetitions);
  long long c[2] = {SPIN_SHORT, SPIN_LONG};
  void *args[2][2] = {{&c[0], &scratch}, {&c[1], &scratch}};
  int r, rc = -1;
  if (fn == NULL || v == NULL)
    goto done;
  for (r = 0; r < g->repetitions; r++) {
    double t0, t1;
    if (tn_calib_time(g, fn, 1, 1, args[0], 1, r == 0, &t0) ||
        tn_calib_time(g, fn, 1, 1, args[1], 1, r == 0, &t1))
      goto done;
    /* cycles per microsecond: MHz */
    v[r] = t1 > t0 ? (double)(SPIN_LONG - SPIN_SHORT) / ((t1 - t0) * 1e3)
                   : 0.0;
  }
  tn_calib_stat_from(v, g->repetitions, &p->clock.stat);
  p->clock.work = (double)(SPIN_LONG - SPIN_SHORT);
  p->clock.measured = 1;
  g->clock_mhz = p->clock.stat.median;
  rc = 0;
done:
  free(v);
  return rc;
}

typedef struct {
  CUdeviceptr src, dst;
  size_t bytes;
} copy;

static int run_memcpy(tn_calib_gpu *g, void *ctx)
{
  copy *c = ctx;
  return CU(cuMemcpyDtoDAsync(c->dst, c->src, c->bytes, g->stream));
}

/* The tiled copy at each tile row length, in the copy's buffers (at
 * least 256 MiB each: the matrix's 8192^2 floats fit).  A tiled
 * transpose's rows are short runs far apart in DRAM; what that costs
 * against the copy's long runs is what the time model scales its DRAM
 * bandwidth by (tuner/model/time.c). */
static int measure_tiles(tn_calib_gpu *g, tn_calib_profile *p,
                         CUdeviceptr in, CUdeviceptr out, size_t bytes)
{
  CUfunction fn = tn_calib_fn(g, "tn_cal_copy_tiles");
  unsigned n4 = TN_CALIB_TILES_SIDE / 4, t4;
  double moved = 2.0 * 4.0 * TN_CALIB_TILES_SIDE * TN_CALIB_TILES_SIDE;
  void *args[4] = {&in, &out, &n4, &t4};
  int k;
  if (fn == NULL)
    return -1;
  if (bytes < (size_t)TN_CALIB_TILES_SIDE * TN_CALIB_TILES_SIDE * 4) {
    snprintf(g->st.what, sizeof(g->st.what),
             "tiled copy: buffers of %zu bytes, %d^2 floats needed", bytes,
             TN_CALIB_TILES_SIDE);
    g->st.last = CUDA_ERROR_INVALID_VALUE;
    return -1;
  }
  for (k = 0; k < TN_CALIB_N_TILE_ROWS; k++) {
    unsigned tiles, threads;
    t4 = (64u << k) / 16; /* float4 a tile row */
    tiles = n4 / t4;
    threads = 4 * t4 * t4 < TN_CALIB_BLOCK ? 4 * t4 * t4 : TN_CALIB_BLOCK;
    {
      launch l = {fn, tiles * tiles, threads, args};
      op o = {run_launch, &l};
      if (sample(g, &o, 1, moved, 1e-6, 1, &p->tiles[k]))
        return -1;
    }
  }
  return 0;
}

static int measure_global(tn_calib_gpu *g, tn_calib_profile *p)
{
  size_t bytes = (size_t)256 << 20, n4;
  CUdeviceptr in = 0, out = 0;
  CUfunction fn = tn_calib_fn(g, "tn_cal_copy");
  unsigned long long n;
  void *args[3] = {&in, &out, &n};
  int rc = -1;
  if (fn == NULL)
    return -1;
  /* larger than the L2 four times over: each launch streams from DRAM */
  if ((size_t)p->l2_bytes * 4 > bytes)
    bytes = ((size_t)p->l2_bytes * 4 + 15) / 16 * 16;
  n4 = bytes / 16;
  n = n4;
  if (CU(cuMemAlloc(&in, bytes)) || CU(cuMemAlloc(&out, bytes)) ||
      CU(cuMemsetD32(in, 0x3f800000u, bytes / 4)) || /* 1.0f, not zeros */
      CU(cuMemsetD32(out, 0u, bytes / 4)) ||
      /* the memsets run on the legacy stream, which g->stream (non-
       * blocking) does not wait for */
      CU(cuCtxSynchronize()))
    goto done;
  {
    size_t blocks = (n4 + TN_CALIB_BLOCK - 1) / TN_CALIB_BLOCK;
    launch l = {fn, (unsigned)(blocks > 0x7fffffffu ? 0x7fffffffu : blocks),
                TN_CALIB_BLOCK, args};
    op o = {run_launch, &l};
    copy c = {in, out, bytes};
    op m = {run_memcpy, &c};
    /* bytes read and written; GB/s = bytes / ms / 1e6 */
    if (sample(g, &o, 1, 2.0 * (double)bytes, 1e-6, 1, &p->copy) ||
        sample(g, &m, 1, 2.0 * (double)bytes, 1e-6, 1, &p->memcpy_dtod))
      goto done;
  }
  if (measure_tiles(g, p, in, out, bytes))
    goto done;
  rc = 0;
done:
  if (in)
    g->cu.cuMemFree(in);
  if (out)
    g->cu.cuMemFree(out);
  return rc;
}

int tn_calib_resident_blocks(tn_calib_gpu *g, const tn_calib_profile *p,
                             CUfunction fn, int most, int *out)
{
  int regs = 0, smem = 0, per_warp, warps = TN_CALIB_BLOCK / 32, n = most;
  if (CU(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn)) ||
      CU(cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                            fn)))
    return -1;
  per_warp = (regs * 32 + 255) / 256 * 256;
  if (per_warp > 0 && p->regs_per_sm / (per_warp * warps) < n)
    n = p->regs_per_sm / (per_warp * warps);
  if (p->max_threads_per_sm / TN_CALIB_BLOCK < n)
    n = p->max_threads_per_sm / TN_CALIB_BLOCK;
  /* each block also reserves 1 KiB of the SM's shared memory */
  if (smem > 0 && p->smem_per_sm / (smem + 1024) < n)
    n = p->smem_per_sm / (smem + 1024);
  *out = n < 1 ? 1 : n;
  return 0;
}

/* One ALU kernel over every SM, one full wave; `per_thread` is the work
 * (flops or ops) of one thread, `per_warp` of one warp. */
static int alu(tn_calib_gpu *g, const tn_calib_profile *p, const char *name,
               void **args, double per_thread, double per_warp,
               double scale, tn_calib_metric *m)
{
  launch l = {tn_calib_fn(g, name), 0, TN_CALIB_BLOCK, args};
  op o = {run_launch, &l};
  int blocks;
  double threads;
  if (l.fn == NULL ||
      tn_calib_resident_blocks(g, p, l.fn, BLOCKS_PER_SM, &blocks))
    return -1;
  l.grid = (unsigned)(p->sm_count * blocks);
  threads = (double)l.grid * TN_CALIB_BLOCK;
  return sample(g, &o, 1, threads * per_thread + threads / 32 * per_warp,
                scale, 1, m);
}

/* The FMA, integer and mma kernels, each thread writing one word to
 * out. */
static int measure_alu(tn_calib_gpu *g, tn_calib_profile *p,
                       CUdeviceptr out)
{
  double steps = (double)ALU_ITERS * TN_CALIB_UNROLL * TN_CALIB_CHAINS;
  int iters = ALU_ITERS, mma_iters = MMA_ITERS;
  float fa = 0.9999f, fb = 1e-4f;
  unsigned ua = 1664525u, ub = 1013904223u, uc = 0x9e3779b9u;
  void *fma_args[4] = {&out, &iters, &fa, &fb};
  void *imad_args[4] = {&out, &iters, &ua, &ub};
  void *lop_args[3] = {&out, &iters, &uc};
  void *mma_args[2] = {&out, &mma_iters};
  /* TFLOP/s = flops / ms / 1e9; Gop/s = ops / ms / 1e6 */
  if (alu(g, p, "tn_cal_fma", fma_args, 2.0 * steps, 0, 1e-9, &p->fma) ||
      alu(g, p, "tn_cal_imad", imad_args, steps, 0, 1e-6, &p->imad) ||
      alu(g, p, "tn_cal_shift_lop3", lop_args, 2.0 * steps, 0, 1e-6,
          &p->shift_lop3))
    return -1;
  if (p->cc_major < 8) {
    snprintf(p->mma_bf16.skipped, sizeof(p->mma_bf16.skipped),
             "no bf16 mma.sync m16n8k16 before sm_80 (this is %s)",
             p->arch);
    return 0;
  }
  /* 2 * 16 * 8 * 16 flops an mma */
  return alu(g, p, "tn_cal_mma_bf16", mma_args, 0,
             (double)mma_iters * TN_CALIB_MMA_CHAINS * 4096.0, 1e-9,
             &p->mma_bf16);
}

typedef struct {
  CUdeviceptr a, b, c;
  char why[256];
} gemm;

static int run_gemm(tn_calib_gpu *g, void *ctx)
{
  gemm *m = ctx;
  return tn_cublas_gemm_ex(g->stream, TN_ELEM_BF16, TN_ELEM_F32, 0, 0,
                           GEMM_N, GEMM_N, GEMM_N, 1.0f, m->a, m->b, 0.0f,
                           m->c, m->why, sizeof(m->why));
}

/* cublasGemmEx, where cuBLAS loads; its absence is a skip, not an
 * error (the tuner needs it only for GEMM baselines). */
static int measure_cublas(tn_calib_gpu *g, tn_calib_profile *p)
{
  size_t in_bytes = (size_t)GEMM_N * GEMM_N * 2;
  gemm m;
  op o = {run_gemm, &m};
  int rc = -1;
  memset(&m, 0, sizeof(m));
  if (p->cc_major < 8) {
    snprintf(p->cublas_bf16.skipped, sizeof(p->cublas_bf16.skipped),
             "no bf16 tensor cores before sm_80 (this is %s)", p->arch);
    return 0;
  }
  if (CU(cuMemAlloc(&m.a, in_bytes)) || CU(cuMemAlloc(&m.b, in_bytes)) ||
      CU(cuMemAlloc(&m.c, in_bytes * 2)) ||
      CU(cuMemsetD32(m.a, 0x3c013c00u, in_bytes / 4)) || /* ~2^-7 */
      CU(cuMemsetD32(m.b, 0x3c003c02u, in_bytes / 4)) ||
      CU(cuCtxSynchronize()))
    goto done;
  if (run_gemm(g, &m) != 0) {
    snprintf(p->cublas_bf16.skipped, sizeof(p->cublas_bf16.skipped), "%s",
             m.why);
    rc = 0;
    goto done;
  }
  /* a failing call after the first one is a broken tool: st names it */
  {
    double flops = 2.0 * GEMM_N * (double)GEMM_N * GEMM_N;
    o.run = run_gemm;
    if (sample(g, &o, 1, flops, 1e-9, 1, &p->cublas_bf16) == 0)
      rc = 0;
    else if (g->st.last == CUDA_SUCCESS) {
      snprintf(g->st.what, sizeof(g->st.what), "cublasGemmEx: %.200s", m.why);
      g->st.last = CUDA_ERROR_UNKNOWN;
    }
  }
done:
  if (m.a)
    g->cu.cuMemFree(m.a);
  if (m.b)
    g->cu.cuMemFree(m.b);
  if (m.c)
    g->cu.cuMemFree(m.c);
  return rc;
}

int tn_calib_measure_throughput(tn_calib_gpu *g, tn_calib_profile *p,
                                tn_err *err)
{
  CUdeviceptr out = 0;
  size_t words = (size_t)p->sm_count * BLOCKS_PER_SM * TN_CALIB_BLOCK;
  CUfunction empty = tn_calib_fn(g, "tn_cal_empty");
  launch le = {empty, 1, 32, NULL};
  op oe = {run_launch, &le};
  int rc = -1;

  if (empty == NULL || CU(cuMemAlloc(&out, words * 4)))
    goto done;
  fprintf(stderr, "calibrate: SM clock, launch overhead\n");
  /* us per launch = batch ms * 1000 / batch */
  if (measure_clock(g, p, out) ||
      sample(g, &oe, LAUNCH_BATCH, LAUNCH_BATCH, 1e3 / LAUNCH_BATCH, 0,
             &p->launch))
    goto done;
  fprintf(stderr, "calibrate: global memory\n");
  if (measure_global(g, p))
    goto done;
  fprintf(stderr, "calibrate: fp32, integer, tensor cores\n");
  if (measure_alu(g, p, out) || measure_cublas(g, p))
    goto done;
  rc = 0;
done:
  if (out)
    g->cu.cuMemFree(out);
  return rc ? tn_calib_fail(g, err) : 0;
}

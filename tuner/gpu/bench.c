/* bench.c -- verification and timing on the GPU, inside a worker process. */
#define _POSIX_C_SOURCE 200809L
#include "gpu/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cublas.h"
#include "gpu/cublaslt.h"
#include "gpu/driver.h"
#include "gpu/expected.h"
#include "gpu/grid_fit.h"
#include "gpu/inputs.h"
#include "gpu/nvml.h"
#include "gpu/race.h"
#include "gpu/tmap.h"
#include "gpu/verify.h"

struct tn_bench {
  tn_cuda cu;
  CUdevice dev;
  CUcontext ctx;
  CUstream stream;
  tn_device_info info;
  /* buffers of the current problem */
  const tn_family *family;
  tn_problem problem;
  tn_buffers bufs;
  /* the input generator, compiled once per worker */
  tn_inputs gen;
  /* a fixed-inputs family's reference outputs on the current problem */
  tn_expected expected;
  /* the family's check, its reference kernels kept */
  tn_verify check;
  /* the first failing call of the job */
  tn_cuda_status st;
  /* the device in NVML, NULL when its clocks cannot be read */
  tn_nvml *nvml;
  /* cuBLASLt's workspace (TN_CUBLASLT_WORKSPACE), made at its first use */
  CUdeviceptr lt_workspace;
};

/* Records the first failing call; returns 1 if r is an error. */
static int failed(tn_bench *b, CUresult r, const char *call)
{
  return tn_cuda_failed(&b->cu, &b->st, r, call);
}

#define CU(call) failed(b, b->cu.call, #call)

static void free_buffers(tn_bench *b)
{
  int i, s;
  for (s = 0; s < TN_MAX_SETS; s++)
    for (i = 0; i < TN_MAX_BUFFERS; i++)
      if (b->bufs.dev[s][i])
        b->cu.cuMemFree(b->bufs.dev[s][i]);
  for (i = 0; i < TN_MAX_BUFFERS; i++) {
    if (b->bufs.host[i])
      b->cu.cuMemFreeHost(b->bufs.host[i]);
    if (b->bufs.host_init[i])
      b->cu.cuMemFreeHost(b->bufs.host_init[i]);
    if (b->bufs.dev_init[i])
      b->cu.cuMemFree(b->bufs.dev_init[i]);
  }
  tn_expected_clear(&b->expected);
  memset(b->bufs.dev, 0, sizeof(b->bufs.dev));
  memset(b->bufs.host, 0, sizeof(b->bufs.host));
  memset(b->bufs.host_init, 0, sizeof(b->bufs.host_init));
  memset(b->bufs.dev_init, 0, sizeof(b->bufs.dev_init));
  b->family = NULL;
  b->bufs.n = 0;
}

/* Allocates the buffers of job's problem unless they are already there. */
static int ensure_buffers(tn_bench *b, const tn_family *f,
                          const tn_problem *prob)
{
  size_t total = 0;
  int i, s;

  if (b->family == f && memcmp(&b->problem, prob, sizeof(*prob)) == 0)
    return 0;
  free_buffers(b);
  /* zeroed first: a field a family leaves alone is 0 (elem: fp32), not
   * what the last problem's family put there */
  memset(b->bufs.desc, 0, sizeof(b->bufs.desc));
  b->bufs.n = f->buffers(f, prob, b->bufs.desc);
  for (i = 0; i < b->bufs.n; i++)
    total += b->bufs.desc[i].bytes;
  /* Enough copies that the timed launches stream through more than twice
   * the L2, so the cache cannot hold one launch's data for the next. */
  b->bufs.sets = 1;
  if (total > 0 && (long long)total < 2 * b->info.l2_bytes)
    b->bufs.sets = (int)((2 * b->info.l2_bytes + (long long)total - 1) /
                    (long long)total);
  if (b->bufs.sets > TN_MAX_SETS)
    b->bufs.sets = TN_MAX_SETS;
  for (i = 0; i < b->bufs.n; i++) {
    size_t bytes = b->bufs.desc[i].bytes;
    int on_host = f->verify_device == NULL; /* the host checks */
    /* a fixed-inputs family keeps its buffers as the last problem's were
     * made: the key says which problem its reference outputs are of */
    if (on_host && CU(cuMemAllocHost(&b->bufs.host[i], bytes)))
      return -1;
    if (b->bufs.desc[i].role == TN_BUF_INOUT &&
        ((on_host && CU(cuMemAllocHost(&b->bufs.host_init[i], bytes))) ||
         CU(cuMemAlloc(&b->bufs.dev_init[i], bytes))))
      return -1;
    for (s = 0; s < b->bufs.sets; s++)
      if (CU(cuMemAlloc(&b->bufs.dev[s][i], bytes)))
        return -1;
  }
  b->family = f;
  b->problem = *prob;
  return 0;
}

/* baseline() services: a copy on the bench's stream ... */
static int env_copy(tn_baseline_env *env, tn_devptr dst, tn_devptr src,
                    size_t bytes, char *why, size_t n)
{
  tn_bench *b = env->impl;
  CUresult r = b->cu.cuMemcpyDtoDAsync(dst, src, bytes, b->stream);
  char msg[200];
  /* this call's error, not the first of the bench (failed() keeps that) */
  if (failed(b, r, "cuMemcpyDtoDAsync")) {
    snprintf(why, n, "cuMemcpyDtoDAsync: %s",
             tn_cuda_strerror(&b->cu, r, msg, sizeof(msg)));
    return -1;
  }
  return 0;
}

/* ... and a GEMM by cuBLAS on it */
static int env_gemm(tn_baseline_env *env, tn_elem_type in, tn_elem_type out,
                    int trans_a, int trans_b, int m, int n, int k,
                    float alpha, tn_devptr a, tn_devptr bm, float beta,
                    tn_devptr c, char *why, size_t why_len)
{
  tn_bench *b = env->impl;
  return tn_cublas_gemm_ex(b->stream, in, out, trans_a, trans_b, m, n, k,
                           alpha, a, bm, beta, c, why, why_len);
}

/* ... and an fp8 GEMM by cuBLASLt, with a workspace of its own */
static int env_gemm_fp8(tn_baseline_env *env, tn_elem_type in,
                        tn_elem_type out, int m, int n, int k, float alpha,
                        tn_devptr a, tn_devptr bm, float beta, tn_devptr c,
                        tn_devptr scale_a, tn_devptr scale_b, int fast_accum,
                        char *why, size_t why_len)
{
  tn_bench *b = env->impl;
  if (b->lt_workspace == 0) {
    CUresult r = b->cu.cuMemAlloc(&b->lt_workspace, TN_CUBLASLT_WORKSPACE);
    char msg[200];
    if (failed(b, r, "cuMemAlloc")) {
      b->lt_workspace = 0;
      snprintf(why, why_len, "cuMemAlloc of cuBLASLt's workspace: %s",
               tn_cuda_strerror(&b->cu, r, msg, sizeof(msg)));
      return -1;
    }
  }
  return tn_cublaslt_fp8(b->stream, in, out, m, n, k, alpha, a, bm, beta, c,
                         scale_a, scale_b, fast_accum, b->lt_workspace,
                         TN_CUBLASLT_WORKSPACE, why, why_len);
}

typedef struct {
  CUfunction fn;       /* a candidate's kernel, or NULL for a baseline */
  const tn_bench_job *job;
  const tn_family *f;
  tn_launch launch; /* the job's, its grid fitted to the GPU */
  tn_devptr workspace; /* launch.workspace_block a block of the grid */
} runner;

/* Enqueues one run on buffer set s. */
static int enqueue(tn_bench *b, const runner *r, int s, char *why, size_t n)
{
  const tn_bench_job *job = r->job;
  if (r->fn) {
    tn_args args;
    const tn_launch *l = &r->launch;
    memset(&args, 0, sizeof(args));
    /* tensor maps are encoded here, per launch, against set s: a host
     * call of about a microsecond, far below any kernel timed */
    if (tn_kernel_args(&b->cu, r->f, &job->params, &job->problem,
                       b->bufs.dev[s], r->workspace, &args, why, n) != 0)
      return -1;
    return CU(cuLaunchKernel(r->fn, l->grid[0], l->grid[1], l->grid[2],
                             l->block[0], l->block[1], l->block[2],
                             (unsigned)l->smem_dynamic, b->stream, args.ptrs,
                             NULL))
               ? -1
               : 0;
  }
  if (r->f->baseline == NULL) {
    snprintf(why, n, "family %s has no baseline '%s'", r->f->name,
             job->baseline);
    return -1;
  } else {
    tn_baseline_env env;
    int i;
    memset(&env, 0, sizeof(env));
    env.family = r->f;
    env.problem = &job->problem;
    env.descs = b->bufs.desc;
    for (i = 0; i < b->bufs.n; i++)
      env.dev[i] = b->bufs.dev[s][i];
    env.stream = b->stream;
    env.copy = env_copy;
    env.gemm = env_gemm;
    env.gemm_fp8 = env_gemm_fp8;
    env.impl = b;
    return r->f->baseline(job->baseline, &env, why, n);
  }
}

/* Warm-up, then one event pair around each launch, in chunks after which
 * race.h may stop them (not with job->full). */
static int time_runs(tn_bench *b, const runner *r, tn_bench_result *res)
{
  const tn_bench_job *job = r->job;
  const tn_bench_settings *bs = &job->bench;
  int reps = bs->repetitions, i, n = 0, chunk, rc = -1;
  CUevent *ev = calloc((size_t)(2 * reps), sizeof(CUevent));
  double *ms = calloc((size_t)reps, sizeof(double));
  double *sorted = calloc((size_t)reps, sizeof(double));
  double t0 = tn_now();
  tn_nvml_sampler clocks;
  int sampling = 0;

  if (ev == NULL || ms == NULL || sorted == NULL) {
    snprintf(res->reason, sizeof(res->reason), "out of memory for events");
    goto cleanup;
  }
  for (i = 0; i < bs->warmup; i++)
    if (enqueue(b, r, i % b->bufs.sets, res->reason,
                sizeof(res->reason)))
      goto cleanup;
  if (CU(cuStreamSynchronize(b->stream)))
    goto cleanup;
  res->steps.warmup_s = tn_now() - t0;
  t0 = tn_now();
  tn_nvml_sampler_start(&clocks, b->nvml);
  sampling = 1;
  while ((chunk = tn_race_next_chunk(bs, job->full, n)) > 0) {
    tn_race_verdict v;
    for (i = n; i < n + chunk; i++)
      if (CU(cuEventCreate(&ev[2 * i], CU_EVENT_DEFAULT)) ||
          CU(cuEventCreate(&ev[2 * i + 1], CU_EVENT_DEFAULT)))
        goto cleanup;
    for (i = n; i < n + chunk; i++)
      if (CU(cuEventRecord(ev[2 * i], b->stream)) ||
          enqueue(b, r, i % b->bufs.sets, res->reason,
                  sizeof(res->reason)) ||
          CU(cuEventRecord(ev[2 * i + 1], b->stream)))
        goto cleanup;
    if (CU(cuEventSynchronize(ev[2 * (n + chunk) - 1])))
      goto cleanup;
    for (i = n; i < n + chunk; i++) {
      float t;
      if (CU(cuEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1])))
        goto cleanup;
      ms[i] = t;
    }
    n += chunk;
    memcpy(sorted, ms, sizeof(double) * (size_t)n);
    v = tn_race_check(bs, job->race && !job->full, job->stop_ms, !job->full,
                      sorted, n);
    if (v == TN_RACE_OUT)
      res->raced_out = 1;
    if (v != TN_RACE_GO_ON)
      break;
  }
  tn_timing_from_samples(ms, n, &res->timing);
  if (job->launch.fit_grid)
    res->timing.blocks = (int)r->launch.grid[0];
  rc = 0;
cleanup:
  res->steps.timed_s = tn_now() - t0;
  if (sampling)
    tn_nvml_sampler_stop(&clocks, &res->clocks);
  if (ev)
    for (i = 0; i < 2 * reps; i++)
      if (ev[i])
        b->cu.cuEventDestroy(ev[i]);
  free(ev);
  free(ms);
  free(sorted);
  return rc;
}

static void finish_failure(tn_bench *b, tn_bench_result *res)
{
  res->status = TN_BENCH_FAILED;
  if (b->st.last != CUDA_SUCCESS) {
    if (res->reason[0] == '\0')
      snprintf(res->reason, sizeof(res->reason), "%s", b->st.what);
    res->fatal = tn_cuda_error_is_sticky(b->st.last);
  }
  if (res->reason[0] == '\0')
    snprintf(res->reason, sizeof(res->reason), "failed without a reason");
}

int tn_bench_run(tn_bench *b, const tn_bench_job *job, const void *cubin,
                 const void *ref_cubin, tn_bench_result *res)
{
  const tn_family *f = tn_family_find(job->family);
  CUmodule mod = NULL;
  runner r;
  int rc;
  double start = tn_now(), t0 = start;

  memset(res, 0, sizeof(*res));
  b->st.last = CUDA_SUCCESS;
  b->st.what[0] = '\0';
  if (f == NULL) {
    snprintf(res->reason, sizeof(res->reason), "unknown family '%s'",
             job->family);
    res->status = TN_BENCH_FAILED;
    return 0;
  }
  memset(&r, 0, sizeof(r));
  r.job = job;
  r.f = f;
  r.launch = job->launch;
  if (ensure_buffers(b, f, &job->problem) != 0 ||
      tn_inputs_load(&b->gen, b->info.cc_major, b->info.cc_minor,
                     res->reason, sizeof(res->reason)) != 0)
    goto fail;
  res->sets = b->bufs.sets;
  if (job->ref.cubin_len > 0 &&
      tn_expected_ensure(&b->expected, &b->gen, &b->bufs, f, &job->ref,
                         ref_cubin, &job->problem, job->seed, res->reason,
                         sizeof(res->reason)) != 0)
    goto fail;
  res->steps.setup_s = tn_now() - t0;
  t0 = tn_now();

  /* a candidate, or a baseline that is a kernel of its own */
  if (job->kind == TN_JOB_CANDIDATE || job->cubin_len > 0) {
    int max_threads = 0;
    if (CU(cuModuleLoadData(&mod, cubin)) ||
        CU(cuModuleGetFunction(&r.fn, mod, job->kernel)) ||
        CU(cuFuncGetAttribute(&max_threads,
                              CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, r.fn)))
      goto fail;
    if (max_threads < job->launch.threads) {
      snprintf(res->reason, sizeof(res->reason),
               "too many resources: the kernel's registers allow %d threads "
               "per block, the launch needs %d",
               max_threads, job->launch.threads);
      goto fail;
    }
    if (job->launch.smem_dynamic > 0 &&
        CU(cuFuncSetAttribute(r.fn,
                              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              job->launch.smem_dynamic)))
      goto fail;
    if (job->launch.fit_grid || job->launch.co_resident) {
      const char *call = "";
      unsigned fit = 0;
      CUresult cr = tn_grid_fit(&b->cu, r.fn, &job->launch,
                                b->info.sm_count, &fit, &call);
      if (failed(b, cr, call))
        goto fail;
      if (job->launch.fit_grid)
        r.launch.grid[0] = fit;
      else if (fit < job->launch.grid[0]) {
        snprintf(res->reason, sizeof(res->reason),
                 "the launch's %u blocks must all run at once (a block "
                 "waits for others) and this GPU runs %u of them",
                 job->launch.grid[0], fit);
        goto fail;
      }
    }
    if (job->launch.workspace_block > 0) {
      size_t bytes = (size_t)job->launch.workspace_block * r.launch.grid[0];
      if (CU(cuMemAlloc(&r.workspace, bytes)) ||
          CU(cuMemsetD8(r.workspace, 0, bytes)))
        goto fail;
    }
    if (tn_constants_set(&b->gen, f, &job->params, &job->problem, mod,
                         job->seed, res->reason, sizeof(res->reason)) != 0)
      goto fail;
    res->steps.load_s = tn_now() - t0;
    /* check first: fresh inputs, poisoned outputs, one launch */
    t0 = tn_now();
    if (tn_inputs_fill(&b->gen, &b->bufs, job->seed, res->reason,
                       sizeof(res->reason)) != 0)
      goto fail;
    res->steps.inputs_s = tn_now() - t0;
    t0 = tn_now();
    if (enqueue(b, &r, 0, res->reason, sizeof(res->reason)) != 0 ||
        CU(cuStreamSynchronize(b->stream)))
      goto fail;
    res->steps.check_s = tn_now() - t0;
    t0 = tn_now();
    rc = tn_verify_run(&b->check, f, &job->problem, &b->bufs,
                       b->expected.dev, job->seed,
                       res->reason, sizeof(res->reason));
    res->steps.verify_s = tn_now() - t0;
    if (rc < 0)
      goto fail;
    if (rc > 0) {
      res->status = TN_BENCH_WRONG;
      goto done;
    }
  } else {
    if (tn_inputs_fill(&b->gen, &b->bufs, job->seed, res->reason,
                       sizeof(res->reason)) != 0)
      goto fail;
    res->steps.inputs_s = tn_now() - t0;
    t0 = tn_now();
    rc = enqueue(b, &r, 0, res->reason, sizeof(res->reason));
    if (rc != 0 || CU(cuStreamSynchronize(b->stream))) {
      if (b->st.last == CUDA_SUCCESS)
        res->unavailable = 1; /* the library is missing, not broken */
      goto fail;
    }
    res->steps.check_s = tn_now() - t0;
  }
  if (time_runs(b, &r, res) != 0)
    goto fail;
  res->status = TN_BENCH_OK;
  goto done;
fail:
  finish_failure(b, res);
done:
  if (r.workspace && !res->fatal)
    b->cu.cuMemFree(r.workspace);
  if (mod && !res->fatal)
    b->cu.cuModuleUnload(mod);
  res->steps.total_s = tn_now() - start;
  return 0;
}

int tn_bench_open(int ordinal, tn_bench **out, tn_device_info *info,
                  tn_err *err)
{
  tn_bench *b = calloc(1, sizeof(*b));
  int count = 0, v;
  size_t mem = 0;

  if (b == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory");
  if (tn_cuda_load(&b->cu, err) != 0) {
    free(b);
    return TN_ENODEV;
  }
  if (CU(cuDeviceGetCount(&count)))
    goto fail;
  if (ordinal < 0 || ordinal >= count) {
    tn_errf(err, TN_ENODEV, "no GPU %d: this machine has %d", ordinal, count);
    goto fail_quiet;
  }
  if (CU(cuDeviceGet(&b->dev, ordinal)) ||
      CU(cuDeviceGetName(b->info.name, sizeof(b->info.name), b->dev)) ||
      CU(cuDeviceGetAttribute(&b->info.cc_major,
                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                              b->dev)) ||
      CU(cuDeviceGetAttribute(&b->info.cc_minor,
                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                              b->dev)) ||
      CU(cuDeviceGetAttribute(&b->info.sm_count,
                              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                              b->dev)) ||
      CU(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                              b->dev)) ||
      CU(cuDeviceGetAttribute(
          &b->info.smem_per_block_optin,
          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, b->dev)) ||
      CU(cuDeviceTotalMem(&mem, b->dev)) ||
      CU(cuDriverGetVersion(&b->info.driver_version)) ||
      CU(cuDeviceGetPCIBusId(b->info.pci_bus_id, sizeof(b->info.pci_bus_id),
                             b->dev)))
    goto fail;
  b->info.l2_bytes = v;
  b->info.total_mem = (long long)mem;
  b->info.ordinal = ordinal;
  b->info.device_count = count;
  snprintf(b->info.arch, sizeof(b->info.arch), "sm_%d%d", b->info.cc_major,
           b->info.cc_minor);
  /* the clocks are a record, not a need: without NVML the run goes on */
  b->info.clocks_known = tn_nvml_open(b->info.pci_bus_id, &b->nvml,
                                      b->info.clocks_why,
                                      sizeof(b->info.clocks_why)) == 0;
  b->info.power_limit_mw = tn_nvml_power_limit_mw(b->nvml);
  b->info.sm_max_mhz = tn_nvml_max_sm_mhz(b->nvml);
  if (CU(cuDevicePrimaryCtxRetain(&b->ctx, b->dev)) ||
      CU(cuCtxSetCurrent(b->ctx)) ||
      CU(cuStreamCreate(&b->stream, CU_STREAM_NON_BLOCKING)))
    goto fail;
  b->gen.cu = &b->cu;
  b->gen.st = &b->st;
  b->gen.stream = b->stream;
  b->gen.sm_count = b->info.sm_count;
  b->check.cu = &b->cu;
  b->check.st = &b->st;
  b->check.stream = b->stream;
  b->check.cmp.cu = &b->cu;
  b->check.cmp.st = &b->st;
  b->check.cmp.stream = b->stream;
  b->check.cmp.sm_count = b->info.sm_count;
  b->expected.cu = &b->cu;
  b->check.cc_major = b->info.cc_major;
  b->check.cc_minor = b->info.cc_minor;
  *info = b->info;
  *out = b;
  return 0;
fail:
  tn_errf(err, TN_ENODEV, "GPU %d: %s", ordinal, b->st.what);
fail_quiet:
  tn_nvml_close(b->nvml);
  tn_cuda_unload(&b->cu);
  free(b);
  return TN_ENODEV;
}

void tn_bench_close(tn_bench *b)
{
  if (b == NULL)
    return;
  free_buffers(b);
  if (b->lt_workspace)
    b->cu.cuMemFree(b->lt_workspace);
  tn_verify_unload(&b->check);
  tn_inputs_unload(&b->gen);
  if (b->stream)
    b->cu.cuStreamDestroy(b->stream);
  if (b->ctx)
    b->cu.cuDevicePrimaryCtxRelease(b->dev);
  tn_nvml_close(b->nvml);
  tn_cuda_unload(&b->cu);
  free(b);
}

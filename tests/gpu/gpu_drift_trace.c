/* gpu_drift_trace.c -- on a GPU: the shared-memory addresses every access
 * of a kernel touches are the ones its plan prices.
 *
 * For every candidate of each config (all valid ones; "CONFIG:pruned" for
 * those a pruned run compiles) it builds the instrumented template
 * (TN_TRACE 1: templates/smem_trace.h records every shared-memory access
 * of block 0, lane by lane), runs it on two problems of one block (the
 * tile exactly, and ragged sizes that take the checked paths; drift.c's
 * tn_drift_one_block), and compares the accesses recorded, grouped per
 * warp and per access, with the plan of that one-block problem: as
 * multisets of (op, width, active lanes, 32 addresses).  Prints each
 * difference (up to a few per candidate) and a summary; exits 1 on any.
 *
 * Usage: gpu_drift_trace [--device N] CONFIG[:pruned]...
 * Exit 77 without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drift.h"
#include "templates/smem_trace.h"
#include "gpu/driver.h"
#include "gpu/tmap.h"
#include "pipeline/compile.h"
#include "pipeline/config.h"
#include "pipeline/precheck.h"
#include "pipeline/render.h"
#include "pipeline/space.h"

#define TRACE_CAP (1u << 22) /* records of one launch */

typedef CUresult (*get_global_fn)(CUdeviceptr *, size_t *, CUmodule,
                                  const char *);

typedef struct {
  tn_cuda cu;
  get_global_fn get_global;
  const tn_arch *arch;
  CUdeviceptr trace; /* TRACE_CAP records of 6 words */
  tn_trace_rec *host;
  long long candidates, launches, accesses, bad_candidates, differences;
} gpu;

#define CU_CALL(g, call, what)                                               \
  do {                                                                       \
    CUresult r_ = (g)->cu.call;                                              \
    if (r_ != CUDA_SUCCESS) {                                                \
      char b_[256];                                                          \
      fprintf(stderr, "%s: %s: %s\n", label, what,                           \
              tn_cuda_strerror(&(g)->cu, r_, b_, sizeof(b_)));               \
      goto fail;                                                             \
    }                                                                        \
  } while (0)

/* Sets a module's __device__ variable `name` to the bytes of value. */
static int set_global(gpu *g, CUmodule mod, const char *name,
                      const void *value, size_t size, const char *label)
{
  CUdeviceptr ptr;
  size_t bytes;
  if (g->get_global(&ptr, &bytes, mod, name) != CUDA_SUCCESS ||
      bytes != size) {
    fprintf(stderr, "%s: no __device__ %s of %zu bytes in the instrumented "
                    "module\n", label, name, size);
    return -1;
  }
  CU_CALL(g, cuMemcpyHtoD(ptr, value, size), name);
  return 0;
fail:
  return -1;
}

/* Runs one candidate's instrumented CUBIN on prob and compares its trace
 * with the plan.  Returns the differences, or -1 if it could not run. */
static long long run_one(gpu *g, const tn_family *f, const tn_params *p,
                         const tn_problem *prob, const void *cubin,
                         const char *label)
{
  tn_buffer_desc descs[TN_MAX_BUFFERS];
  tn_devptr bufs[TN_MAX_BUFFERS], workspace = 0;
  tn_args args;
  tn_launch l;
  tn_block_plan plan, trace;
  CUmodule mod = NULL;
  CUfunction fn;
  unsigned cap = TRACE_CAP, zero[1024], n = 0;
  unsigned long long tptr = g->trace;
  char why[512];
  long long bad = -1;
  int nb, i;

  memset(descs, 0, sizeof(descs)); /* what family.h's buffers() expects */
  memset(bufs, 0, sizeof(bufs));
  memset(zero, 0, sizeof(zero));
  memset(&plan, 0, sizeof(plan));
  memset(&trace, 0, sizeof(trace));
  memset(&args, 0, sizeof(args));
  if (tn_drift_block_plan(f, p, prob, &plan, why, sizeof(why)) != 0) {
    fprintf(stderr, "%s: %s\n", label, why);
    return -1;
  }
  f->launch(f, p, prob, &l);
  nb = f->buffers(f, prob, descs);
  for (i = 0; i < nb; i++) {
    CU_CALL(g, cuMemAlloc(&bufs[i], descs[i].bytes + 16), "cuMemAlloc");
    CU_CALL(g, cuMemsetD32(bufs[i], 0, (descs[i].bytes + 16) / 4),
            "cuMemsetD32");
  }
  if (l.workspace_block > 0) { /* stream-K's, zero as a launch wants it */
    size_t bytes = (size_t)l.workspace_block * l.grid[0];
    CU_CALL(g, cuMemAlloc(&workspace, bytes), "cuMemAlloc");
    CU_CALL(g, cuMemsetD8(workspace, 0, bytes), "cuMemsetD8");
  }
  /* the tensor maps of a copy-engine path too, over these buffers */
  if (tn_kernel_args(&g->cu, f, p, prob, bufs, workspace, &args, why,
                     sizeof(why)) != 0) {
    fprintf(stderr, "%s: %s\n", label, why);
    goto fail;
  }
  CU_CALL(g, cuModuleLoadData(&mod, cubin), "cuModuleLoadData");
  CU_CALL(g, cuModuleGetFunction(&fn, mod, f->kernel), "cuModuleGetFunction");
  if (set_global(g, mod, "tn_trace_buf", &tptr, sizeof(tptr), label) ||
      set_global(g, mod, "tn_trace_cap", &cap, sizeof(cap), label) ||
      set_global(g, mod, "tn_trace_n", &n, sizeof(n), label) ||
      set_global(g, mod, "tn_trace_seq", zero, sizeof(zero), label))
    goto fail;
  if (l.smem_dynamic > 0)
    CU_CALL(g,
            cuFuncSetAttribute(fn,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               l.smem_dynamic),
            "cuFuncSetAttribute");
  CU_CALL(g,
          cuLaunchKernel(fn, l.grid[0], l.grid[1], l.grid[2], l.block[0],
                         l.block[1], l.block[2], (unsigned)l.smem_dynamic,
                         NULL, args.ptrs, NULL),
          "cuLaunchKernel");
  CU_CALL(g, cuCtxSynchronize(), "the instrumented kernel");
  {
    CUdeviceptr np;
    size_t bytes;
    if (g->get_global(&np, &bytes, mod, "tn_trace_n") != CUDA_SUCCESS)
      goto fail;
    CU_CALL(g, cuMemcpyDtoH(&n, np, sizeof(n)), "reading tn_trace_n");
  }
  if (n > cap) {
    fprintf(stderr, "%s: %u records, more than the %u the buffer holds\n",
            label, n, cap);
    goto fail;
  }
  if (n > 0) {
    unsigned *raw = malloc((size_t)n * 6 * sizeof(unsigned));
    unsigned k;
    if (raw == NULL)
      goto fail;
    if (g->cu.cuMemcpyDtoH(raw, g->trace, (size_t)n * 6 * 4) !=
        CUDA_SUCCESS) {
      free(raw);
      goto fail;
    }
    for (k = 0; k < n; k++) {
      g->host[k].warp = raw[6 * k];
      g->host[k].seq = raw[6 * k + 1];
      g->host[k].lane = raw[6 * k + 2];
      g->host[k].addr = raw[6 * k + 3];
      g->host[k].op = raw[6 * k + 4];
      g->host[k].width = raw[6 * k + 5];
    }
    free(raw);
  }
  if (tn_drift_trace_group(g->host, n, &trace, why, sizeof(why)) != 0) {
    fprintf(stderr, "%s: %s\n", label, why);
    bad = plan.n + 1;
    goto done;
  }
  bad = tn_drift_compare(&plan, &trace, label, 6);
  if (bad)
    fprintf(stderr, "%s: %lld differences (%d accesses planned, %d "
                    "traced)\n", label, bad, plan.n, trace.n);
  g->launches++;
  g->accesses += plan.n;
  goto done;
fail:
  bad = -1;
done:
  if (mod)
    g->cu.cuModuleUnload(mod);
  for (i = 0; i < nb; i++)
    if (bufs[i])
      g->cu.cuMemFree(bufs[i]);
  if (workspace)
    g->cu.cuMemFree(workspace);
  tn_block_plan_free(&plan);
  tn_block_plan_free(&trace);
  return bad;
}

static int run_config(gpu *g, const char *arg)
{
  static tn_job job;
  char path[4096], *colon;
  tn_template tpl;
  tn_space space;
  tn_err err = {{0}};
  void **cubins;
  const tn_arch *arch;
  int i, pruned = 0, rc = 0;

  snprintf(path, sizeof(path), "%s", arg);
  colon = strrchr(path, ':');
  if (colon != NULL && strcmp(colon, ":pruned") == 0) {
    *colon = '\0';
    pruned = 1;
  }
  if (tn_config_load(path, &job, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  /* what a run compiles for: sm_90a where the family needs it */
  arch = tn_precheck_target(&job, g->arch);
  if (tn_template_load(job.template_path, &tpl, &err) != 0 ||
      tn_space_build(&job, arch, &space, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  if (pruned)
    tn_space_prune(&job, &space);
  cubins = calloc((size_t)space.n, sizeof(*cubins));
  if (cubins == NULL)
    return -1;
  /* The instrumented builds, in parallel (sizes are kernel arguments: one
   * build serves both problems). */
#pragma omp parallel for schedule(dynamic)
  for (i = 0; i < space.n; i++) {
    tn_candidate *c = &space.c[i];
    tn_err e = {{0}};
    char *src = NULL, *log = NULL, name[64];
    size_t len;
    if (c->status != TN_ST_PENDING)
      continue;
    snprintf(name, sizeof(name), "%s_%d_trace.cu", job.family->name, c->id);
    if (tn_drift_render_traced(job.family, &c->params, &job.problems[0],
                               &tpl, &src, &e) != 0 ||
        tn_compile_source(src, name, &tpl, arch, &cubins[i], &len, &log,
                          &e) != 0) {
#pragma omp critical
      fprintf(stderr, "%s: candidate %d: the instrumented build fails: "
                      "%s\n%s\n", path, c->id, e.msg, log ? log : "");
      free(cubins[i]);
      cubins[i] = NULL;
    }
    free(src);
    free(log);
  }
  for (i = 0; i < space.n; i++) {
    tn_candidate *c = &space.c[i];
    char ptxt[512], lab[5000];
    long long bad = 0;
    int ragged;
    if (c->status != TN_ST_PENDING)
      continue;
    tn_params_format(job.family->params, job.family->n_params, &c->params,
                     ptxt, sizeof(ptxt));
    g->candidates++;
    if (cubins[i] == NULL) {
      g->bad_candidates++;
      rc = -1;
      continue;
    }
    for (ragged = 0; ragged < 2; ragged++) {
      tn_problem prob;
      char why[256];
      long long b;
      snprintf(lab, sizeof(lab), "%s candidate %d (%s) %s", path, c->id,
               ptxt, ragged ? "ragged" : "full");
      int ob = tn_drift_one_block(job.family, &c->params,
                                  &job.problems[0], ragged, &prob, why,
                                  sizeof(why));
      if (ob == 1) {
        printf("%s: skipped: %s\n", lab, why);
        break;
      }
      if (ob != 0) {
        fprintf(stderr, "%s: %s\n", lab, why);
        bad++;
        continue;
      }
      snprintf(lab + strlen(lab), sizeof(lab) - strlen(lab), " %lldx%lldx%lld",
               prob.size.dims[0], prob.size.dims[1],
               prob.size.n_dims > 2 ? prob.size.dims[2] : 1LL);
      b = run_one(g, job.family, &c->params, &prob, cubins[i], lab);
      if (b < 0) {
        fprintf(stderr, "%s: could not run\n", lab);
        bad++;
        rc = -1;
      } else {
        bad += b;
        g->differences += b;
      }
    }
    if (bad)
      g->bad_candidates++;
    free(cubins[i]);
  }
  free(cubins);
  tn_space_free(&space);
  tn_template_free(&tpl);
  return rc;
}

int main(int argc, char **argv)
{
  static gpu g;
  tn_err err = {{0}};
  CUdevice dev;
  CUcontext ctx;
  const char *label = "gpu_drift_trace";
  char archname[16];
  int a = 1, device = 0, major = 0, minor = 0, rc = 0;

  if (argc > 2 && strcmp(argv[1], "--device") == 0) {
    device = atoi(argv[2]);
    a = 3;
  }
  if (a >= argc) {
    fprintf(stderr, "usage: gpu_drift_trace [--device N] "
                    "CONFIG[:pruned]...\n");
    return 2;
  }
  if (tn_cuda_load(&g.cu, &err) != 0) {
    fprintf(stderr, "gpu_drift_trace: %s: skipped\n", err.msg);
    return 77;
  }
  g.get_global = (get_global_fn)dlsym(g.cu.lib, "cuModuleGetGlobal_v2");
  if (g.get_global == NULL) {
    fprintf(stderr, "gpu_drift_trace: libcuda has no cuModuleGetGlobal_v2\n");
    return 1;
  }
  CU_CALL(&g, cuDeviceGet(&dev, device), "cuDeviceGet");
  CU_CALL(&g,
          cuDeviceGetAttribute(&major,
                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                               dev),
          "cuDeviceGetAttribute");
  CU_CALL(&g,
          cuDeviceGetAttribute(&minor,
                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                               dev),
          "cuDeviceGetAttribute");
  snprintf(archname, sizeof(archname), "sm_%d%d", major, minor);
  g.arch = tn_arch_find(archname);
  if (g.arch == NULL) {
    fprintf(stderr, "gpu_drift_trace: the tuner does not know %s\n",
            archname);
    return 1;
  }
  CU_CALL(&g, cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  CU_CALL(&g, cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  CU_CALL(&g, cuMemAlloc(&g.trace, (size_t)TRACE_CAP * 6 * 4), "cuMemAlloc");
  g.host = malloc((size_t)TRACE_CAP * sizeof(*g.host));
  if (g.host == NULL)
    goto fail;
  for (; a < argc; a++)
    if (run_config(&g, argv[a]) != 0)
      rc = 1;
  printf("gpu_drift_trace on %s: %lld candidates, %lld launches of one "
         "block, %lld warp accesses compared; %lld candidates differ from "
         "their plans (%lld accesses)\n",
         archname, g.candidates, g.launches, g.accesses, g.bad_candidates,
         g.differences);
  if (g.bad_candidates || g.candidates == 0)
    rc = 1;
  free(g.host);
  g.cu.cuMemFree(g.trace);
  g.cu.cuDevicePrimaryCtxRelease(dev);
  return rc;
fail:
  return 1;
}

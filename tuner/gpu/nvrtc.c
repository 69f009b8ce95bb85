/* nvrtc.c -- NVRTC: one CUDA source to a CUBIN (nvrtc.h). */
#define _POSIX_C_SOURCE 200809L
#include "gpu/nvrtc.h"

#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 if this NVRTC is major.minor or newer. */
static int nvrtc_at_least(int major, int minor)
{
  int a = 0, b = 0;
  if (nvrtcVersion(&a, &b) != NVRTC_SUCCESS)
    return 0;
  return a > major || (a == major && b >= minor);
}

int tn_nvrtc_options(const tn_arch *arch, int fresh,
                     char opts[TN_NVRTC_MAX_OPTS][64])
{
  int n = 0;
  snprintf(opts[n++], 64, "-arch=%s", arch->name);
  snprintf(opts[n++], 64, "-std=c++17");
  /* ptxas -v puts registers, spills and shared memory into the log */
  snprintf(opts[n++], 64, "--ptxas-options=-v");
  snprintf(opts[n++], 64, "-lineinfo");
  /* NVRTC 12.9 and later keep CUBINs in the driver's compute cache
   * (~/.nv/ComputeCache) when a driver is there, and a hit comes without
   * ptxas -v's lines: every GEMM candidate of run 10 on the H200 read 0
   * registers, and "compiling" took 18 ms.  The tuner's own cache keeps
   * the log, so for candidates NVRTC's is off: each compile is a compile. */
  if (fresh && nvrtc_at_least(12, 9))
    snprintf(opts[n++], 64, "--no-cache");
  return n;
}

void tn_nvrtc_version(char *out, size_t n)
{
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    snprintf(out, n, "unknown");
  else
    snprintf(out, n, "%d.%d", major, minor);
}

/* Copies a compiled program's CUBIN out.  Returns 0 or TN_ETOOL. */
static int take_cubin(nvrtcProgram prog, void **cubin, size_t *cubin_len,
                      tn_err *err)
{
  size_t len = 0;
  nvrtcResult r = nvrtcGetCUBINSize(prog, &len);
  if (r != NVRTC_SUCCESS)
    return tn_errf(err, TN_ETOOL, "nvrtcGetCUBINSize: %s",
                   nvrtcGetErrorString(r));
  *cubin = malloc(len);
  if (*cubin == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory for a %zu-byte CUBIN", len);
  r = nvrtcGetCUBIN(prog, *cubin);
  if (r != NVRTC_SUCCESS) {
    free(*cubin);
    *cubin = NULL;
    return tn_errf(err, TN_ETOOL, "nvrtcGetCUBIN: %s", nvrtcGetErrorString(r));
  }
  *cubin_len = len;
  return 0;
}

int tn_nvrtc_compile(const char *source, const char *name,
                     const tn_nvrtc_headers *h, const tn_arch *arch,
                     int fresh, void **cubin, size_t *cubin_len, char **log,
                     tn_err *err)
{
  char opts[TN_NVRTC_MAX_OPTS][64];
  const char *optp[TN_NVRTC_MAX_OPTS];
  nvrtcProgram prog;
  nvrtcResult r;
  size_t len = 0;
  int i, n = tn_nvrtc_options(arch, fresh, opts), rc = 0;

  *cubin = NULL;
  *cubin_len = 0;
  *log = NULL;
  for (i = 0; i < n; i++)
    optp[i] = opts[i];
  r = nvrtcCreateProgram(&prog, source, name, h ? h->n : 0,
                         h ? (const char *const *)h->texts : NULL,
                         h ? (const char *const *)h->names : NULL);
  if (r != NVRTC_SUCCESS)
    return tn_errf(err, TN_ETOOL, "nvrtcCreateProgram: %s",
                   nvrtcGetErrorString(r));
  r = nvrtcCompileProgram(prog, n, optp);
  if (nvrtcGetProgramLogSize(prog, &len) == NVRTC_SUCCESS && len > 1) {
    *log = malloc(len);
    if (*log && nvrtcGetProgramLog(prog, *log) != NVRTC_SUCCESS) {
      free(*log);
      *log = NULL;
    }
  }
  if (r == NVRTC_ERROR_COMPILATION) {
    rc = 1;
  } else if (r != NVRTC_SUCCESS) {
    rc = tn_errf(err, TN_ETOOL, "nvrtcCompileProgram: %s",
                 nvrtcGetErrorString(r));
  } else {
    rc = take_cubin(prog, cubin, cubin_len, err);
  }
  nvrtcDestroyProgram(&prog);
  return rc;
}

int tn_nvrtc_helper(const char *source, const char *name,
                    const tn_arch *arch, void **cubin, size_t *cubin_len,
                    char **log, tn_err *err)
{
  return tn_nvrtc_compile(source, name, NULL, arch, 0, cubin, cubin_len, log,
                          err);
}

int tn_nvrtc_helper_cc(const char *source, const char *name, int cc_major,
                       int cc_minor, const char *fails, void **cubin,
                       size_t *cubin_len, char *why, size_t n)
{
  const tn_arch *arch = tn_arch_from_cc(cc_major, cc_minor);
  tn_err err = {{0}};
  char *log = NULL;
  int rc;

  if (arch == NULL)
    arch = tn_arch_nearest_older(cc_major, cc_minor);
  if (arch == NULL) {
    snprintf(why, n, "no known architecture for compute capability %d.%d",
             cc_major, cc_minor);
    return -1;
  }
  rc = tn_nvrtc_helper(source, name, arch, cubin, cubin_len, &log, &err);
  if (rc != 0)
    snprintf(why, n, "%s: %.400s", fails, rc > 0 && log ? log : err.msg);
  free(log);
  return rc != 0 ? -1 : 0;
}

int tn_nvrtc_ptx(const char *source, const char *name,
                 const tn_nvrtc_headers *h, const tn_arch *arch, char **ptx,
                 char **log, tn_err *err)
{
  char target[64];
  const char *opts[3];
  nvrtcProgram prog;
  nvrtcResult r;
  size_t len = 0;
  int rc = 0;

  *ptx = NULL;
  *log = NULL;
  /* the virtual architecture of arch ("sm_90a" -> "compute_90a") */
  snprintf(target, sizeof(target), "-arch=compute_%s", arch->name + 3);
  opts[0] = target;
  opts[1] = "-std=c++17";
  opts[2] = "-lineinfo";
  r = nvrtcCreateProgram(&prog, source, name, h ? h->n : 0,
                         h ? (const char *const *)h->texts : NULL,
                         h ? (const char *const *)h->names : NULL);
  if (r != NVRTC_SUCCESS)
    return tn_errf(err, TN_ETOOL, "nvrtcCreateProgram: %s",
                   nvrtcGetErrorString(r));
  r = nvrtcCompileProgram(prog, 3, opts);
  if (nvrtcGetProgramLogSize(prog, &len) == NVRTC_SUCCESS && len > 1) {
    *log = malloc(len);
    if (*log && nvrtcGetProgramLog(prog, *log) != NVRTC_SUCCESS) {
      free(*log);
      *log = NULL;
    }
  }
  if (r == NVRTC_ERROR_COMPILATION) {
    rc = 1;
  } else if (r != NVRTC_SUCCESS) {
    rc = tn_errf(err, TN_ETOOL, "nvrtcCompileProgram: %s",
                 nvrtcGetErrorString(r));
  } else if ((r = nvrtcGetPTXSize(prog, &len)) != NVRTC_SUCCESS ||
             (*ptx = malloc(len)) == NULL ||
             (r = nvrtcGetPTX(prog, *ptx)) != NVRTC_SUCCESS) {
    free(*ptx);
    *ptx = NULL;
    rc = tn_errf(err, TN_ETOOL, "nvrtcGetPTX: %s", nvrtcGetErrorString(r));
  }
  nvrtcDestroyProgram(&prog);
  return rc;
}

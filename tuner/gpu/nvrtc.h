/* nvrtc.h -- NVRTC: one CUDA source, with the headers it includes handed
 * over by name, to a CUBIN for an architecture.  No cache, no processes:
 * what the compile of candidates (pipeline/compile_nvrtc.h) and the
 * tuner's own kernels (the input generator, a family's reference
 * kernels, calibrate's) share. */
#ifndef TN_NVRTC_H
#define TN_NVRTC_H

#include <stddef.h>

#include "base/arch.h"
#include "base/util.h"

#define TN_NVRTC_MAX_OPTS 8

/* The headers a source includes with #include "...", by name: NVRTC
 * opens no file. */
typedef struct {
  int n;
  char *const *names;
  char *const *texts;
} tn_nvrtc_headers;

/* The options of a compile for arch.  fresh: NVRTC's own cache off, so
 * that the log has ptxas's lines (a candidate's compile: nvrtc.c says
 * why).  Returns their number. */
int tn_nvrtc_options(const tn_arch *arch, int fresh,
                     char opts[TN_NVRTC_MAX_OPTS][64]);

/* Compiles source (named name in messages) with headers (NULL: none) for
 * arch, with the options of tn_nvrtc_options.  Returns 0, 1 on a compile
 * error (log set), or TN_ETOOL if NVRTC failed otherwise.  *cubin and
 * *log are malloc'd. */
int tn_nvrtc_compile(const char *source, const char *name,
                     const tn_nvrtc_headers *headers, const tn_arch *arch,
                     int fresh, void **cubin, size_t *cubin_len, char **log,
                     tn_err *err);

/* tn_nvrtc_compile for the tuner's own kernels: no headers, and NVRTC's
 * cache may serve them, as nothing reads their log. */
int tn_nvrtc_helper(const char *source, const char *name,
                    const tn_arch *arch, void **cubin, size_t *cubin_len,
                    char **log, tn_err *err);

/* tn_nvrtc_helper for the device of compute capability cc_major.cc_minor
 * (its architecture, else the nearest older one the tuner knows).
 * Returns 0, or -1 with why: no architecture, or "FAILS: " and NVRTC's
 * log (FAILS says which kernel, e.g. "the input generator does not
 * compile"). */
int tn_nvrtc_helper_cc(const char *source, const char *name, int cc_major,
                       int cc_minor, const char *fails, void **cubin,
                       size_t *cubin_len, char *why, size_t n);

/* Compiles source (with headers) to PTX for arch's virtual architecture:
 * the entry points and their parameters, which a described kernel is
 * probed by.  0, 1 on a compile error (log set), or TN_ETOOL.  *ptx and
 * *log are malloc'd. */
int tn_nvrtc_ptx(const char *source, const char *name,
                 const tn_nvrtc_headers *headers, const tn_arch *arch,
                 char **ptx, char **log, tn_err *err);

/* NVRTC's version as "13.0", or "unknown". */
void tn_nvrtc_version(char *out, size_t n);

#endif

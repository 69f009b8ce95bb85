/* compile_nvrtc.h -- NVRTC itself: the options, one source to a CUBIN,
 * the resources ptxas reports.  No cache, no processes: the layer the
 * compile workers (compile_pool.h) and the cache key (compile_cache.h)
 * share. */
#ifndef TN_COMPILE_NVRTC_H
#define TN_COMPILE_NVRTC_H

#include <stddef.h>

#include "base/arch.h"
#include "pipeline/render.h"
#include "pipeline/space.h"
#include "base/util.h"

#define TN_COMPILE_MAX_OPTS 8

/* The NVRTC options of a candidate for arch (they feed the cache key;
 * NVRTC's own cache is off: its hits have no ptxas lines in the log).
 * Returns their number. */
int tn_compile_options(const tn_arch *arch,
                       char opts[TN_COMPILE_MAX_OPTS][64]);

/* Compiles one source (with the template's headers) for arch.
 * Returns 0 on success, 1 on a compile error (log set), TN_ETOOL if NVRTC
 * failed otherwise.  *cubin and *log are malloc'd. */
int tn_compile_source(const char *source, const char *name,
                      const tn_template *t, const tn_arch *arch,
                      void **cubin, size_t *cubin_len, char **log,
                      tn_err *err);

/* tn_compile_source for the tuner's own kernels (the input generator,
 * the references): NVRTC's cache may serve them, as nothing reads their
 * log. */
int tn_compile_helper(const char *source, const char *name,
                      const tn_arch *arch, void **cubin, size_t *cubin_len,
                      char **log, tn_err *err);

/* Compiles one source (with the template's headers) to PTX for arch's
 * virtual architecture: what the kernel probe reads the entry points and
 * their parameters from.  0, 1 on a compile error (log set), TN_ETOOL.
 * *ptx and *log are malloc'd. */
int tn_compile_ptx(const char *source, const char *name, const tn_template *t,
                   const tn_arch *arch, char **ptx, char **log, tn_err *err);

/* Reads registers, stack, spills and shared memory from a ptxas -v log.
 * Returns 0 if it found the "Used N registers" line. */
int tn_compile_parse_resources(const char *log, tn_candidate *c);

/* NVRTC's version as "13.0". */
void tn_compile_nvrtc_version(char *out, size_t n);

#endif

/* compile_nvrtc.h -- a candidate's compile: its rendered source with the
 * template's headers through NVRTC (gpu/nvrtc.h) with NVRTC's own cache
 * off, and the resources ptxas reports.  No cache, no processes: the
 * layer the compile workers (compile_pool.h) and the cache key
 * (compile_cache.h) share. */
#ifndef TN_COMPILE_NVRTC_H
#define TN_COMPILE_NVRTC_H

#include <stddef.h>

#include "base/arch.h"
#include "base/util.h"
#include "gpu/nvrtc.h"
#include "pipeline/render.h"
#include "pipeline/space.h"

/* The NVRTC options of a candidate for arch (they feed the cache key).
 * Returns their number. */
int tn_compile_options(const tn_arch *arch,
                       char opts[TN_NVRTC_MAX_OPTS][64]);

/* Compiles one source with the template's headers (t NULL: none) for
 * arch.  Returns 0 on success, 1 on a compile error (log set), TN_ETOOL
 * if NVRTC failed otherwise.  *cubin and *log are malloc'd. */
int tn_compile_source(const char *source, const char *name,
                      const tn_template *t, const tn_arch *arch,
                      void **cubin, size_t *cubin_len, char **log,
                      tn_err *err);

/* Compiles one source with the template's headers (t NULL: none) to PTX
 * (tn_nvrtc_ptx): what the kernel probe reads a described kernel's entry
 * points from.  0, 1 on a compile error (log set), or TN_ETOOL. */
int tn_compile_ptx(const char *source, const char *name, const tn_template *t,
                   const tn_arch *arch, char **ptx, char **log, tn_err *err);

/* Reads registers, stack, spills and shared memory from a ptxas -v log:
 * those of kernel (its symbol), where the log compiled several entry
 * functions (a user's file with its reference), else the log's last.
 * Returns 0 if it found the "Used N registers" line. */
int tn_compile_parse_resources(const char *log, const char *kernel,
                               tn_candidate *c);

#endif

/* compile.h -- NVRTC, in parallel, with an on-disk cache.
 *
 * Each pending candidate is rendered and compiled to a CUBIN for one
 * architecture.  The cache key is a hash of the source, the headers, the
 * options and NVRTC's version, so a second run of the same space compiles
 * nothing.  Each entry carries a checksum; one that does not verify is
 * compiled again.  A candidate that fails to compile keeps its log and the run
 * goes on. */
#ifndef TN_COMPILE_H
#define TN_COMPILE_H

#include "base/arch.h"
#include "pipeline/config.h"
#include "pipeline/render.h"
#include "pipeline/space.h"
#include "base/util.h"

typedef struct {
  char cache_dir[4096]; /* empty: no cache */
  int jobs;             /* OpenMP threads; 0: all cores */
  int quiet;            /* no progress bar */
} tn_compile_opts;

typedef struct {
  int compiled;    /* NVRTC ran */
  int cached;      /* served from the cache */
  int failed;      /* compile errors (fresh or cached) */
  int threads;     /* OpenMP threads used */
  double wall_s;   /* the whole stage */
  double cpu_s;    /* sum of the NVRTC calls' times */
} tn_compile_stats;

/* Default cache folder: $TUNER_CACHE_DIR, $XDG_CACHE_HOME/tuner or
 * ~/.cache/tuner. */
void tn_compile_default_cache(char *out, size_t n);

/* Checks one cache entry (<dir>/<key>.tnc: a header line with the sizes
 * and a checksum, the log, the CUBIN).  Returns 0 if it verifies, or -1
 * with why; tn_compile_space treats a bad entry as a miss and rewrites
 * it. */
int tn_compile_cache_check(const char *path, char *why, size_t n);

/* Compiles every TN_ST_PENDING candidate of space; sets it to
 * TN_ST_COMPILED or TN_ST_COMPILE_ERROR.  Returns 0, TN_ETOOL if NVRTC
 * itself is unusable, or TN_EINPUT (naming the template and the kernel) if
 * a CUBIN has no function named as the family's kernel in its ELF symbol
 * table: the template defines no extern "C" __global__ kernel of that
 * name. */
int tn_compile_space(const tn_job *job, const tn_template *t,
                     const tn_arch *arch, tn_space *space,
                     const tn_compile_opts *opts, tn_compile_stats *stats,
                     tn_err *err);

/* Compiles one source (with the template's headers) for arch.
 * Returns 0 on success, 1 on a compile error (log set), TN_ETOOL if NVRTC
 * failed otherwise.  *cubin and *log are malloc'd. */
int tn_compile_source(const char *source, const char *name,
                      const tn_template *t, const tn_arch *arch,
                      void **cubin, size_t *cubin_len, char **log,
                      tn_err *err);

/* Reads registers, stack, spills and shared memory from a ptxas -v log.
 * Returns 0 if it found the "Used N registers" line. */
int tn_compile_parse_resources(const char *log, tn_candidate *c);

/* NVRTC's version as "13.0". */
void tn_compile_nvrtc_version(char *out, size_t n);

#endif

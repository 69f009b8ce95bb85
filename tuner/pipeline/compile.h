/* compile.h -- NVRTC, in parallel, with an on-disk cache.
 *
 * Each pending candidate is rendered and compiled to a CUBIN for one
 * architecture, in worker processes (compile_pool.h: NVRTC serializes
 * inside one process), fed by a thread of the caller's, so that the
 * caller can use the first candidates while the rest compile.  A second
 * run of the same space compiles nothing (compile_cache.h); an entry that
 * does not verify is compiled again.  A candidate that fails to compile,
 * or whose worker dies, keeps its log or the reason and the run goes on. */
#ifndef TN_COMPILE_H
#define TN_COMPILE_H

#include "base/arch.h"
#include "pipeline/config.h"
#include "pipeline/render.h"
#include "pipeline/space.h"
#include "base/util.h"
#include "pipeline/compile_cache.h"
#include "pipeline/compile_nvrtc.h"
#include "pipeline/compile_trace.h"

typedef struct {
  char cache_dir[4096]; /* empty: no cache */
  const tn_mac_key *cache_mac; /* the cache's key; NULL: a private one */
  int jobs;             /* compile workers; 0: one per core */
  int quiet;            /* no progress bar */
  /* the run's workers (started and warmed, or to start on the first
   * miss), which outlive the compile; NULL: the compile starts its own
   * and stops them when it ends */
  tn_compile_pool *pool;
  /* the order the caller will wait for the candidates in (a permutation
   * of the space's indices), which the compiles follow; NULL: the longest
   * first, by the family's compile_weight, so that no long compile is
   * left for the end while the other workers idle */
  const int *order;
} tn_compile_opts;

typedef struct {
  int compiled;    /* NVRTC ran */
  int cached;      /* served from the cache */
  int failed;      /* compile errors (fresh or cached) */
  int threads;     /* compile workers (1: in this process) */
  double wall_s;   /* from the start to the last candidate compiled */
  double cpu_s;    /* sum of the NVRTC calls' times */
  tn_compile_trace trace;
} tn_compile_stats;


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

/* A space being compiled in the background. */
/* The order compiles take (n = space->n indices): given (a permutation
 * of the space's indices, copied), else the longest first by
 * f->compile_weight (ties, and families without it, by index).  0, or -1
 * when given is not a permutation or memory ran out. */
int tn_compile_order(const tn_family *f, const tn_space *space,
                     const int *given, int *order);

typedef struct tn_compile_run tn_compile_run;

/* Starts compiling every TN_ST_PENDING candidate of space: a thread
 * looks each up in the cache and feeds the misses to opts->pool, else to
 * opts->jobs workers of its own (TUNER_COMPILER=none, or a program that
 * does not serve "__compile": one at a time in that thread), in
 * opts->order, except that the one tn_compile_wait waits for goes next; while more are left than there are workers, each worker
 * gets its next source before it answers.  The candidates stay untouched
 * until waited for; background: no progress bar.  Returns 0 with *out,
 * or TN_ETOOL. */
int tn_compile_start(const tn_job *job, const tn_template *t,
                     const tn_arch *arch, tn_space *space,
                     const tn_compile_opts *opts, int background,
                     tn_compile_run **out, tn_err *err);

/* Waits until candidate index is compiled and sets it to TN_ST_COMPILED
 * or TN_ST_COMPILE_ERROR (with its log, resources, reason) as
 * tn_compile_space does; returns at once for a candidate that was not
 * pending.  Returns 0, TN_ETOOL (NVRTC unusable) or TN_EINPUT (its CUBIN
 * lacks the family's kernel, as tn_compile_space says). */
int tn_compile_wait(tn_compile_run *r, int index, tn_err *err);

/* Ends r: without cancel, waits for every candidate; with it, stops
 * (a candidate not compiled yet stays TN_ST_PENDING).  Applies what was
 * compiled, fills stats, frees r (NULL: stats zeroed). */
void tn_compile_finish(tn_compile_run *r, int cancel,
                       tn_compile_stats *stats);

#endif

/* compile_pool.h -- NVRTC in worker processes ("tuner __compile").
 *
 * NVRTC serializes inside one process, so true parallel compiling takes
 * processes.  Each worker is this program started as "tuner __compile"
 * (or the program TUNER_COMPILER names), fed over pipes: once the
 * template's headers and the architecture, then one rendered source per
 * request; it answers with the status, the log and the CUBIN, then stores
 * the cache entry itself (atomic writes: safe from many processes).  A
 * worker that dies costs the one candidate it was compiling; the next
 * request starts a fresh one.  Workers start when first needed, so a run
 * served from the cache starts none. */
#ifndef TN_COMPILE_POOL_H
#define TN_COMPILE_POOL_H

#include <stddef.h>
#include <sys/types.h>

#include "base/arch.h"
#include "pipeline/render.h"
#include "base/util.h"

#define TN_COMPILE_POOL_MAX 256 /* workers at most, whatever --jobs says */

typedef struct {
  pid_t pid;      /* 0: not running */
  int to_fd, from_fd;
  int index;      /* the request it is compiling, -1: idle */
  int hello;      /* it said it started */
} tn_compile_pool_worker;

typedef struct {
  char exe[4096];
  int n;          /* workers at most */
  tn_compile_pool_worker *w;
  int starts;     /* workers started, restarts included */
  const tn_template *t;
  const tn_arch *arch;
  char cache_dir[4096];
} tn_compile_pool;

typedef struct {
  int index;      /* the request's */
  int rc;         /* 0 compiled, 1 compile error, 2 the worker died */
  char *log;      /* malloc'd or NULL */
  void *cubin;    /* malloc'd or NULL */
  size_t cubin_len;
  char why[256];  /* rc 2: how the worker died */
} tn_compile_pool_result;

/* main.c: this program serves "__compile", so the pool may start it. */
void tn_compile_pool_serve_self(void);

/* The program to start as a compile worker: $TUNER_COMPILER ("none": no
 * workers), else this program if it serves "__compile".  Returns 0 with
 * out set, or -1: compile in this process. */
int tn_compile_pool_exe(char *out, size_t n);

/* Workers for a machine: the cores this process may run on. */
int tn_compile_pool_cores(void);

/* Prepares a pool of at most n workers of exe; starts none.  cache_dir
 * empty: the workers store nothing. */
void tn_compile_pool_init(tn_compile_pool *p, const char *exe, int n,
                          const tn_template *t,
                          const tn_arch *arch, const char *cache_dir);

/* Gives source (named name, for candidate id; key: its cache key) to an
 * idle worker, starting one if needed.  Returns 0, 1 if every worker is
 * busy, or TN_ETOOL if a worker cannot be started. */
int tn_compile_pool_submit(tn_compile_pool *p, int index, int id,
                           const char *name,
                           const char *source, const char *key, tn_err *err);

/* Number of workers compiling now. */
int tn_compile_pool_busy(const tn_compile_pool *p);

/* Waits for one answer, or for wake_fd (>= 0) to become readable.
 * Returns 0 with res filled, 1 if woken (nothing collected), or TN_ETOOL
 * if a worker reported that NVRTC itself failed (err set; res->index is
 * the request), or a worker never started: the program does not serve
 * "__compile". */
int tn_compile_pool_collect(tn_compile_pool *p, int wake_fd,
                            tn_compile_pool_result *res,
                            tn_err *err);

/* Stops every worker: idle ones finish storing and leave, busy ones are
 * killed. */
void tn_compile_pool_close(tn_compile_pool *p);

/* "tuner __compile": the worker's loop on fds 3 and 4.  before, if not
 * NULL, runs before each compile with the candidate's id (tests use it
 * to crash or hold a worker).  Returns the exit status. */
int tn_compile_pool_serve(void (*before)(int id));
int tn_compile_pool_main(int argc, char **argv);

#endif

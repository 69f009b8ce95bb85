/* compile_pool.h -- NVRTC in worker processes ("tuner __compile").
 *
 * NVRTC serializes inside one process, so true parallel compiling takes
 * processes.  Each worker is this program started as "tuner __compile"
 * (compile_serve.h; or the program TUNER_COMPILER names), fed over pipes
 * (compile_wire.h): the template's headers and the architecture, then
 * rendered sources; it answers each with the status, the log and the
 * CUBIN, then stores the cache entry itself (atomic writes: safe from
 * many processes).
 *
 * A pool may be started and warmed before anything is rendered
 * (tn_compile_pool_warm: every worker pays NVRTC's one-time costs while
 * the run builds its space and the GPU worker starts), or not at all, in
 * which case a request that finds no idle worker starts one (a run served
 * from the cache then starts none).  It outlives a compile phase: the run
 * owns it, and a new SETUP retargets it.  A worker holds up to
 * TN_COMPILE_POOL_DEPTH requests, so that it has its next source when it
 * answers.  A worker that dies costs the one candidate it was compiling
 * (the requests queued behind it are given back); the next request starts
 * a fresh one. */
#ifndef TN_COMPILE_POOL_H
#define TN_COMPILE_POOL_H

#include <stddef.h>
#include <sys/types.h>

#include "base/arch.h"
#include "base/mac.h"
#include "pipeline/render.h"
#include "base/util.h"

#define TN_COMPILE_POOL_MAX 256 /* workers at most, whatever --jobs says */
#define TN_COMPILE_POOL_DEPTH 2 /* requests out per worker at most */

typedef struct {
  int index;   /* the caller's */
  double sent; /* tn_now() when written to the worker */
} tn_compile_pool_request;

typedef struct {
  pid_t pid;   /* 0: not running */
  int to_fd, from_fd;
  tn_compile_pool_request q[TN_COMPILE_POOL_DEPTH]; /* out, oldest first */
  int depth;   /* requests out */
  int hello;   /* it said it started */
  int warming; /* WARM sent, READY not read yet */
  int jobs;    /* requests this process was given */
  int setup_gen;
  size_t pipe_cap; /* bytes its request pipe holds */
  double t_fork, t_main, t_ready, warm_s; /* t_ready 0: not warmed */
} tn_compile_pool_worker;

typedef struct {
  char exe[4096];
  int n;       /* workers at most */
  tn_compile_pool_worker w[TN_COMPILE_POOL_MAX];
  int starts;  /* processes started, restarts included */
  int warmed;  /* of them, warm before their first request */
  /* what requests compile with (the last tn_compile_pool_setup) */
  const tn_template *t;
  const tn_arch *arch;
  char cache_dir[4096];
  int keyed;          /* the workers MAC their entries with mac */
  tn_mac_key mac;
  int setup_gen;      /* 0: none yet */
  size_t setup_bytes; /* a SETUP's size on the pipe */
  /* for the trace (compile_trace.h); 0: not yet */
  double t_first_fork; /* a worker was started */
  double t_warm;       /* tn_compile_pool_warm was called */
  double t_first_ready, t_last_ready; /* warm-ups done */
} tn_compile_pool;

/* When a worker handled a request (tn_now() seconds; one clock for
 * every process of the machine). */
typedef struct {
  int worker;      /* its place in the pool */
  double sent;     /* written to the worker */
  double received; /* the worker had read it */
  double started, finished; /* the NVRTC call */
  double answered; /* the worker began its answer */
  double read;     /* the answer was read here */
} tn_compile_pool_times;

typedef struct {
  int index;      /* the request's; -1: none (see requeue) */
  int rc;         /* 0 compiled, 1 compile error, 2 the worker died */
  char *log;      /* malloc'd or NULL */
  void *cubin;    /* malloc'd or NULL */
  size_t cubin_len;
  char why[256];  /* rc 2: how the worker died */
  tn_compile_pool_times times;
  /* requests a dead worker had not begun: to be given again */
  int n_requeue;
  int requeue[TN_COMPILE_POOL_DEPTH];
} tn_compile_pool_result;

/* main.c: this program serves "__compile", so the pool may start it. */
void tn_compile_pool_serve_self(void);

/* The program to start as a compile worker: $TUNER_COMPILER ("none": no
 * workers), else this program if it serves "__compile".  Returns 0 with
 * out set, or -1: compile in this process. */
int tn_compile_pool_exe(char *out, size_t n);

/* Workers for a machine: the cores this process may run on. */
int tn_compile_pool_cores(void);

/* Prepares a pool of at most n workers of exe; starts none. */
void tn_compile_pool_init(tn_compile_pool *p, const char *exe, int n);

/* Starts every worker not running and has each pay NVRTC's one-time
 * costs for arch (any architecture serves: those costs are not the
 * architecture's) before its first request.  Returns 0 or TN_ETOOL (a
 * process cannot be made). */
int tn_compile_pool_warm(tn_compile_pool *p, const tn_arch *arch,
                         tn_err *err);

/* What the next requests compile with: t's headers (NULL: none), arch,
 * cache_dir (empty: the workers store nothing) and its key mac (NULL:
 * none; compile_cache.h).  Running workers are told now, workers started
 * later when they start.  Returns 0 or TN_ETOOL. */
int tn_compile_pool_setup(tn_compile_pool *p, const tn_template *t,
                          const tn_arch *arch, const char *cache_dir,
                          const tn_mac_key *mac, tn_err *err);

/* 1 if a request could be given now to a worker with fewer than depth
 * (1 or TN_COMPILE_POOL_DEPTH) requests out, or to one started for it. */
int tn_compile_pool_room(const tn_compile_pool *p, int depth);

/* Gives source (named name, for candidate id; key: its cache key) to an
 * idle worker, one started for it, or one with fewer than depth requests
 * out.  Returns 0, 1 if there is no room (the source does not fit behind
 * the busy ones), or TN_ETOOL if a worker cannot be started. */
int tn_compile_pool_submit(tn_compile_pool *p, int depth, int index, int id,
                           const char *name, const char *source,
                           const char *key, tn_err *err);

/* Requests out. */
int tn_compile_pool_outstanding(const tn_compile_pool *p);

/* Waits for one answer, or for wake_fd (>= 0) to become readable.
 * Returns 0 with res filled (an answer, or only requests to give again),
 * 1 if woken or nothing is out, or TN_ETOOL if a worker reported that
 * NVRTC itself failed (err set; res->index is the request), or a worker
 * never started: the program does not serve "__compile". */
int tn_compile_pool_collect(tn_compile_pool *p, int wake_fd,
                            tn_compile_pool_result *res, tn_err *err);

/* Reads what idle workers said without waiting (their warm-up times). */
void tn_compile_pool_drain(tn_compile_pool *p);

/* Stops every worker: those that compiled finish storing and leave, the
 * busy ones and those never given a request are killed. */
void tn_compile_pool_close(tn_compile_pool *p);

#endif

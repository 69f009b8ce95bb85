/* worker.h -- one benchmark process per GPU, supervised.
 *
 * The process that parses, compiles and records never touches the GPU: it
 * sends jobs over a pipe to a worker (this same program, started as
 * "tuner __worker"), which owns the CUDA context.  A kernel that traps,
 * corrupts the context or hangs costs only that worker: the supervisor
 * records the candidate as failed with the reason, starts a new worker on
 * the next job and the run goes on. */
#ifndef TN_WORKER_H
#define TN_WORKER_H

#include <sys/types.h>

#include "gpu/bench.h"
#include "base/util.h"

typedef struct {
  int ordinal;        /* GPU index */
  /* a family a config describes, given to every worker this starts
   * before its first job (NULL: the families compiled in suffice): the
   * config's path and text, which the worker reads as the run did */
  const char *family_path, *family_text;
  pid_t pid;          /* 0 when not running */
  int to_fd, from_fd; /* pipes to and from the worker */
  tn_device_info info;
  int starts;         /* workers started so far */
  double start_s;     /* seconds spent starting them, to their hello */
  char exe[4096];     /* the program to start */
} tn_worker;

/* Starts a worker for GPU ordinal and reads its device description.
 * Returns 0, TN_ENODEV (no driver or no such GPU) or TN_ETOOL. */
int tn_worker_start(tn_worker *w, int ordinal, tn_err *err);

/* Runs job on the worker, restarting it first if it died.  Waits at most
 * timeout_s; a worker past it is killed.  Always fills res (a dead or
 * timed-out worker gives TN_BENCH_FAILED with the reason); returns 0, or
 * TN_ENODEV / TN_ETOOL if no worker can be started at all. */
int tn_worker_run(tn_worker *w, const tn_bench_job *job, const void *cubin,
                  const void *ref_cubin, double timeout_s,
                  tn_bench_result *res, tn_err *err);

/* Ends the worker (closes its pipe, waits, kills if it lingers). */
void tn_worker_stop(tn_worker *w);

/* What a worker process runs jobs with: the GPU (tn_bench) in the tuner;
 * tests put a scripted backend behind the same protocol. */
typedef struct {
  /* Returns 0, or a negative code with err. */
  int (*open)(int ordinal, void **state, tn_device_info *info, tn_err *err);
  /* Takes a family a config describes (the run's config, path and
   * text) for the jobs that follow; 0, or -1 with why.  NULL: such
   * families are refused. */
  int (*define)(void *state, const char *path, const char *text, char *why,
                size_t n);
  /* Always fills res. */
  void (*run)(void *state, const tn_bench_job *job, const void *cubin,
              const void *ref_cubin, tn_bench_result *res);
  void (*close)(void *state);
} tn_worker_backend;

/* The worker's side: opens the device with backend, then serves jobs on
 * fds 3 (in) and 4 (out) until EOF, or until a result says the context is
 * lost.  Returns the process exit status. */
int tn_worker_serve(const tn_worker_backend *backend, int ordinal);

/* What makes a family from a config's text in the worker: the program
 * lends it (the config's reader sits above this layer).  Returns 0 with
 * the family (its memory the loader's until the worker ends), or -1 with
 * why. */
typedef int (*tn_family_loader)(const char *path, const char *text,
                                const tn_family **out, char *why, size_t n);

/* "tuner __worker N": tn_worker_serve with the GPU backend; load makes
 * described families (NULL: none). */
int tn_worker_main(int argc, char **argv, tn_family_loader load);

#endif

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
                  double timeout_s, tn_bench_result *res, tn_err *err);

/* Ends the worker (closes its pipe, waits, kills if it lingers). */
void tn_worker_stop(tn_worker *w);

/* What a worker process runs jobs with: the GPU (tn_bench) in the tuner;
 * tests put a scripted backend behind the same protocol. */
typedef struct {
  /* Returns 0, or a negative code with err. */
  int (*open)(int ordinal, void **state, tn_device_info *info, tn_err *err);
  /* Always fills res. */
  void (*run)(void *state, const tn_bench_job *job, const void *cubin,
              tn_bench_result *res);
  void (*close)(void *state);
} tn_worker_backend;

/* The worker's side: opens the device with backend, then serves jobs on
 * fds 3 (in) and 4 (out) until EOF, or until a result says the context is
 * lost.  Returns the process exit status. */
int tn_worker_serve(const tn_worker_backend *backend, int ordinal);

/* "tuner __worker N": tn_worker_serve with the GPU backend. */
int tn_worker_main(int argc, char **argv);

#endif

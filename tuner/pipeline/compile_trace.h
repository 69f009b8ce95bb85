/* compile_trace.h -- where a compile phase's wall time went.
 *
 * From the times the compile pool records for each request and each
 * worker (compile_pool.h), a handful of sums cheap enough to keep for
 * every run: the workers' starts and warm-ups, the phase from the first
 * request to the last result, and the worker-seconds of that phase split
 * into compiling, before each worker's first compile (its start or
 * warm-up, the first sources), between its compiles (the dispatch) and
 * after its last (the imbalance at the end).  Times are tn_now()
 * seconds, 0 where a thing did not happen. */
#ifndef TN_COMPILE_TRACE_H
#define TN_COMPILE_TRACE_H

#include <stdio.h>

#include "pipeline/compile_pool.h"

typedef struct {
  int workers;        /* the pool's size (0: compiled in this process) */
  int started;        /* worker processes started so far (restarts too) */
  int warmed;         /* of them, warm before a request */
  int requests;       /* compiles in the phase */
  double pool_start;  /* the first worker was forked */
  double warm_start;  /* the warm-up was asked for */
  double first_ready, last_ready; /* warm-ups done */
  double first_request, last_result;
  double busy_s, head_s, gaps_s, tail_s; /* worker-seconds */
  double answer_ms;   /* median, from a worker's answer to reading it */
  double wait_warm_s; /* of the caller's waits, before a worker was warm */
} tn_compile_trace;

/* Fills t from the pool (NULL: compiled here) and the n requests'
 * times (those with worker < 0 were not the pool's; a compile in this
 * process has only started and finished).  Keeps t->wait_warm_s. */
void tn_compile_trace_fill(tn_compile_trace *t, const tn_compile_pool *p,
                           const tn_compile_pool_times *times, int n);

/* The warm-up's wall time (asked for to the last worker warm), and the
 * part of it before the first request: what other work hid. */
double tn_compile_trace_warmup_s(const tn_compile_trace *t);
double tn_compile_trace_warmup_hidden_s(const tn_compile_trace *t);

/* The phase: first request to last result. */
double tn_compile_trace_phase_s(const tn_compile_trace *t);

/* One line for -v, "key=value" in seconds from t0 (the run's start). */
void tn_compile_trace_print(const tn_compile_trace *t, double t0, FILE *out);

#endif

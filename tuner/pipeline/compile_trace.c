/* compile_trace.c -- where a compile phase's wall time went. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/compile_trace.h"

#include <stdlib.h>
#include <string.h>

static int by_worker(const void *a, const void *b)
{
  const tn_compile_pool_times *x = *(const tn_compile_pool_times *const *)a;
  const tn_compile_pool_times *y = *(const tn_compile_pool_times *const *)b;
  if (x->worker != y->worker)
    return x->worker < y->worker ? -1 : 1;
  return (x->started > y->started) - (x->started < y->started);
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Requests handled by workers, by worker and start; the answer delays. */
static void per_worker(tn_compile_trace *t, const tn_compile_pool_times **w,
                       int nw, double *answer, int na)
{
  int i, groups = 0;
  qsort(w, (size_t)nw, sizeof(*w), by_worker);
  for (i = 0; i < nw; i++) {
    const tn_compile_pool_times *x = w[i];
    int first = i == 0 || w[i - 1]->worker != x->worker;
    int last = i + 1 == nw || w[i + 1]->worker != x->worker;
    if (first) {
      groups++;
      t->head_s += x->started - t->first_request;
    } else if (x->started > w[i - 1]->finished) {
      t->gaps_s += x->started - w[i - 1]->finished;
    }
    if (last)
      t->tail_s += t->last_result - x->finished;
  }
  /* a worker given nothing in the phase idled through all of it */
  if (t->workers > groups)
    t->tail_s += (t->workers - groups) * tn_compile_trace_phase_s(t);
  if (na > 0) {
    qsort(answer, (size_t)na, sizeof(*answer), by_value);
    t->answer_ms = 1e3 * answer[na / 2];
  }
}

void tn_compile_trace_fill(tn_compile_trace *t, const tn_compile_pool *p,
                           const tn_compile_pool_times *times, int n)
{
  const tn_compile_pool_times **w = malloc(sizeof(*w) * (size_t)(n + 1));
  double *answer = malloc(sizeof(*answer) * (size_t)(n + 1));
  double wait = t->wait_warm_s;
  int i, nw = 0, na = 0;

  memset(t, 0, sizeof(*t));
  t->wait_warm_s = wait;
  if (p) {
    t->workers = p->n;
    t->started = p->starts;
    t->warmed = p->warmed;
    t->pool_start = p->t_first_fork;
    t->warm_start = p->t_warm;
    t->first_ready = p->t_first_ready;
    t->last_ready = p->t_last_ready;
  }
  for (i = 0; i < n; i++) {
    const tn_compile_pool_times *x = &times[i];
    double begin = x->sent > 0 ? x->sent : x->started;
    double end = x->read > 0 ? x->read : x->finished;
    if (begin <= 0 || end <= 0)
      continue; /* not compiled: from the cache, or never answered */
    t->requests++;
    if (t->first_request == 0 || begin < t->first_request)
      t->first_request = begin;
    if (end > t->last_result)
      t->last_result = end;
    if (x->finished > x->started)
      t->busy_s += x->finished - x->started;
    if (x->worker >= 0 && x->started > 0 && w)
      w[nw++] = x;
    if (x->answered > 0 && answer)
      answer[na++] = x->read - x->answered;
  }
  if (p && w && answer)
    per_worker(t, w, nw, answer, na);
  free(w);
  free(answer);
}

double tn_compile_trace_warmup_s(const tn_compile_trace *t)
{
  return t->warm_start > 0 && t->last_ready > t->warm_start
             ? t->last_ready - t->warm_start
             : 0;
}

double tn_compile_trace_warmup_hidden_s(const tn_compile_trace *t)
{
  double end = t->last_ready;
  if (t->warm_start <= 0 || end <= t->warm_start)
    return 0;
  if (t->first_request > 0 && t->first_request < end)
    end = t->first_request;
  return end > t->warm_start ? end - t->warm_start : 0;
}

double tn_compile_trace_phase_s(const tn_compile_trace *t)
{
  return t->first_request > 0 ? t->last_result - t->first_request : 0;
}

/* " key=seconds from t0", or " key=-" for what did not happen. */
static void at(FILE *out, const char *key, double when, double t0)
{
  if (when > 0)
    fprintf(out, " %s=%.3f", key, when - t0);
  else
    fprintf(out, " %s=-", key);
}

void tn_compile_trace_print(const tn_compile_trace *t, double t0, FILE *out)
{
  fprintf(out, "tuner: compile trace: workers=%d started=%d warmed=%d "
               "requests=%d",
          t->workers, t->started, t->warmed, t->requests);
  at(out, "pool_start", t->pool_start, t0);
  at(out, "warm_start", t->warm_start, t0);
  at(out, "first_ready", t->first_ready, t0);
  at(out, "last_ready", t->last_ready, t0);
  at(out, "first_request", t->first_request, t0);
  at(out, "last_result", t->last_result, t0);
  fprintf(out,
          " warmup=%.3f warmup_hidden=%.3f wait_warm=%.3f phase=%.3f "
          "busy=%.3f head=%.3f gaps=%.3f tail=%.3f answer_ms=%.3f "
          "(times in s from the start of the run; busy, head, gaps, tail "
          "in worker-seconds of the phase)\n",
          tn_compile_trace_warmup_s(t), tn_compile_trace_warmup_hidden_s(t),
          t->wait_warm_s, tn_compile_trace_phase_s(t), t->busy_s, t->head_s,
          t->gaps_s, t->tail_s, t->answer_ms);
}

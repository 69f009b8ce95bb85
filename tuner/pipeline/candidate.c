/* candidate.c -- what a candidate holds and owns (candidate.h). */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/candidate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A reason that found no memory.  It and an empty reason (every "") are
 * not freed; a reason of the candidate's own is never empty. */
static const char no_memory[] = "(no memory left for the reason)";

static int reason_owned(const char *r)
{
  return r != NULL && r[0] != '\0' && r != no_memory;
}

void tn_candidate_set_reason(tn_candidate *c, const char *fmt, ...)
{
  va_list ap;
  char *text = NULL;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n > 0)
    text = malloc((size_t)n + 1);
  if (text != NULL) {
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  if (reason_owned(c->reason))
    free((char *)c->reason);
  c->reason = text != NULL ? text : n == 0 ? "" : no_memory;
}

int tn_candidates_per_problem(tn_candidate *c, int n, int n_problems,
                              void **block)
{
  size_t rows, k;
  char *b;
  int i;
  *block = NULL;
  if (n <= 0)
    return n == 0 ? 0 : -1;
  if (n_problems > TN_MAX_SIZES)
    return -1;
  if (n_problems < 1)
    n_problems = 1; /* a job of no problem (tests) has one entry */
  rows = (size_t)n * (size_t)n_problems;
  b = calloc(rows, sizeof(tn_model_cost) + sizeof(tn_time_pred) +
                       sizeof(tn_timing));
  if (b == NULL)
    return -1;
  *block = b;
  /* all the models, then all the predictions, then all the timings */
  for (i = 0; i < n; i++) {
    k = (size_t)i * (size_t)n_problems;
    c[i].n_problems = n_problems;
    c[i].model = (tn_model_cost *)b + k;
    c[i].pred = (tn_time_pred *)(b + rows * sizeof(tn_model_cost)) + k;
    c[i].timing =
        (tn_timing *)(b + rows * (sizeof(tn_model_cost) +
                                  sizeof(tn_time_pred))) + k;
  }
  return 0;
}

int tn_candidate_copy_owned(tn_candidate *c, const tn_candidate *s)
{
  int k;
  for (k = 0; k < s->n_problems && k < c->n_problems; k++) {
    c->model[k] = s->model[k];
    c->pred[k] = s->pred[k];
    c->timing[k] = s->timing[k];
  }
  c->reason = "";
  c->log = NULL;
  c->cubin = NULL;
  if (reason_owned(s->reason)) {
    tn_candidate_set_reason(c, "%s", s->reason);
    if (c->reason == no_memory)
      return -1;
  }
  if (s->log) {
    c->log = strdup(s->log);
    if (c->log == NULL)
      return -1;
  }
  if (s->cubin) {
    c->cubin = malloc(s->cubin_len);
    if (c->cubin == NULL)
      return -1;
    memcpy(c->cubin, s->cubin, s->cubin_len);
  }
  return 0;
}

void tn_candidate_free_owned(tn_candidate *c)
{
  free(c->log);
  free(c->cubin);
  if (reason_owned(c->reason))
    free((char *)c->reason);
  c->log = NULL;
  c->cubin = NULL;
  c->reason = "";
}

int tn_candidate_modelled(const tn_candidate *c)
{
  return c->status != TN_ST_PRUNED || c->pruned_by == TN_BY_MODEL ||
         c->pruned_by == TN_BY_TIME_MODEL || c->pruned_by == TN_BY_MEASURED;
}

static const char *const status_names[] = {
    "pending", "pruned", "compile_error", "compiled",
    "ok",      "wrong_result", "failed"};

const char *tn_status_name(tn_status st)
{
  return (unsigned)st < 7 ? status_names[st] : "?";
}

int tn_status_parse(const char *name)
{
  int i;
  for (i = 0; i < 7; i++)
    if (strcmp(status_names[i], name) == 0)
      return i;
  return -1;
}

const char *tn_pruned_by_name(tn_pruned_by by)
{
  switch (by) {
  case TN_BY_FAMILY:
    return "family";
  case TN_BY_CONSTRAINT:
    return "constraint";
  case TN_BY_LIMITS:
    return "limits";
  case TN_BY_MODEL:
    return "model";
  case TN_BY_TIME_MODEL:
    return "time_model";
  case TN_BY_MEASURED:
    return "measured";
  default:
    return "";
  }
}

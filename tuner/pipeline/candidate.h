/* candidate.h -- one point of a space as a run records it: its state
 * and why, its launch, its model, prediction and timing per problem, and
 * its compile.  The space (space.h) makes the candidates; this module is
 * what each one holds and owns, and the names of its states. */
#ifndef TN_CANDIDATE_H
#define TN_CANDIDATE_H

#include <stddef.h>

#include "family/family.h"
#include "family/param.h"
#include "gpu/clocks.h"
#include "gpu/timing.h"
#include "model/model.h"
#include "model/time.h"

typedef enum {
  TN_ST_PENDING,       /* goes on to be compiled */
  TN_ST_PRUNED,        /* not compiled: see pruned_by and reason */
  TN_ST_COMPILE_ERROR, /* NVRTC failed: see the log */
  TN_ST_COMPILED,      /* compiled; not run (dry run) */
  TN_ST_OK,            /* verified and timed */
  TN_ST_WRONG,         /* output differs from the reference */
  TN_ST_FAILED         /* launch error, crash, hang or timeout */
} tn_status;

typedef enum {
  TN_BY_NONE,
  TN_BY_FAMILY,     /* the family's own rules (e.g. tile % rows) */
  TN_BY_CONSTRAINT, /* a constraint of the config */
  TN_BY_LIMITS,     /* the architecture's limits */
  TN_BY_MODEL,      /* a sibling is strictly cheaper in the model (runs
                       before the time model; read from old results) */
  TN_BY_TIME_MODEL, /* the time model: it cannot win, with margin */
  TN_BY_MEASURED    /* the time model corrected by the run's own
                       measurements, or the layouts' measured order
                       (measured.h): while the run benchmarks */
} tn_pruned_by;

/* One point of the space.  What it has per problem (model, pred, timing)
 * are arrays of the job's n_problems, which the space allocates for all
 * its candidates at once: c->model[k] for problem k. */
typedef struct {
  int id;                  /* position in the enumeration, from 0 */
  tn_params params;
  tn_status status;
  tn_pruned_by pruned_by;
  /* why it is not run: "" or a string of its own, set by
   * tn_candidate_set_reason (a space of 100,000 points keeps only the
   * reasons it has) */
  const char *reason;
  tn_launch launch;                    /* on the first problem */
  int n_problems;                      /* the length of the arrays below */
  tn_model_cost *model;                /* per problem */
  long long model_total;               /* wavefronts over all problems */
  /* the time model's prediction per problem and summed like total_ms
   * (pred_total.ms 0: not predicted); with the compiled registers once
   * compiled */
  tn_time_pred *pred;
  tn_time_pred pred_total;
  /* compile */
  int regs, spill_stores, spill_loads, stack_bytes, smem_bytes;
  double compile_s;
  int cache_hit;
  char *log;        /* NVRTC log (malloc'd), NULL if empty */
  void *cubin;      /* malloc'd */
  size_t cubin_len;
  /* bench, per problem */
  tn_timing *timing;
  double total_ms;  /* sum of medians over the problems */
  int raced_out;    /* its launches stopped early: it cannot win */
  double timed_at;  /* when it was timed (tn_wall_now, the middle of its
                       jobs); 0: not known (a journal before it) */
  tn_clocks clocks; /* NVML's readings while it was timed, all sizes */
} tn_candidate;

/* Sets c's reason (printf's format), replacing the one it had.  Without
 * memory for it, the reason says so: a reason is never lost silently. */
void tn_candidate_set_reason(tn_candidate *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Points each of the n candidates c at its per-problem arrays (model,
 * pred, timing) of n_problems entries, zeroed: one allocation for all,
 * *block, which the caller frees after the candidates.  0, or -1 (out of
 * memory, or more than TN_MAX_SIZES problems). */
int tn_candidates_per_problem(tn_candidate *c, int n, int n_problems,
                              void **block);

/* Copies into c, whose per-problem arrays are made, the per-problem
 * values of s and copies of what s owns (reason, log, CUBIN).  0, or -1
 * out of memory (what was copied is c's, for tn_candidate_free_owned). */
int tn_candidate_copy_owned(tn_candidate *c, const tn_candidate *s);

/* Frees what c owns: its reason, log and CUBIN. */
void tn_candidate_free_owned(tn_candidate *c);

/* 1 if c has a model of its own: not pruned, or pruned by a model (the
 * wavefronts, the time model or the measured rules), not by the space. */
int tn_candidate_modelled(const tn_candidate *c);

const char *tn_status_name(tn_status st);
const char *tn_pruned_by_name(tn_pruned_by by);
/* Parses a status name; returns -1 if unknown. */
int tn_status_parse(const char *name);

#endif

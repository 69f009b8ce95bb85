/* space.h -- the candidates of a job: enumeration, constraints, limits and
 * pruning by the model.
 *
 * Every point of the cross product of the listed values stays in the list
 * with its state and, when it is not run, the reason; nothing the user
 * asked for disappears silently. */
#ifndef TN_SPACE_H
#define TN_SPACE_H

#include "base/arch.h"
#include "pipeline/config.h"
#include "family/family.h"
#include "model/model.h"
#include "model/profile.h"
#include "model/time.h"
#include "family/param.h"
#include "gpu/clocks.h"
#include "gpu/timing.h"

/* The most points a space may have.  A candidate takes about 1 KB with
 * one problem before it is compiled (its parameters, launch, model,
 * prediction and timing, and a reason if it has one): 1,000,000 of them
 * about 1 GB. */
#define TN_MAX_CANDIDATES 1000000

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

typedef struct {
  int n;
  tn_candidate *c;
  const tn_arch *arch; /* of tn_space_build (NULL: the input check) */
  int have_profile;    /* tn_space_predict ran with profile */
  tn_profile profile;
  void *per_problem;   /* the candidates' per-problem arrays (malloc'd) */
} tn_space;

/* Sets c's reason (printf's format), replacing the one it had.  Without
 * memory for it, the reason says so: a reason is never lost silently. */
void tn_candidate_set_reason(tn_candidate *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Copies src into dst, the candidates and all they own (per-problem
 * arrays, reasons, logs, CUBINs).  Returns 0, or TN_ETOOL (out of memory:
 * dst is then empty). */
int tn_space_copy(tn_space *dst, const tn_space *src);

/* Enumerates the job's space for arch and applies the family's rules, the
 * constraints and the limits, and computes the model of every valid point.
 * With arch NULL, only the family's rules and the constraints: a check of
 * the input that needs no architecture.
 * Returns 0, TN_EINPUT (a constraint cannot be evaluated, the space is too
 * large or has no valid point) with err, or TN_ETOOL. */
int tn_space_build(const tn_job *job, const tn_arch *arch, tn_space *space,
                   tn_err *err);
/* Predicts the time of every candidate with a model (pending, or pruned
 * by a model) for space->arch with profile p (copied into the space):
 * with the compiled registers where compiled, else the family's
 * estimate.  Call again after the compile to refine. */
void tn_space_predict(const tn_job *job, const tn_profile *p,
                      tn_space *space);
/* Marks as pruned (TN_BY_TIME_MODEL) every pending candidate that the
 * time model says cannot win: at every size its predicted lo above the
 * predicted hi of the sibling (same values of every non-layout
 * parameter) whose hi is least, or its predicted time at least
 * TN_PRUNE_SIBLING_RATIO times the group's least there, or, across
 * groups, when every candidate
 * of its group left is above TN_PRUNE_GLOBAL_MARGIN times the least hi
 * of the whole space there (so no size loses the candidate predicted best
 * there): a group goes whole or keeps every layout the sibling rules kept.
 * Every reason gives the figures.  Without tn_space_predict first, it
 * predicts with the default profile for space->arch (tn_profile_for).
 * Returns the number pruned. */
#define TN_PRUNE_GLOBAL_MARGIN 1.0
/* Siblings differ in their layout alone: the profile's spreads move them
 * alike, so the model's own error (TN_TIME_MODEL_ERR) is taken once, on
 * their ratio, not on each (lo against hi: 1.27 apart).  It rests on the
 * replayed record of the H200 runs, not on the pairs' spread
 * (docs/notes/pruning.md). */
#define TN_PRUNE_SIBLING_RATIO (1.0 / (1.0 - TN_TIME_MODEL_ERR))
int tn_space_prune(const tn_job *job, tn_space *space);
/* Marks compiled candidates whose registers times threads exceed the
 * architecture's register file per SM as failed, with the reason. */
void tn_space_check_registers(tn_space *space, const tn_arch *arch);
/* 1 if c has a model of its own: not pruned, or pruned by a model (the
 * wavefronts, the time model or the measured rules), not by the space. */
int tn_candidate_modelled(const tn_candidate *c);
/* Orders by the values of f's non-layout parameters: 0 for siblings (the
 * same values of every one), which a sort by it puts together. */
int tn_space_cmp_group(const tn_family *f, const tn_candidate *a,
                       const tn_candidate *b);
/* 1 if a and b are siblings. */
int tn_space_siblings(const tn_family *f, const tn_candidate *a,
                      const tn_candidate *b);
/* Counts candidates in a state. */
int tn_space_count(const tn_space *space, tn_status st);
void tn_space_free(tn_space *space);

const char *tn_status_name(tn_status st);
const char *tn_pruned_by_name(tn_pruned_by by);
/* Parses a status name; returns -1 if unknown. */
int tn_status_parse(const char *name);

#endif

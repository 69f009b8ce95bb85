/* space.h -- the candidates of a job (candidate.h): enumeration,
 * constraints, limits and pruning by the model.
 *
 * Every point of the cross product of the listed values stays in the list
 * with its state and, when it is not run, the reason; nothing the user
 * asked for disappears silently. */
#ifndef TN_SPACE_H
#define TN_SPACE_H

#include "base/arch.h"
#include "family/family.h"
#include "family/param.h"
#include "model/profile.h"
#include "pipeline/candidate.h"
#include "pipeline/config.h"

/* The most points a space may have.  A candidate takes about 1 KB with
 * one problem before it is compiled (its parameters, launch, model,
 * prediction and timing, and a reason if it has one): 1,000,000 of them
 * about 1 GB. */
#define TN_MAX_CANDIDATES 1000000

typedef struct {
  int n;
  tn_candidate *c;
  const tn_arch *arch; /* of tn_space_build (NULL: the input check) */
  int have_profile;    /* tn_space_predict ran with profile */
  tn_profile profile;
  void *per_problem;   /* the candidates' per-problem arrays (malloc'd) */
} tn_space;

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

#endif

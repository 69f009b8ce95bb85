/* results_model.h -- the models' part of the results (results.c's
 * document): a candidate's wavefronts, its predicted time, and the device
 * profile the run predicted with (docs/results.md). */
#ifndef TN_RESULTS_MODEL_H
#define TN_RESULTS_MODEL_H

#include <jansson.h>

#include "pipeline/run.h"

/* 1 if c has a model of its own: valid, not excluded before the model. */
int tn_results_modelled(const tn_candidate *c);
/* One problem's wavefronts, as "model"."per_problem"[k]. */
json_t *tn_results_model(const tn_model_cost *m);
/* "predicted": {ms, lo_ms, hi_ms, bound, blocks_per_sm, waves,
 * per_problem: [the same per problem]}, summed like median_ms. */
json_t *tn_results_predicted(const tn_run *run, const tn_candidate *c);
/* Adds to the document's "run": "profile", the path of the profile used
 * (null when derived or none), and "profile_info": the figures it gave,
 * derived and what from. */
void tn_results_profile(const tn_run *run, json_t *run_obj);

#endif

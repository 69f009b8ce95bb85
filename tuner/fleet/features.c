/* features.c -- `tuner merge --features`: a second job's results, for
 * architecture-specific targets only ("sm_90a": the wgmma family, whose
 * code runs on that compute capability alone).  Its entries go into the
 * dispatch header as branches taken where the code is compiled for that
 * target (__CUDA_ARCH_FEAT_SM90_ALL); the main job's chain stays the
 * configuration everywhere else.  Both jobs must have tuned one problem,
 * or the header would switch kernels between different problems. */
#include "fleet/fleet.h"

#include <stdlib.h>
#include <string.h>

/* 1 if problem a of family fa and b of fb are one problem: the same size
 * and the same problem options, compared by name (the two families each
 * have their own option table). */
static int same_problem(const tn_family *fa, const tn_problem *a,
                        const tn_family *fb, const tn_problem *b)
{
  json_t *oa = json_object(), *ob = json_object();
  int i, same = oa != NULL && ob != NULL &&
                a->size.n_dims == b->size.n_dims;
  for (i = 0; same && i < a->size.n_dims; i++)
    same = a->size.dims[i] == b->size.dims[i];
  if (same) {
    tn_problem_options_json(fa, a, oa);
    tn_problem_options_json(fb, b, ob);
    same = json_equal(oa, ob);
  }
  json_decref(oa);
  json_decref(ob);
  return same;
}

static int same_problems(const mg_run *a, const mg_run *b)
{
  int k;
  if (a->n_problems != b->n_problems)
    return 0;
  for (k = 0; k < a->n_problems; k++)
    if (!same_problem(a->family, &a->problem_list[k], b->family,
                      &b->problem_list[k]))
      return 0;
  return 1;
}

/* The main job's inputs: none of a family compiled for such a target
 * (its entries belong in the features job, or the chain would hold code
 * that runs nowhere else). */
static int check_main(const mg_ctx *cx, tn_err *err)
{
  int i;
  for (i = 0; i < cx->n_inputs; i++) {
    const mg_run *r = cx->runs.r[i];
    if (r->family->arch_features)
      return tn_errf(err, TN_EINPUT,
                     "%s: family %s is compiled for architecture-specific "
                     "targets (%s): with --features its results go there, "
                     "not among RESULTS",
                     r->path, r->family->name,
                     tn_arch_features(r->arch) ? tn_arch_features(r->arch)
                                                     ->name
                                               : r->arch->name);
  }
  return 0;
}

static int check_run(const mg_ctx *cx, const mg_run *first, const mg_run *r,
                     tn_err *err)
{
  const mg_run *main0 = cx->runs.r[0];
  /* a run on an sm_90 GPU of such a family compiled for sm_90a */
  if (!r->family->arch_features || tn_arch_features(r->arch) == NULL)
    return tn_errf(err, TN_EINPUT,
                   "%s: family %s on %s: not compiled for an architecture-"
                   "specific target (sm_90a, sm_100a, ...); --features takes "
                   "only such results (give these among RESULTS)",
                   r->path, r->family->name, r->arch->name);
  if (first != NULL && strcmp(r->name, first->name) != 0)
    return tn_errf(err, TN_EINPUT,
                   "%s: name \"%s\", but %s is \"%s\": --features takes one "
                   "job's results",
                   r->path, r->name, first->path, first->name);
  if (!same_problems(r, main0))
    return tn_errf(err, TN_EINPUT,
                   "%s: problems (sizes and options): not those of %s: the "
                   "features job must tune what the main job tuned",
                   r->path, main0->path);
  return 0;
}

static int load_runs(mg_ctx *cx, tn_err *err)
{
  mg_features *fx = &cx->fx;
  mg_paths in = {0};
  mg_run *first = NULL;
  int i, j, rc = 0;

  for (i = 0; i < cx->opts.n_features && rc == 0; i++)
    rc = tn_fleet_expand_arg(cx->opts.features[i], &in, err);
  for (i = 0; i < in.n && rc == 0; i++) {
    mg_run *r = malloc(sizeof(*r));
    int dup = 0;
    if (r == NULL) {
      rc = tn_errf(err, TN_ETOOL, "out of memory");
      break;
    }
    rc = tn_fleet_load_run(in.p[i], 0, first, 0, r, err);
    if (rc == 0)
      rc = tn_fleet_check_future(r, cx->opts.now, cx->opts.now_text, err);
    if (rc == 0)
      rc = check_run(cx, first, r, err);
    for (j = 0; rc == 0 && j < fx->runs.n; j++)
      dup |= strcmp(fx->runs.r[j]->hash, r->hash) == 0;
    for (j = 0; rc == 0 && j < cx->runs.n; j++)
      if (strcmp(cx->runs.r[j]->hash, r->hash) == 0)
        rc = tn_errf(err, TN_EINPUT, "%s: given both among RESULTS and to "
                                     "--features",
                     r->path);
    if (rc != 0 || dup) {
      tn_fleet_run_free(r);
      continue;
    }
    if (first == NULL)
      first = r;
    rc = tn_fleet_runs_add(&fx->runs, r, err);
    if (rc)
      tn_fleet_run_free(r);
  }
  tn_fleet_paths_free(&in);
  if (rc == 0 && fx->runs.n == 0)
    rc = tn_errf(err, TN_EINPUT, "--features: no results files found");
  return rc;
}

int tn_fleet_features_load(mg_ctx *cx, tn_err *err)
{
  mg_features *fx = &cx->fx;
  int i, rc;

  if (cx->opts.n_features == 0)
    return 0;
  rc = check_main(cx, err);
  if (rc == 0)
    rc = load_runs(cx, err);
  if (rc != 0)
    return rc;
  fx->family = fx->runs.r[0]->family;
  tn_strlcpy(fx->name, fx->runs.r[0]->name, sizeof(fx->name));
  /* the runs name the GPU's architecture; their code and entry, its
   * target */
  for (i = 0; i < tn_fleet_n_archs() && rc == 0; i++) {
    const tn_arch *a = tn_arch_features(tn_arch_at(i));
    if (a == NULL)
      continue;
    rc = tn_fleet_choose_arch(&fx->runs, tn_arch_at(i), &fx->entry[i], err);
    if (fx->entry[i] != NULL) {
      fx->entry[i]->arch = a;
      fx->n++;
    }
  }
  if (rc == 0 && fx->n == 0)
    rc = tn_errf(err, TN_EINPUT,
                 "--features: no results file there has a winner (every "
                 "run failed, or was interrupted)");
  return rc;
}

void tn_fleet_features_free(mg_ctx *cx)
{
  int i;
  for (i = 0; i < cx->fx.runs.n; i++)
    tn_fleet_run_free(cx->fx.runs.r[i]);
  free(cx->fx.runs.r);
  for (i = 0; i < MG_MAX_ARCHS; i++)
    free(cx->fx.entry[i]);
  memset(&cx->fx, 0, sizeof(cx->fx));
}

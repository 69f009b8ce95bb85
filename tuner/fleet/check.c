/* check.c -- a results file's table agrees with itself: candidate ids are
 * unique, and "best" is one of the candidates, with its parameters, "ok"
 * and within the file's noise of the fastest.  Every message names the
 * file and the JSON path. */
#include "fleet/fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_cand_id(const void *a, const void *b)
{
  const mg_cand *x = *(const mg_cand *const *)a;
  const mg_cand *y = *(const mg_cand *const *)b;
  return (x->id > y->id) - (x->id < y->id);
}

/* Candidate ids are unique: "best" names one by its id. */
int tn_fleet_check_ids(const mg_run *r, tn_err *err)
{
  mg_cand **by = malloc(((size_t)r->n_cands + 1) * sizeof(*by));
  int i, rc = 0;
  if (by == NULL)
    return tn_errf(err, TN_ETOOL, "%s: out of memory", r->path);
  for (i = 0; i < r->n_cands; i++)
    by[i] = &r->cands[i];
  qsort(by, (size_t)r->n_cands, sizeof(*by), cmp_cand_id);
  for (i = 1; i < r->n_cands && rc == 0; i++)
    if (by[i - 1]->id == by[i]->id)
      rc = tn_errf(err, TN_EINPUT,
                   "%s: candidates[%d].id: %d is also candidates[%d].id",
                   r->path, by[i]->idx, by[i]->id, by[i - 1]->idx);
  free(by);
  return rc;
}

/* "best" agrees with the candidate table: it names a candidate by id,
 * with that candidate's params (and text), it is "ok" and within the
 * file's noise of the fastest (or, in a prediction, says it is
 * predicted).  0 or TN_EINPUT naming the file and the JSON path. */
int tn_fleet_check_best(mg_run *r, json_t *best, tn_err *err)
{
  const char *path = r->path;
  json_t *id, *params, *v, *text;
  const mg_cand *c;
  int i;

  if (tn_fleet_get(path, best, "best", "id", K_INT, 0, &id, err) ||
      tn_fleet_get(path, best, "best", "params", K_OBJECT, 0, &params,
                   err) ||
      tn_fleet_get(path, best, "best", "params_text", K_STRING, 1, &text,
                   err) ||
      tn_fleet_get(path, best, "best", "predicted", K_BOOL, !r->predicted,
                   &v, err))
    return TN_EINPUT;
  if (tn_fleet_parse_params(r, params, "best.params", &r->best_params, err))
    return TN_EINPUT;
  for (i = 0; i < r->n_cands; i++)
    if (r->cands[i].id == json_integer_value(id))
      r->best = i;
  if (r->best < 0)
    return tn_errf(err, TN_EINPUT,
                   "%s: best.id: %lld is not the id of a candidate", path,
                   (long long)json_integer_value(id));
  c = &r->cands[r->best];
  if (!json_equal(params, c->params))
    return tn_errf(err, TN_EINPUT,
                   "%s: best.params: not the params of candidates[%d] "
                   "(id %d)",
                   path, c->idx, c->id);
  if (text != NULL && strcmp(json_string_value(text), c->text) != 0)
    return tn_errf(err, TN_EINPUT,
                   "%s: best.params_text: not candidates[%d].params_text",
                   path, c->idx);
  if (r->predicted) {
    if (!json_is_true(v))
      return tn_errf(err, TN_EINPUT,
                     "%s: best.predicted: the results are predicted, "
                     "their best must say so",
                     path);
    return 0;
  }
  if (v != NULL && !json_is_false(v))
    return tn_errf(err, TN_EINPUT,
                   "%s: best.predicted: true, but the results are measured",
                   path);
  if (!c->ok)
    return tn_errf(err, TN_EINPUT, "%s: best.id: candidate %d is not \"ok\"",
                   path, c->id);
  if (tn_fleet_get(path, best, "best", "noise", K_NUMBER, 0, &v, err))
    return TN_EINPUT;
  r->noise = json_number_value(v);
  if (!isfinite(r->noise) || r->noise < 0 || r->noise > MAX_NOISE)
    return tn_errf(err, TN_EINPUT, "%s: best.noise: %g is outside [0, %g]",
                   path, r->noise, MAX_NOISE);
  if (c->ms > r->fastest * (1.0 + r->noise) * (1.0 + 1e-9))
    return tn_errf(err, TN_EINPUT,
                   "%s: best.id: candidate %d takes %g ms, more than the "
                   "fastest (%g ms) and the noise (%g) allow",
                   path, c->id, c->ms, r->fastest, r->noise);
  if (tn_fleet_get(path, best, "best", "median_ms", K_NUMBER, 1, &v, err))
    return TN_EINPUT;
  if (v != NULL && fabs(json_number_value(v) - c->ms) > 1e-9 * c->ms)
    return tn_errf(err, TN_EINPUT,
                   "%s: best.median_ms: %g, but candidate %d has %g", path,
                   json_number_value(v), c->id, c->ms);
  if (tn_fleet_get(path, best, "best", "fastest_id", K_INT, 1, &v, err))
    return TN_EINPUT;
  if (v != NULL) {
    for (i = 0; i < r->n_cands; i++)
      if (r->cands[i].id == json_integer_value(v))
        break;
    if (i == r->n_cands || !r->cands[i].ok || r->cands[i].ms > r->fastest)
      return tn_errf(err, TN_EINPUT,
                     "%s: best.fastest_id: %lld is not the fastest \"ok\" "
                     "candidate",
                     path, (long long)json_integer_value(v));
  }
  return 0;
}

/* The index of the candidate with this id, or -1. */
static int cand_of_id(const mg_run *r, json_int_t id)
{
  int i;
  for (i = 0; i < r->n_cands; i++)
    if (r->cands[i].id == id)
      return i;
  return -1;
}

/* best_by_size[k] agrees with the table (see tn_fleet_check_sizes). */
static int check_size(mg_run *r, json_t *o, int k, tn_err *err)
{
  const char *path = r->path;
  const tn_size *size = &r->problem_list[k].size;
  json_t *v, *params, *text, *pred;
  const mg_cand *c;
  char where[48];
  tn_params p;
  size_t d;
  int i;

  snprintf(where, sizeof(where), "best_by_size[%d]", k);
  if (!json_is_object(o))
    return tn_errf(err, TN_EINPUT, "%s: %s: expected an object", path, where);
  if (tn_fleet_get(path, o, where, "problem", K_INT, 0, &v, err))
    return TN_EINPUT;
  if (json_integer_value(v) != k)
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.problem: %lld, expected %d (one entry per "
                   "problem, in their order)",
                   path, where, (long long)json_integer_value(v), k);
  if (tn_fleet_get(path, o, where, "size", K_ARRAY, 0, &v, err))
    return TN_EINPUT;
  if (json_array_size(v) != (size_t)size->n_dims)
    return tn_errf(err, TN_EINPUT, "%s: %s.size: not problems[%d].size",
                   path, where, k);
  for (d = 0; d < json_array_size(v); d++)
    if (!json_is_integer(json_array_get(v, d)) ||
        json_integer_value(json_array_get(v, d)) != size->dims[d])
      return tn_errf(err, TN_EINPUT, "%s: %s.size: not problems[%d].size",
                     path, where, k);
  if (tn_fleet_get(path, o, where, "id", K_INT, 0, &v, err) ||
      tn_fleet_get(path, o, where, "params", K_OBJECT, 0, &params, err) ||
      tn_fleet_get(path, o, where, "params_text", K_STRING, 1, &text, err) ||
      tn_fleet_get(path, o, where, "predicted", K_BOOL, !r->predicted, &pred,
                   err))
    return TN_EINPUT;
  i = cand_of_id(r, json_integer_value(v));
  if (i < 0)
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.id: %lld is not the id of a candidate", path,
                   where, (long long)json_integer_value(v));
  c = &r->cands[i];
  {
    char pw[64];
    snprintf(pw, sizeof(pw), "%s.params", where);
    if (tn_fleet_parse_params(r, params, pw, &p, err))
      return TN_EINPUT;
  }
  if (!json_equal(params, c->params))
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.params: not the params of candidates[%d] (id %d)",
                   path, where, c->idx, c->id);
  if (text != NULL && strcmp(json_string_value(text), c->text) != 0)
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.params_text: not candidates[%d].params_text", path,
                   where, c->idx);
  r->best_at[k] = i;
  if (r->predicted) {
    if (!json_is_true(pred))
      return tn_errf(err, TN_EINPUT,
                     "%s: %s.predicted: the results are predicted, their "
                     "winners must say so",
                     path, where);
    return 0;
  }
  if (pred != NULL && !json_is_false(pred))
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.predicted: true, but the results are measured",
                   path, where);
  if (!c->ok)
    return tn_errf(err, TN_EINPUT, "%s: %s.id: candidate %d is not \"ok\"",
                   path, where, c->id);
  if (tn_fleet_get(path, o, where, "noise", K_NUMBER, 0, &v, err))
    return TN_EINPUT;
  r->noise_at[k] = json_number_value(v);
  if (!isfinite(r->noise_at[k]) || r->noise_at[k] < 0 ||
      r->noise_at[k] > MAX_NOISE)
    return tn_errf(err, TN_EINPUT, "%s: %s.noise: %g is outside [0, %g]",
                   path, where, r->noise_at[k], MAX_NOISE);
  if (c->ms_at[k] >
      r->fastest_at[k] * (1.0 + r->noise_at[k]) * (1.0 + 1e-9))
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.id: candidate %d takes %g ms at this size, more "
                   "than the fastest there (%g ms) and the noise (%g) allow",
                   path, where, c->id, c->ms_at[k], r->fastest_at[k],
                   r->noise_at[k]);
  if (tn_fleet_get(path, o, where, "median_ms", K_NUMBER, 1, &v, err))
    return TN_EINPUT;
  if (v != NULL && fabs(json_number_value(v) - c->ms_at[k]) >
                       1e-9 * c->ms_at[k])
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.median_ms: %g, but candidate %d has %g at this "
                   "size",
                   path, where, json_number_value(v), c->id, c->ms_at[k]);
  if (tn_fleet_get(path, o, where, "fastest_id", K_INT, 1, &v, err))
    return TN_EINPUT;
  if (v != NULL) {
    i = cand_of_id(r, json_integer_value(v));
    if (i < 0 || !r->cands[i].ok || r->cands[i].ms_at[k] > r->fastest_at[k])
      return tn_errf(err, TN_EINPUT,
                     "%s: %s.fastest_id: %lld is not the fastest \"ok\" "
                     "candidate at this size",
                     path, where, (long long)json_integer_value(v));
  }
  return 0;
}

int tn_fleet_check_sizes(mg_run *r, json_t *by, tn_err *err)
{
  int k;
  r->has_sizes = by != NULL;
  if (by == NULL) {
    /* written before per-size winners: best stands for every size */
    for (k = 0; k < r->n_problems; k++) {
      r->best_at[k] = r->best;
      r->noise_at[k] = r->noise;
    }
    return 0;
  }
  if (json_array_size(by) != (size_t)r->n_problems)
    return tn_errf(err, TN_EINPUT,
                   "%s: best_by_size: %zu entries for %d problems", r->path,
                   json_array_size(by), r->n_problems);
  for (k = 0; k < r->n_problems; k++)
    if (check_size(r, json_array_get(by, (size_t)k), k, err))
      return TN_EINPUT;
  return 0;
}

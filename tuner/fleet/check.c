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

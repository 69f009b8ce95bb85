/* journal_check.c -- a run's journal checked line by line before --resume
 * keeps anything of it (the rules are in journal_check.h). */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/journal_check.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/results_drift.h"
#include "pipeline/run.h"

/* Times past this (ms, about 11 days) are not measurements: the bound
 * `tuner merge` puts on a results file's (fleet.h). */
#define MAX_MS 1e9
/* A time of day past this (ms since 1970: the year 5138) is not one. */
#define MAX_WALL_MS 100000000000000LL

/* What the lines seen so far said, for duplicates. */
typedef struct {
  const tn_job *job;
  const tn_space *space;
  int have_run;
  json_int_t seed;
  json_t **cand;     /* by id: the first line of that id (borrowed) */
  int *cand_line;
  /* by the family's baseline index: its finished measurements' lines in
   * order (an array holding them) and the line of each */
  json_t *base[TN_MAX_BASELINES];
  int *base_line[TN_MAX_BASELINES];
} seen_t;

/* o's "timed_at_ms" (a time of day) and "clocks" (NVML's readings), both
 * optional: journals before them have neither. */
static int check_drift(json_t *o, char *why, size_t n)
{
  json_t *at = json_object_get(o, "timed_at_ms");
  json_t *c = json_object_get(o, "clocks");
  tn_clocks clocks;
  char sub[160];
  if (at != NULL &&
      (!json_is_integer(at) || json_integer_value(at) <= 0 ||
       json_integer_value(at) > MAX_WALL_MS)) {
    snprintf(why, n, "timed_at_ms: expected milliseconds since 1970 in "
                     "[1, %lld]",
             MAX_WALL_MS);
    return -1;
  }
  if (c != NULL && tn_results_clocks_parse(c, &clocks, sub, sizeof(sub))) {
    snprintf(why, n, "clocks%s", sub);
    return -1;
  }
  return 0;
}

/* One timing object: finite times in [0, MAX_MS], a positive median,
 * min <= q1 <= median <= q3 <= max, repetitions in [1, INT_MAX], and
 * blocks (a grid fitted at launch) in [1, INT_MAX] where it is given. */
static int check_timing(json_t *t, char *why, size_t n)
{
  static const char *const keys[5] = {"min_ms", "q1_ms", "median_ms",
                                      "q3_ms", "max_ms"};
  double v[5];
  json_t *r;
  int i;
  if (!json_is_object(t)) {
    snprintf(why, n, ": expected an object");
    return -1;
  }
  for (i = 0; i < 5; i++) {
    json_t *x = json_object_get(t, keys[i]);
    if (!json_is_number(x)) {
      snprintf(why, n, ".%s: expected a number", keys[i]);
      return -1;
    }
    v[i] = json_number_value(x);
    if (!isfinite(v[i]) || v[i] < 0 || v[i] > MAX_MS) {
      snprintf(why, n, ".%s: %g is outside [0, %g]", keys[i], v[i], MAX_MS);
      return -1;
    }
  }
  if (!(v[2] > 0)) {
    snprintf(why, n, ".median_ms: 0, not a time");
    return -1;
  }
  for (i = 1; i < 5; i++)
    if (v[i - 1] > v[i]) {
      snprintf(why, n, ": %s %g above %s %g", keys[i - 1], v[i - 1],
               keys[i], v[i]);
      return -1;
    }
  r = json_object_get(t, "repetitions");
  if (!json_is_integer(r) || json_integer_value(r) < 1 ||
      json_integer_value(r) > INT_MAX) {
    snprintf(why, n, ".repetitions: expected an integer in [1, %d]",
             INT_MAX);
    return -1;
  }
  r = json_object_get(t, "blocks");
  if (r != NULL && (!json_is_integer(r) || json_integer_value(r) < 1 ||
                    json_integer_value(r) > INT_MAX)) {
    snprintf(why, n, ".blocks: expected an integer in [1, %d]", INT_MAX);
    return -1;
  }
  return 0;
}

/* o.timings: one valid timing per problem of the job. */
static int check_timings(const tn_job *job, json_t *o, char *why, size_t n)
{
  json_t *ts = json_object_get(o, "timings"), *t;
  char sub[200];
  size_t k;
  if (!json_is_array(ts)) {
    snprintf(why, n, "timings: expected an array");
    return -1;
  }
  if (json_array_size(ts) != (size_t)job->n_problems) {
    snprintf(why, n, "timings: %zu entries for %d problems",
             json_array_size(ts), job->n_problems);
    return -1;
  }
  json_array_foreach(ts, k, t) {
    if (check_timing(t, sub, sizeof(sub)) != 0) {
      snprintf(why, n, "timings[%zu]%s", k, sub);
      return -1;
    }
  }
  return 0;
}

/* o.params is exactly p: every parameter of f, of its kind and value. */
static int same_params(const tn_family *f, json_t *params, const tn_params *p)
{
  int k;
  if (!json_is_object(params) ||
      json_object_size(params) != (size_t)f->n_params)
    return 0;
  for (k = 0; k < f->n_params; k++) {
    json_t *v = json_object_get(params, f->params[k].name);
    if (f->params[k].kind == TN_PARAM_SWIZZLE) {
      char sw[32];
      tn_swizzle_name(&p->v[k].sw, sw, sizeof(sw));
      if (!json_is_string(v) || strcmp(json_string_value(v), sw) != 0)
        return 0;
    } else if (!json_is_integer(v) || json_integer_value(v) != p->v[k].i) {
      return 0;
    }
  }
  return 1;
}

static int check_run(seen_t *s, json_t *o, char *why, size_t n)
{
  json_t *family = json_object_get(o, "family");
  json_t *name = json_object_get(o, "name");
  json_t *seed = json_object_get(o, "seed");
  if (!json_is_string(family) ||
      strcmp(json_string_value(family), s->job->family->name) != 0) {
    snprintf(why, n, "a run of another family (%.40s, not %s)",
             json_is_string(family) ? json_string_value(family) : "none",
             s->job->family->name);
    return -1;
  }
  if (!json_is_string(name) ||
      strcmp(json_string_value(name), s->job->name) != 0) {
    snprintf(why, n, "a run of another job (name %.64s, not %s)",
             json_is_string(name) ? json_string_value(name) : "none",
             s->job->name);
    return -1;
  }
  if (!json_is_integer(seed)) {
    snprintf(why, n, "seed: expected an integer");
    return -1;
  }
  if (s->have_run && json_integer_value(seed) != s->seed) {
    snprintf(why, n, "seed: %lld, but the first line's is %lld: the "
                     "journals of two runs",
             (long long)json_integer_value(seed), (long long)s->seed);
    return -1;
  }
  s->have_run = 1;
  s->seed = json_integer_value(seed);
  return 0;
}

static int check_candidate(seen_t *s, json_t *o, int line, char *why,
                           size_t n)
{
  const tn_family *f = s->job->family;
  json_t *id = json_object_get(o, "id"), *text, *status, *v;
  const tn_candidate *c;
  char mine[512];
  int i, st;

  if (!json_is_integer(id) || json_integer_value(id) < 0 ||
      json_integer_value(id) >= s->space->n) {
    snprintf(why, n, "candidate: id: not a candidate of this job (ids 0 "
                     "to %d)",
             s->space->n - 1);
    return -1;
  }
  i = (int)json_integer_value(id);
  c = &s->space->c[i];
  tn_params_format(f->params, f->n_params, &c->params, mine, sizeof(mine));
  if (!same_params(f, json_object_get(o, "params"), &c->params)) {
    snprintf(why, n, "candidate %d: params: not those of candidate %d of "
                     "this job (%s)",
             i, i, mine);
    return -1;
  }
  text = json_object_get(o, "params_text");
  if (!json_is_string(text) || strcmp(json_string_value(text), mine) != 0) {
    snprintf(why, n, "candidate %d: params_text: not \"%s\"", i, mine);
    return -1;
  }
  if (c->status == TN_ST_PRUNED &&
      (c->pruned_by == TN_BY_FAMILY || c->pruned_by == TN_BY_CONSTRAINT)) {
    snprintf(why, n, "candidate %d: not a valid point of this job, so never "
                     "measured (%.200s)",
             i, c->reason);
    return -1;
  }
  status = json_object_get(o, "status");
  st = json_is_string(status) ? tn_status_parse(json_string_value(status))
                              : -1;
  if (st != TN_ST_OK && st != TN_ST_WRONG && st != TN_ST_FAILED) {
    snprintf(why, n, "candidate %d: status: expected \"ok\", "
                     "\"wrong_result\" or \"failed\" (what measuring "
                     "ends in)",
             i);
    return -1;
  }
  v = json_object_get(o, "reason");
  if (v != NULL && !json_is_string(v)) {
    snprintf(why, n, "candidate %d: reason: expected a string", i);
    return -1;
  }
  v = json_object_get(o, "raced_out");
  if (v != NULL && !json_is_boolean(v)) {
    snprintf(why, n, "candidate %d: raced_out: expected true or false", i);
    return -1;
  }
  if (st == TN_ST_OK) {
    char sub[256];
    if (check_timings(s->job, o, sub, sizeof(sub)) != 0 ||
        check_drift(o, sub, sizeof(sub)) != 0) {
      snprintf(why, n, "candidate %d: %s", i, sub);
      return -1;
    }
  }
  if (s->cand[i] != NULL && !json_equal(s->cand[i], o)) {
    snprintf(why, n, "candidate %d: measured already on line %d, with "
                     "other results",
             i, s->cand_line[i]);
    return -1;
  }
  if (s->cand[i] == NULL) {
    s->cand[i] = o;
    s->cand_line[i] = line;
  }
  return 0;
}

static int check_baseline(seen_t *s, json_t *o, int line, char *why,
                          size_t n)
{
  const tn_family *f = s->job->family;
  json_t *name = json_object_get(o, "name"), *status, *v;
  json_int_t j = 0;
  size_t have;
  int i, st;

  for (i = 0; json_is_string(name) && i < f->n_baselines &&
              i < TN_MAX_BASELINES;
       i++)
    if (strcmp(f->baselines[i], json_string_value(name)) == 0)
      break;
  if (!json_is_string(name) || i == f->n_baselines ||
      i == TN_MAX_BASELINES) {
    snprintf(why, n, "baseline: name: not a baseline of family %s",
             f->name);
    return -1;
  }
  status = json_object_get(o, "status");
  st = json_is_string(status) ? tn_status_parse(json_string_value(status))
                              : -1;
  if (st < 0) {
    snprintf(why, n, "baseline %s: status: not a status", f->baselines[i]);
    return -1;
  }
  if (st != TN_ST_OK)
    return 0; /* one that failed is measured again when resumed */
  {
    char sub[256];
    if (check_timings(s->job, o, sub, sizeof(sub)) != 0 ||
        check_drift(o, sub, sizeof(sub)) != 0) {
      snprintf(why, n, "baseline %s: %s", f->baselines[i], sub);
      return -1;
    }
  }
  v = json_object_get(o, "after");
  if (v != NULL && (!json_is_integer(v) || json_integer_value(v) < 0 ||
                    json_integer_value(v) > INT_MAX)) {
    snprintf(why, n, "baseline %s: after: expected a count of candidates",
             f->baselines[i]);
    return -1;
  }
  /* its measurements in the order taken, each once (or the same line
   * again): "measurement" 0, 1, ... (none: 0, a journal before them) */
  v = json_object_get(o, "measurement");
  if (v != NULL && !json_is_integer(v)) {
    snprintf(why, n, "baseline %s: measurement: expected an integer",
             f->baselines[i]);
    return -1;
  }
  j = v ? json_integer_value(v) : 0;
  have = s->base[i] ? json_array_size(s->base[i]) : 0;
  if (j < 0 || j > (json_int_t)have) {
    snprintf(why, n, "baseline %s: measurement %lld, but %zu came before "
                     "it",
             f->baselines[i], (long long)j, have);
    return -1;
  }
  if (j < (json_int_t)have) {
    if (!json_equal(json_array_get(s->base[i], (size_t)j), o)) {
      snprintf(why, n, "baseline %s: measurement %lld taken already on "
                       "line %d, with other results",
               f->baselines[i], (long long)j, s->base_line[i][j]);
      return -1;
    }
    return 0;
  }
  {
    int *lines = realloc(s->base_line[i], sizeof(int) * (have + 1));
    if (lines != NULL)
      s->base_line[i] = lines; /* the old block is freed at the end */
    if (s->base[i] == NULL)
      s->base[i] = json_array();
    if (lines == NULL || s->base[i] == NULL ||
        json_array_append(s->base[i], o) != 0) {
      snprintf(why, n, "out of memory");
      return -1;
    }
    lines[have] = line;
  }
  return 0;
}

int tn_journal_check(const char *path, const tn_job *job,
                     const tn_space *space, tn_err *err)
{
  FILE *f = fopen(path, "r");
  json_t *lines = json_array(); /* keeps the lines seen[] points into */
  seen_t s;
  char *buf = NULL, why[768];
  size_t cap = 0;
  ssize_t len;
  int lineno = 0, rc = 0, i;

  memset(&s, 0, sizeof(s));
  s.job = job;
  s.space = space;
  s.cand = calloc((size_t)space->n + 1, sizeof(*s.cand));
  s.cand_line = calloc((size_t)space->n + 1, sizeof(*s.cand_line));
  if (f == NULL)
    rc = tn_errf(err, TN_EINPUT, "%s: cannot open the journal", path);
  else if (lines == NULL || s.cand == NULL || s.cand_line == NULL)
    rc = tn_errf(err, TN_ETOOL, "out of memory reading %s", path);
  while (rc == 0 && (len = getline(&buf, &cap, f)) >= 0) {
    json_error_t jerr;
    json_t *o, *kind;
    const char *k;
    int r;
    lineno++;
    if (len == 0 || buf[len - 1] != '\n')
      break; /* cut short by a kill: not finished, not kept */
    o = json_loadb(buf, (size_t)len, 0, &jerr);
    if (o == NULL) {
      rc = tn_errf(err, TN_EINPUT, "%s:%d: not a journal line: %s", path,
                   lineno, jerr.text);
      break;
    }
    json_array_append_new(lines, o);
    kind = json_object_get(o, "kind");
    k = json_is_string(kind) ? json_string_value(kind) : "";
    if (!json_is_object(o) || !json_is_string(kind)) {
      snprintf(why, sizeof(why), "not a journal line: no \"kind\"");
      r = -1;
    } else if (lineno == 1 && strcmp(k, "run") != 0) {
      snprintf(why, sizeof(why), "not the start of a journal (a \"run\" "
                                 "line)");
      r = -1;
    } else if (strcmp(k, "run") == 0) {
      r = check_run(&s, o, why, sizeof(why));
    } else if (strcmp(k, "candidate") == 0) {
      r = check_candidate(&s, o, lineno, why, sizeof(why));
    } else if (strcmp(k, "baseline") == 0) {
      r = check_baseline(&s, o, lineno, why, sizeof(why));
    } else {
      snprintf(why, sizeof(why), "kind \"%.40s\": not a line a run writes",
               k);
      r = -1;
    }
    if (r != 0)
      rc = tn_errf(err, TN_EINPUT, "%s:%d: %s", path, lineno, why);
  }
  if (f != NULL)
    fclose(f);
  free(buf);
  free(s.cand);
  free(s.cand_line);
  for (i = 0; i < TN_MAX_BASELINES; i++) {
    json_decref(s.base[i]);
    free(s.base_line[i]);
  }
  json_decref(lines);
  return rc;
}

/* read.c -- one results file for `tuner merge`, read and checked against
 * the schema and the family's rules; every message names the file and the
 * JSON path of what is wrong. */
#define _POSIX_C_SOURCE 200809L
#include "fleet/fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/config.h"
#include "pipeline/results.h"

/* ---- dates ---- */

/* Days since 1970-01-01 of a civil date (H. Hinnant's algorithm). */
static long long days_from_civil(int y, int m, int d)
{
  long long era, yoe, doy, doe;
  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = y - era * 400;
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static int leap(int y)
{
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The number of n digits at s, or -1 if one is not a digit. */
static int digits(const char *s, int n)
{
  int v = 0, i;
  for (i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

int tn_fleet_parse_time(const char *s, long long *t, char day[11],
                        char *why, size_t n)
{
  static const int mdays[12] = {31, 28, 31, 30, 31, 30,
                                31, 31, 30, 31, 30, 31};
  int y, mo, d, h, mi, se;
  /* exactly YYYY-MM-DDTHH:MM:SSZ: no sign, space, fraction or zone */
  if (strlen(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
      s[13] != ':' || s[16] != ':' || s[19] != 'Z') {
    snprintf(why, n, "not of the form YYYY-MM-DDTHH:MM:SSZ");
    return -1;
  }
  y = digits(s, 4);
  mo = digits(s + 5, 2);
  d = digits(s + 8, 2);
  h = digits(s + 11, 2);
  mi = digits(s + 14, 2);
  se = digits(s + 17, 2);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || se < 0) {
    snprintf(why, n, "not of the form YYYY-MM-DDTHH:MM:SSZ");
    return -1;
  }
  if (y < 1970) {
    snprintf(why, n, "the year %d is before 1970", y);
    return -1;
  }
  if (mo < 1 || mo > 12) {
    snprintf(why, n, "no month %d", mo);
    return -1;
  }
  if (d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y))) {
    snprintf(why, n, "no day %d in %04d-%02d", d, y, mo);
    return -1;
  }
  /* POSIX time has no leap second: a clock never writes :60 */
  if (h > 23 || mi > 59 || se > 59) {
    snprintf(why, n, "no time of day %02d:%02d:%02d", h, mi, se);
    return -1;
  }
  *t = days_from_civil(y, mo, d) * 86400LL + h * 3600LL + mi * 60LL + se;
  if (day != NULL) {
    memcpy(day, s, 10); /* "YYYY-MM-DD", checked above */
    day[10] = '\0';
  }
  return 0;
}

/* ---- names ---- */

int tn_fleet_check_name(const char *name, char *why, size_t n)
{
  size_t i, len = strlen(name);
  if (len == 0 || len > TN_FLEET_NAME_MAX) {
    snprintf(why, n, "%s (1 to %d characters)",
             len ? "too long" : "empty", TN_FLEET_NAME_MAX);
    return -1;
  }
  if (!((name[0] >= 'a' && name[0] <= 'z') ||
        (name[0] >= 'A' && name[0] <= 'Z'))) {
    snprintf(why, n, "must start with a letter");
    return -1;
  }
  for (i = 0; i < len; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
      snprintf(why, n, "character %zu is not a letter, digit, '-', '_' or "
                       "'.'",
               i + 1);
      return -1;
    }
  }
  return 0;
}

/* ---- reading a results document ---- */

/* The largest problem size a config accepts (tuner/pipeline/config.c):
 * the families' arithmetic is safe up to it. */
#define MAX_SIZE 2147483647LL

/* Every problem of r, checked by its family's table (sizes and options),
 * into r->problem_list; r->problem is the first, for the family's rules. */
static int parse_problems(mg_run *r, tn_err *err)
{
  const tn_family *f = r->family;
  json_t *pj, *size, *v;
  size_t i, k;
  if (json_array_size(r->problems) == 0)
    return tn_errf(err, TN_EINPUT, "%s: problems: empty", r->path);
  if (json_array_size(r->problems) > TN_MAX_SIZES)
    return tn_errf(err, TN_EINPUT, "%s: problems: more than %d", r->path,
                   TN_MAX_SIZES);
  json_array_foreach(r->problems, i, pj) {
    tn_problem *prob = &r->problem_list[i];
    char where[32], why[256];
    snprintf(where, sizeof(where), "problems[%zu]", i);
    if (!json_is_object(pj))
      return tn_errf(err, TN_EINPUT, "%s: %s: expected an object", r->path,
                     where);
    if (tn_fleet_get(r->path, pj, where, "size", K_ARRAY, 0, &size, err))
      return TN_EINPUT;
    tn_problem_defaults(f, prob);
    if (json_array_size(size) != (size_t)f->n_dims)
      return tn_errf(err, TN_EINPUT, "%s: %s.size: %d numbers expected (%s)",
                     r->path, where, f->n_dims, f->dim_names);
    json_array_foreach(size, k, v) {
      if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
          json_integer_value(v) > MAX_SIZE)
        return tn_errf(err, TN_EINPUT,
                       "%s: %s.size[%zu]: expected an integer in [1, %lld]",
                       r->path, where, k, MAX_SIZE);
      prob->size.dims[k] = json_integer_value(v);
    }
    prob->size.n_dims = (int)json_array_size(size);
    if (tn_problem_options_from_json(f, pj, prob, why, sizeof(why)) != 0)
      return tn_errf(err, TN_EINPUT, "%s: %s.%s", r->path, where, why);
    if (f->check_problem && f->check_problem(f, prob, why, sizeof(why)))
      return tn_errf(err, TN_EINPUT, "%s: %s.size: %s", r->path, where, why);
  }
  r->n_problems = (int)json_array_size(r->problems);
  r->problem = r->problem_list[0];
  return 0;
}

/* Checks that a candidate's params_text is what its params say (merge
 * finds candidates by their text and writes the text beside the values).
 * The parameters are checked by the family's rules too. */
static int check_text(const mg_run *r, const char *where,
                      const mg_cand *c, tn_err *err)
{
  const tn_family *f = r->family;
  char pw[64], text[512];
  tn_params p;
  snprintf(pw, sizeof(pw), "%s.params", where);
  if (tn_fleet_parse_params(r, c->params, pw, &p, err))
    return TN_EINPUT;
  tn_params_format(f->params, f->n_params, &p, text, sizeof(text));
  if (strcmp(text, c->text) != 0)
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.params_text: \"%.200s\", but its params are "
                   "\"%s\"",
                   r->path, where, c->text, text);
  return 0;
}

static int parse_candidate(mg_run *r, json_t *o, int i, mg_cand *c,
                           tn_err *err)
{
  char where[48];
  json_t *text, *params, *status, *ms, *timings, *t, *id;
  size_t k;

  snprintf(where, sizeof(where), "candidates[%d]", i);
  if (!json_is_object(o))
    return tn_errf(err, TN_EINPUT, "%s: %s: expected an object", r->path,
                   where);
  if (tn_fleet_get(r->path, o, where, "params_text", K_STRING, 0, &text, err) ||
      tn_fleet_get(r->path, o, where, "params", K_OBJECT, 0, &params, err) ||
      tn_fleet_get(r->path, o, where, "status", K_STRING, 0, &status, err) ||
      tn_fleet_get(r->path, o, where, "id", K_INT, 0, &id, err))
    return TN_EINPUT;
  if (json_integer_value(id) < 0 || json_integer_value(id) > 2147483647LL)
    return tn_errf(err, TN_EINPUT, "%s: %s.id: %lld is outside [0, %lld]",
                   r->path, where, (long long)json_integer_value(id),
                   2147483647LL);
  if (tn_status_parse(json_string_value(status)) < 0)
    return tn_errf(err, TN_EINPUT, "%s: %s.status: \"%s\" is not a status",
                   r->path, where, json_string_value(status));
  memset(c, 0, sizeof(*c));
  c->ms_at = r->at + (size_t)i * (size_t)r->n_problems * 2;
  c->spread_at = c->ms_at + r->n_problems;
  c->idx = i;
  c->text = json_string_value(text);
  c->params = params;
  c->id = (int)json_integer_value(id);
  c->ok = strcmp(json_string_value(status), "ok") == 0;
  if (!c->ok)
    return 0;
  if (r->predicted)
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.status: \"ok\" in a prediction (nothing is timed "
                   "in a prediction)",
                   r->path, where);
  if (tn_fleet_get(r->path, o, where, "median_ms", K_NUMBER, 0, &ms, err) ||
      tn_fleet_get(r->path, o, where, "timings", K_ARRAY, 0, &timings, err))
    return TN_EINPUT;
  c->ms = json_number_value(ms);
  if (tn_fleet_check_ms(r->path, where, "median_ms", c->ms, 1, err))
    return TN_EINPUT;
  if (json_array_size(timings) != (size_t)r->n_problems)
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.timings: %zu entries for %d problems", r->path,
                   where, json_array_size(timings), r->n_problems);
  if (check_text(r, where, c, err))
    return TN_EINPUT;
  json_array_foreach(timings, k, t) {
    char tw[80];
    json_t *q1, *q3, *med;
    snprintf(tw, sizeof(tw), "%s.timings[%zu]", where, k);
    if (!json_is_object(t))
      return tn_errf(err, TN_EINPUT, "%s: %s: expected an object", r->path,
                     tw);
    if (tn_fleet_get(r->path, t, tw, "median_ms", K_NUMBER, 0, &med, err) ||
        tn_fleet_get(r->path, t, tw, "q1_ms", K_NUMBER, 0, &q1, err) ||
        tn_fleet_get(r->path, t, tw, "q3_ms", K_NUMBER, 0, &q3, err) ||
        tn_fleet_check_ms(r->path, tw, "median_ms", json_number_value(med),
                          1, err) ||
        tn_fleet_check_ms(r->path, tw, "q1_ms", json_number_value(q1), 0,
                          err) ||
        tn_fleet_check_ms(r->path, tw, "q3_ms", json_number_value(q3), 0,
                          err))
      return TN_EINPUT;
    if (json_number_value(q1) > json_number_value(q3))
      return tn_errf(err, TN_EINPUT, "%s: %s: q1_ms above q3_ms", r->path,
                     tw);
    c->ms_at[k] = json_number_value(med);
    if (json_number_value(med) > 0) {
      double s = (json_number_value(q3) - json_number_value(q1)) /
                 json_number_value(med);
      c->spread_at[k] = s;
      if (s > c->spread)
        c->spread = s;
    }
  }
  return 0;
}

static int cmp_cand_text(const void *a, const void *b)
{
  const mg_cand *x = *(const mg_cand *const *)a;
  const mg_cand *y = *(const mg_cand *const *)b;
  return strcmp(x->text, y->text);
}

/* The ok candidate of r with this parameter text, or NULL. */
const mg_cand *tn_fleet_find_cand(const mg_run *r, const char *text)
{
  int lo = 0, hi = r->n_cands - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, c = strcmp(r->sorted[mid]->text, text);
    if (c == 0)
      return r->sorted[mid]->ok ? r->sorted[mid] : NULL;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

/* Reads and checks one results file.  Another family than first's is an
 * error, or (skip_other) 1: a shared history may hold other jobs.
 * Returns 0, 1 or TN_EINPUT naming the file and the JSON path. */
int tn_fleet_load_run(const char *path, int keep_raw, const mg_run *first,
                      int skip_other, mg_run *r, tn_err *err)
{
  char *raw = NULL;
  size_t len = 0;
  int rc;

  memset(r, 0, sizeof(*r));
  r->best = -1;
  tn_strlcpy(r->path, path, sizeof(r->path));
  rc = tn_read_file(path, &raw, &len, err);
  if (rc != 0)
    return rc;
  rc = tn_fleet_read_doc(path, raw, len, first, skip_other, r, err);
  if (keep_raw) {
    r->raw = raw;
    r->raw_len = len;
  } else {
    free(raw);
  }
  return rc;
}

/* 1 if families a and b take the same parameters and dimensions: what a
 * merge needs of two files of one described kernel. */
static int same_description(const tn_family *a, const tn_family *b)
{
  int k;
  if (strcmp(a->name, b->name) != 0 || a->n_params != b->n_params ||
      a->n_dims != b->n_dims || strcmp(a->dim_names, b->dim_names) != 0)
    return 0;
  for (k = 0; k < a->n_params; k++)
    if (strcmp(a->params[k].name, b->params[k].name) != 0 ||
        a->params[k].kind != b->params[k].kind ||
        a->params[k].is_layout != b->params[k].is_layout)
      return 0;
  return 1;
}

/* A described kernel's family from the file's copy of its config (read
 * as untrusted text: no @include, no file opened).  The runs of one merge
 * share the first's family when theirs is the same.  0, or TN_EINPUT. */
static int read_described(const char *path, mg_run *r, const mg_run *first,
                          tn_err *err)
{
  json_t *kernel, *cfg;
  char name[4200];
  tn_err why = {{0}};
  if (tn_fleet_get(path, r->doc, "", "kernel", K_OBJECT, 0, &kernel, err) ||
      tn_fleet_get(path, kernel, "kernel", "config", K_STRING, 0, &cfg, err))
    return TN_EINPUT;
  r->described = calloc(1, sizeof(*r->described));
  if (r->described == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory");
  snprintf(name, sizeof(name), "%s: kernel.config", path);
  if (tn_config_load_description(json_string_value(cfg), name,
                                 r->described, &why) != 0 ||
      r->described->user == NULL) {
    free(r->described);
    r->described = NULL;
    return tn_errf(err, TN_EINPUT, "%s", why.msg[0] ? why.msg : name);
  }
  r->family = r->described->family;
  if (first && first->described && same_description(first->family, r->family))
    r->family = first->family;
  return 0;
}

int tn_fleet_read_doc(const char *path, const char *text, size_t len,
                      const mg_run *first, int skip_other, mg_run *r,
                      tn_err *err)
{
  json_error_t jerr;
  json_t *v, *dev, *runo, *best, *cands, *pred, *tool;
  char why[128];
  const void *parts[1];
  size_t lens[1], k;
  int rc;

  memset(r, 0, sizeof(*r));
  r->best = -1;
  for (k = 0; k < TN_MAX_SIZES; k++)
    r->best_at[k] = -1;
  tn_strlcpy(r->path, path, sizeof(r->path));
  parts[0] = text;
  lens[0] = len;
  tn_hash_hex(parts, lens, 1, r->hash);
  r->doc = json_loadb(text, len, 0, &jerr);
  if (r->doc == NULL)
    return tn_errf(err, TN_EINPUT, "%s: not JSON: line %d, column %d: %s",
                   path, jerr.line, jerr.column, jerr.text);
  if (!json_is_object(r->doc))
    return tn_errf(err, TN_EINPUT,
                   "%s: not a results document (a JSON object expected)",
                   path);
  if (tn_fleet_get(path, r->doc, "", "schema", K_STRING, 0, &v, err))
    return TN_EINPUT;
  if (strcmp(json_string_value(v), TN_RESULTS_SCHEMA) != 0)
    return tn_errf(err, TN_EINPUT, "%s: schema: \"%s\", expected \"%s\"",
                   path, json_string_value(v), TN_RESULTS_SCHEMA);
  if (tn_fleet_get(path, r->doc, "", "family", K_STRING, 0, &v, err))
    return TN_EINPUT;
  r->family = tn_family_find(json_string_value(v));
  if (r->family == NULL && json_object_get(r->doc, "kernel") != NULL) {
    rc = read_described(path, r, first, err);
    if (rc != 0)
      return rc;
  }
  if (r->family == NULL) {
    char list[256];
    tn_family_list(list, sizeof(list));
    if (skip_other)
      return 1;
    return tn_errf(err, TN_EINPUT, "%s: family: \"%s\" is unknown (known: %s)",
                   path, json_string_value(v), list);
  }
  if (first != NULL && r->family != first->family) {
    if (skip_other)
      return 1;
    return tn_errf(err, TN_EINPUT,
                   "%s: family \"%s\", but %s is \"%s\": merge one family at "
                   "a time",
                   path, r->family->name, first->path, first->family->name);
  }
  if (tn_fleet_get(path, r->doc, "", "name", K_STRING, 0, &v, err))
    return TN_EINPUT;
  r->name = json_string_value(v);
  if (tn_fleet_check_name(r->name, why, sizeof(why)) != 0)
    return tn_errf(err, TN_EINPUT,
                   "%s: name: not a job name (it names the headers, their "
                   "files and macros): %s",
                   path, why);
  if (tn_fleet_get(path, r->doc, "", "predicted", K_BOOL, 1, &pred, err))
    return TN_EINPUT;
  r->predicted = pred != NULL && json_is_true(pred);

  if (tn_fleet_get(path, r->doc, "", "run", K_OBJECT, 0, &runo, err) ||
      tn_fleet_get(path, runo, "run", "started", K_STRING, 0, &v, err))
    return TN_EINPUT;
  r->started = json_string_value(v);
  if (tn_fleet_parse_time(r->started, &r->t, r->day, why, sizeof(why)) != 0)
    return tn_errf(err, TN_EINPUT,
                   "%s: run.started: \"%.40s\" is not a UTC time like "
                   "2026-11-30T03:48:20Z: %s",
                   path, r->started, why);
  if (tn_fleet_get(path, runo, "run", "host", K_STRING, 0, &v, err))
    return TN_EINPUT;
  r->host = json_string_value(v);
  if (tn_fleet_get(path, runo, "run", "interrupted", K_BOOL, 1, &v, err))
    return TN_EINPUT;
  r->interrupted = v != NULL && json_is_true(v);
  if (tn_fleet_get(path, r->doc, "", "tool", K_OBJECT, 1, &tool, err))
    return TN_EINPUT;
  if (tool != NULL) {
    if (tn_fleet_get(path, tool, "tool", "nvrtc", K_STRING, 1, &v, err))
      return TN_EINPUT;
    r->nvrtc = v ? json_string_value(v) : NULL;
  }

  if (tn_fleet_get(path, r->doc, "", "device", K_OBJECT, 0, &dev, err) ||
      tn_fleet_get(path, dev, "device", "arch", K_STRING, 0, &v, err))
    return TN_EINPUT;
  r->arch = tn_arch_find(json_string_value(v));
  if (r->arch == NULL) {
    char list[256];
    tn_arch_list(list, sizeof(list));
    return tn_errf(err, TN_EINPUT,
                   "%s: device.arch: \"%s\" is unknown (known: %s)", path,
                   json_string_value(v), list);
  }
  if (tn_fleet_get(path, dev, "device", "name", K_STRING_OR_NULL, 0, &v, err))
    return TN_EINPUT;
  if (r->predicted) {
    if (!json_is_null(v))
      return tn_errf(err, TN_EINPUT,
                     "%s: device.name: a prediction names no device "
                     "(null expected)",
                     path);
  } else {
    if (json_is_null(v))
      return tn_errf(err, TN_EINPUT,
                     "%s: device.name: null, and the results are not "
                     "\"predicted\": nothing was measured",
                     path);
    r->device = json_string_value(v);
    if (r->device[0] == '\0')
      return tn_errf(err, TN_EINPUT, "%s: device.name: empty", path);
    if (tn_fleet_get(path, dev, "device", "ordinal", K_INT, 0, &v, err))
      return TN_EINPUT;
    if (json_integer_value(v) < 0 || json_integer_value(v) > 2147483647LL)
      return tn_errf(err, TN_EINPUT,
                     "%s: device.ordinal: %lld is outside [0, %lld]", path,
                     (long long)json_integer_value(v), 2147483647LL);
    r->ordinal = (int)json_integer_value(v);
    if (tn_fleet_get(path, dev, "device", "driver_cuda_version", K_STRING, 1,
                     &v, err))
      return TN_EINPUT;
    r->driver = v ? json_string_value(v) : NULL;
  }

  if (tn_fleet_get(path, r->doc, "", "problems", K_ARRAY, 0, &r->problems,
                   err) ||
      parse_problems(r, err))
    return TN_EINPUT;

  if (tn_fleet_get(path, r->doc, "", "candidates", K_ARRAY, 0, &cands, err))
    return TN_EINPUT;
  r->n_cands = (int)json_array_size(cands);
  r->cands = calloc((size_t)r->n_cands + 1, sizeof(*r->cands));
  r->sorted = calloc((size_t)r->n_cands + 1, sizeof(*r->sorted));
  r->at = calloc(((size_t)r->n_cands + 1) * (size_t)r->n_problems * 2,
                 sizeof(*r->at));
  if (r->cands == NULL || r->sorted == NULL || r->at == NULL)
    return tn_errf(err, TN_ETOOL, "%s: out of memory", path);
  json_array_foreach(cands, k, v) {
    const mg_cand *c;
    int j;
    if (parse_candidate(r, v, (int)k, &r->cands[k], err) != 0)
      return TN_EINPUT;
    c = &r->cands[k];
    r->sorted[k] = &r->cands[k];
    if (c->ok && (r->fastest == 0 || c->ms < r->fastest))
      r->fastest = c->ms;
    for (j = 0; c->ok && j < r->n_problems; j++)
      if (r->fastest_at[j] == 0 || c->ms_at[j] < r->fastest_at[j])
        r->fastest_at[j] = c->ms_at[j];
  }
  rc = tn_fleet_check_ids(r, err);
  if (rc != 0)
    return rc;
  qsort(r->sorted, (size_t)r->n_cands, sizeof(*r->sorted), cmp_cand_text);
  for (k = 1; k < (size_t)r->n_cands; k++)
    if (strcmp(r->sorted[k - 1]->text, r->sorted[k]->text) == 0)
      return tn_errf(err, TN_EINPUT,
                     "%s: candidates[%d].params_text: \"%s\" twice", path,
                     r->sorted[k]->idx, r->sorted[k]->text);

  if (tn_fleet_get(path, r->doc, "", "baselines", K_ARRAY, 1, &v, err))
    return TN_EINPUT;
  if (v && json_array_size(v) > 0) {
    json_t *b0 = json_array_get(v, 0);
    json_t *st = json_object_get(b0, "status"); /* NULL if no object */
    json_t *ms = json_object_get(b0, "median_ms");
    json_t *ts = json_object_get(b0, "timings");
    if (json_is_string(st) && strcmp(json_string_value(st), "ok") == 0 &&
        json_is_number(ms)) {
      r->baseline_ms = json_number_value(ms);
      /* at each size, when its timings are there and in range */
      for (k = 0; json_array_size(ts) == (size_t)r->n_problems &&
                  k < (size_t)r->n_problems;
           k++) {
        json_t *m = json_object_get(json_array_get(ts, k), "median_ms");
        double x = json_is_number(m) ? json_number_value(m) : 0.0;
        r->baseline_at[k] = isfinite(x) && x > 0 && x <= MAX_MS ? x : 0.0;
      }
      if (r->n_problems == 1 && !(r->baseline_at[0] > 0))
        r->baseline_at[0] = r->baseline_ms;
    }
  }
  rc = tn_fleet_read_drift(r, err);
  if (rc != 0)
    return rc;

  if (tn_fleet_get(path, r->doc, "", "best", K_OBJECT_OR_NULL, 0, &best, err) ||
      tn_fleet_get(path, r->doc, "", "best_by_size", K_ARRAY, 1, &v, err))
    return TN_EINPUT;
  if (json_is_object(best)) {
    rc = tn_fleet_check_best(r, best, err);
    return rc ? rc : tn_fleet_check_sizes(r, v, err);
  }
  if (r->fastest > 0)
    return tn_errf(err, TN_EINPUT,
                   "%s: best: null, but candidates hold \"ok\" timings",
                   path);
  if (v != NULL)
    return tn_errf(err, TN_EINPUT,
                   "%s: best_by_size: a table by size, but best is null",
                   path);
  return 0;
}

int tn_fleet_check_future(const mg_run *r, long long now,
                          const char *now_text, tn_err *err)
{
  long long ahead = r->t - now;
  if (ahead <= TN_MERGE_SKEW_S)
    return 0;
  return tn_errf(err, TN_EINPUT,
                 "%s: run.started: %s is %lld h %02lld min after now (%s; "
                 "%d minutes of clock skew are allowed): a run from the "
                 "future cannot be the latest night (is the host's clock "
                 "ahead?)",
                 r->path, r->started, ahead / 3600, ahead % 3600 / 60,
                 now_text, TN_MERGE_SKEW_S / 60);
}

void tn_fleet_run_free(mg_run *r)
{
  if (r == NULL)
    return;
  json_decref(r->doc);
  if (r->described) {
    tn_config_free(r->described);
    free(r->described);
  }
  free(r->raw);
  free(r->cands);
  free(r->sorted);
  free(r->at);
  free(r->base_meas_total);
  free(r->base_meas_at);
  free(r);
}

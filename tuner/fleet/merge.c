/* merge.c -- `tuner merge`: the results of many hosts and nights into
 * per-architecture headers and one dispatch header (compile time by
 * __CUDA_ARCH__, run time by device name and compute capability), with a
 * history of every night and a report of regressions.  The rules are in
 * merge.h and docs/fleet.md. */
#define _POSIX_C_SOURCE 200809L
#include "fleet/merge.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arch.h"
#include "emit/emit.h"
#include "pipeline/results.h"

/* ---- the runs read ---- */

typedef struct {
  int idx;          /* position in "candidates", for messages */
  const char *text; /* params_text (borrowed from the document) */
  json_t *params;   /* borrowed */
  int ok;           /* verified and timed */
  double ms;        /* sum of the medians over the problems */
  double spread;    /* largest relative interquartile range */
} mg_cand;

typedef struct {
  char path[4096];
  json_t *doc;
  char *raw;        /* the file's bytes, kept for the history copy */
  size_t raw_len;
  char hash[33];
  const tn_family *family;
  const char *name;
  const tn_arch *arch;
  int predicted;
  int interrupted;
  const char *device; /* NULL for a prediction */
  const char *host;
  int ordinal;
  const char *started;
  long long t;      /* started, seconds since 1970 (UTC) */
  char day[11];     /* "2026-11-30" */
  const char *driver, *nvrtc;
  int from_input;   /* given on the command line (else: history only) */
  tn_problem problem; /* the first, for the family's rules */
  json_t *problems;
  int n_cands;
  mg_cand *cands;
  mg_cand **sorted; /* by text, for lookups */
  int best;         /* index in cands of "best", -1 if none */
  tn_params best_params;
  double noise;     /* best.noise: the run's selection margin */
  double fastest;   /* fastest ok median */
  double baseline_ms; /* the reference baseline, 0 if not measured */
} mg_run;

typedef struct {
  int n, cap;
  mg_run **r;
} mg_runs;

/* One entry of the dispatch table. */
typedef struct {
  const tn_arch *arch;
  char device_name[256]; /* "" for an architecture's entry */
  int predicted;
  tn_params params;
  char text[512];
  char devices[512];     /* where it was measured */
  char date[32];
  char why[512];
  char origin[4200];     /* the results file it came from (the latest) */
} mg_entry;

#define MG_MAX_ARCHS 64    /* more than the architecture table holds */
#define MG_MAX_DEVICES 256 /* device models with an entry of their own */

typedef struct {
  const char *output;
  const char *name;
  const char *history;
  int fail_on_regression;
  int quiet;
} mg_opts;

typedef struct {
  mg_opts opts;
  mg_runs runs;
  const tn_family *family;
  char name[64];        /* the job's name */
  char macro[64];       /* "TRANSPOSE" */
  char ident[64];       /* "transpose" */
  int n_arch;           /* architecture entries, by tn_arch_at order */
  mg_entry *arch_entry[MG_MAX_ARCHS]; /* by tn_arch_at() index */
  int n_dev;
  mg_entry *dev_entry[MG_MAX_DEVICES];
  mg_entry deflt;
  char default_why[512];
  int n_inputs;
  int regressions;
} mg_ctx;

/* The architectures entries are kept for, oldest first (tn_arch_at). */
static int n_archs(void)
{
  return tn_arch_count() < MG_MAX_ARCHS ? tn_arch_count() : MG_MAX_ARCHS;
}

static void run_free(mg_run *r)
{
  if (r == NULL)
    return;
  json_decref(r->doc);
  free(r->raw);
  free(r->cands);
  free(r->sorted);
  free(r);
}

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

/* "2026-11-30T03:48:20Z" into seconds and "2026-11-30".  0 or -1. */
static int parse_iso(const char *s, long long *t, char day[11])
{
  int y, mo, d, h, mi, se, n = 0;
  if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &se,
             &n) != 6 ||
      n == 0 || s[n] != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 ||
      h > 23 || mi > 59 || se > 60)
    return -1;
  *t = days_from_civil(y, mo, d) * 86400LL + h * 3600LL + mi * 60LL + se;
  snprintf(day, 11, "%04d-%02d-%02d", y, mo, d);
  return 0;
}

/* ---- reading a results document ---- */

typedef enum {
  K_STRING,
  K_STRING_OR_NULL,
  K_INT,
  K_NUMBER,
  K_BOOL,
  K_OBJECT,
  K_OBJECT_OR_NULL,
  K_ARRAY
} mg_kind;

static int is_kind(json_t *v, mg_kind k)
{
  switch (k) {
  case K_STRING:
    return json_is_string(v);
  case K_STRING_OR_NULL:
    return json_is_string(v) || json_is_null(v);
  case K_INT:
    return json_is_integer(v);
  case K_NUMBER:
    return json_is_number(v);
  case K_BOOL:
    return json_is_boolean(v);
  case K_OBJECT:
    return json_is_object(v);
  case K_OBJECT_OR_NULL:
    return json_is_object(v) || json_is_null(v);
  case K_ARRAY:
    return json_is_array(v);
  }
  return 0;
}

static const char *kind_name(mg_kind k)
{
  static const char *const names[] = {
      "a string",  "a string or null", "an integer", "a number",
      "true or false", "an object", "an object or null", "an array"};
  return names[k];
}

/* obj[key] of the right kind into *out.  A missing optional key gives
 * NULL.  Messages name the file and the JSON path (where.key). */
static int get(const char *file, json_t *obj, const char *where,
               const char *key, mg_kind kind, int optional, json_t **out,
               tn_err *err)
{
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (v == NULL) {
    if (optional)
      return 0;
    return tn_errf(err, TN_EINPUT, "%s: %s%s%s: missing", file, where,
                   where[0] ? "." : "", key);
  }
  if (!is_kind(v, kind))
    return tn_errf(err, TN_EINPUT, "%s: %s%s%s: expected %s", file, where,
                   where[0] ? "." : "", key, kind_name(kind));
  *out = v;
  return 0;
}

/* A parameter object of r's family into p, checked against the family's
 * ranges and rules (which also resolve "xor" against the tile). */
static int parse_params(const mg_run *r, json_t *o, const char *where,
                        tn_params *p, tn_err *err)
{
  const tn_family *f = r->family;
  const char *key;
  json_t *v;
  char why[512];
  int k;

  memset(p, 0, sizeof(*p));
  json_object_foreach(o, key, v) {
    if (tn_param_index(f->params, f->n_params, key) < 0)
      return tn_errf(err, TN_EINPUT,
                     "%s: %s.%s: not a parameter of family %s", r->path,
                     where, key, f->name);
  }
  for (k = 0; k < f->n_params; k++) {
    const tn_param_desc *d = &f->params[k];
    v = json_object_get(o, d->name);
    if (v == NULL)
      return tn_errf(err, TN_EINPUT, "%s: %s.%s: missing", r->path, where,
                     d->name);
    if (d->kind == TN_PARAM_SWIZZLE) {
      if (!json_is_string(v))
        return tn_errf(err, TN_EINPUT, "%s: %s.%s: expected a string",
                       r->path, where, d->name);
      if (tn_swizzle_parse(json_string_value(v), &p->v[k].sw, why,
                           sizeof(why)) != 0)
        return tn_errf(err, TN_EINPUT, "%s: %s.%s: %s", r->path, where,
                       d->name, why);
    } else {
      json_int_t i;
      if (!json_is_integer(v))
        return tn_errf(err, TN_EINPUT, "%s: %s.%s: expected an integer",
                       r->path, where, d->name);
      i = json_integer_value(v);
      if (i < d->min || i > d->max)
        return tn_errf(err, TN_EINPUT,
                       "%s: %s.%s: %lld is outside [%lld, %lld]", r->path,
                       where, d->name, (long long)i, d->min, d->max);
      p->v[k].i = i;
    }
  }
  if (f->prepare(p, &r->problem, why, sizeof(why)) != 0)
    return tn_errf(err, TN_EINPUT, "%s: %s: not a valid %s configuration: %s",
                   r->path, where, f->name, why);
  return 0;
}

static int parse_problem(mg_run *r, tn_err *err)
{
  json_t *p0, *size, *v;
  size_t k;
  if (json_array_size(r->problems) == 0)
    return tn_errf(err, TN_EINPUT, "%s: problems: empty", r->path);
  p0 = json_array_get(r->problems, 0);
  if (!json_is_object(p0))
    return tn_errf(err, TN_EINPUT, "%s: problems[0]: expected an object",
                   r->path);
  if (get(r->path, p0, "problems[0]", "size", K_ARRAY, 0, &size, err))
    return TN_EINPUT;
  memset(&r->problem, 0, sizeof(r->problem));
  if (json_array_size(size) != (size_t)r->family->n_dims)
    return tn_errf(err, TN_EINPUT,
                   "%s: problems[0].size: %d numbers expected (%s)", r->path,
                   r->family->n_dims, r->family->dim_names);
  json_array_foreach(size, k, v) {
    if (!json_is_integer(v) || json_integer_value(v) <= 0)
      return tn_errf(err, TN_EINPUT,
                     "%s: problems[0].size[%zu]: expected a positive "
                     "integer",
                     r->path, k);
    r->problem.size.dims[k] = json_integer_value(v);
  }
  r->problem.size.n_dims = (int)json_array_size(size);
  {
    char why[256];
    if (tn_problem_options_from_json(r->family, p0, &r->problem, why,
                                     sizeof(why)) != 0)
      return tn_errf(err, TN_EINPUT, "%s: problems[0].%s", r->path, why);
  }
  return 0;
}

static int parse_candidate(mg_run *r, json_t *o, int i, mg_cand *c,
                           tn_err *err)
{
  char where[48];
  json_t *text, *params, *status, *ms, *timings, *t;
  size_t k;

  snprintf(where, sizeof(where), "candidates[%d]", i);
  if (!json_is_object(o))
    return tn_errf(err, TN_EINPUT, "%s: %s: expected an object", r->path,
                   where);
  if (get(r->path, o, where, "params_text", K_STRING, 0, &text, err) ||
      get(r->path, o, where, "params", K_OBJECT, 0, &params, err) ||
      get(r->path, o, where, "status", K_STRING, 0, &status, err))
    return TN_EINPUT;
  if (tn_status_parse(json_string_value(status)) < 0)
    return tn_errf(err, TN_EINPUT, "%s: %s.status: \"%s\" is not a status",
                   r->path, where, json_string_value(status));
  memset(c, 0, sizeof(*c));
  c->idx = i;
  c->text = json_string_value(text);
  c->params = params;
  c->ok = strcmp(json_string_value(status), "ok") == 0;
  if (!c->ok)
    return 0;
  if (r->predicted)
    return tn_errf(err, TN_EINPUT,
                   "%s: %s.status: \"ok\" in a prediction (nothing is timed "
                   "in a prediction)",
                   r->path, where);
  if (get(r->path, o, where, "median_ms", K_NUMBER, 0, &ms, err) ||
      get(r->path, o, where, "timings", K_ARRAY, 0, &timings, err))
    return TN_EINPUT;
  c->ms = json_number_value(ms);
  if (!(c->ms > 0))
    return tn_errf(err, TN_EINPUT, "%s: %s.median_ms: not positive",
                   r->path, where);
  if (json_array_size(timings) == 0)
    return tn_errf(err, TN_EINPUT, "%s: %s.timings: empty", r->path, where);
  json_array_foreach(timings, k, t) {
    char tw[80];
    json_t *q1, *q3, *med;
    snprintf(tw, sizeof(tw), "%s.timings[%zu]", where, k);
    if (!json_is_object(t))
      return tn_errf(err, TN_EINPUT, "%s: %s: expected an object", r->path,
                     tw);
    if (get(r->path, t, tw, "median_ms", K_NUMBER, 0, &med, err) ||
        get(r->path, t, tw, "q1_ms", K_NUMBER, 0, &q1, err) ||
        get(r->path, t, tw, "q3_ms", K_NUMBER, 0, &q3, err))
      return TN_EINPUT;
    if (json_number_value(med) > 0) {
      double s = (json_number_value(q3) - json_number_value(q1)) /
                 json_number_value(med);
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
static const mg_cand *find_cand(const mg_run *r, const char *text)
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
static int load_run(const char *path, int keep_raw, const mg_run *first,
                    int skip_other, mg_run *r, tn_err *err)
{
  json_error_t jerr;
  json_t *v, *dev, *runo, *best, *cands, *pred, *tool;
  const void *parts[1];
  size_t lens[1], k;
  int rc;

  memset(r, 0, sizeof(*r));
  r->best = -1;
  tn_strlcpy(r->path, path, sizeof(r->path));
  rc = tn_read_file(path, &r->raw, &r->raw_len, err);
  if (rc != 0)
    return rc;
  parts[0] = r->raw;
  lens[0] = r->raw_len;
  tn_hash_hex(parts, lens, 1, r->hash);
  r->doc = json_loadb(r->raw, r->raw_len, 0, &jerr);
  if (!keep_raw) {
    free(r->raw);
    r->raw = NULL;
  }
  if (r->doc == NULL)
    return tn_errf(err, TN_EINPUT, "%s: not JSON: line %d, column %d: %s",
                   path, jerr.line, jerr.column, jerr.text);
  if (!json_is_object(r->doc))
    return tn_errf(err, TN_EINPUT,
                   "%s: not a results document (a JSON object expected)",
                   path);
  if (get(path, r->doc, "", "schema", K_STRING, 0, &v, err))
    return TN_EINPUT;
  if (strcmp(json_string_value(v), TN_RESULTS_SCHEMA) != 0)
    return tn_errf(err, TN_EINPUT, "%s: schema: \"%s\", expected \"%s\"",
                   path, json_string_value(v), TN_RESULTS_SCHEMA);
  if (get(path, r->doc, "", "family", K_STRING, 0, &v, err))
    return TN_EINPUT;
  r->family = tn_family_find(json_string_value(v));
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
  if (get(path, r->doc, "", "name", K_STRING, 0, &v, err))
    return TN_EINPUT;
  r->name = json_string_value(v);
  if (get(path, r->doc, "", "predicted", K_BOOL, 1, &pred, err))
    return TN_EINPUT;
  r->predicted = pred != NULL && json_is_true(pred);

  if (get(path, r->doc, "", "run", K_OBJECT, 0, &runo, err) ||
      get(path, runo, "run", "started", K_STRING, 0, &v, err))
    return TN_EINPUT;
  r->started = json_string_value(v);
  if (parse_iso(r->started, &r->t, r->day) != 0)
    return tn_errf(err, TN_EINPUT,
                   "%s: run.started: \"%s\" is not a UTC time like "
                   "2026-11-30T03:48:20Z",
                   path, r->started);
  if (get(path, runo, "run", "host", K_STRING, 0, &v, err))
    return TN_EINPUT;
  r->host = json_string_value(v);
  if (get(path, runo, "run", "interrupted", K_BOOL, 1, &v, err))
    return TN_EINPUT;
  r->interrupted = v != NULL && json_is_true(v);
  if (get(path, r->doc, "", "tool", K_OBJECT, 1, &tool, err))
    return TN_EINPUT;
  if (tool != NULL) {
    if (get(path, tool, "tool", "nvrtc", K_STRING, 1, &v, err))
      return TN_EINPUT;
    r->nvrtc = v ? json_string_value(v) : NULL;
  }

  if (get(path, r->doc, "", "device", K_OBJECT, 0, &dev, err) ||
      get(path, dev, "device", "arch", K_STRING, 0, &v, err))
    return TN_EINPUT;
  r->arch = tn_arch_find(json_string_value(v));
  if (r->arch == NULL) {
    char list[256];
    tn_arch_list(list, sizeof(list));
    return tn_errf(err, TN_EINPUT,
                   "%s: device.arch: \"%s\" is unknown (known: %s)", path,
                   json_string_value(v), list);
  }
  if (get(path, dev, "device", "name", K_STRING_OR_NULL, 0, &v, err))
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
    if (get(path, dev, "device", "ordinal", K_INT, 0, &v, err))
      return TN_EINPUT;
    r->ordinal = (int)json_integer_value(v);
    if (get(path, dev, "device", "driver_cuda_version", K_STRING, 1, &v,
            err))
      return TN_EINPUT;
    r->driver = v ? json_string_value(v) : NULL;
  }

  if (get(path, r->doc, "", "problems", K_ARRAY, 0, &r->problems, err) ||
      parse_problem(r, err))
    return TN_EINPUT;

  if (get(path, r->doc, "", "candidates", K_ARRAY, 0, &cands, err))
    return TN_EINPUT;
  r->n_cands = (int)json_array_size(cands);
  r->cands = calloc((size_t)r->n_cands + 1, sizeof(*r->cands));
  r->sorted = calloc((size_t)r->n_cands + 1, sizeof(*r->sorted));
  if (r->cands == NULL || r->sorted == NULL)
    return tn_errf(err, TN_ETOOL, "%s: out of memory", path);
  json_array_foreach(cands, k, v) {
    if (parse_candidate(r, v, (int)k, &r->cands[k], err) != 0)
      return TN_EINPUT;
    r->sorted[k] = &r->cands[k];
    if (r->cands[k].ok && (r->fastest == 0 || r->cands[k].ms < r->fastest))
      r->fastest = r->cands[k].ms;
  }
  qsort(r->sorted, (size_t)r->n_cands, sizeof(*r->sorted), cmp_cand_text);
  for (k = 1; k < (size_t)r->n_cands; k++)
    if (strcmp(r->sorted[k - 1]->text, r->sorted[k]->text) == 0)
      return tn_errf(err, TN_EINPUT,
                     "%s: candidates[%d].params_text: \"%s\" twice", path,
                     r->sorted[k]->idx, r->sorted[k]->text);

  if (get(path, r->doc, "", "baselines", K_ARRAY, 1, &v, err))
    return TN_EINPUT;
  if (v && json_array_size(v) > 0) {
    json_t *b0 = json_array_get(v, 0), *st, *ms;
    if (json_is_object(b0) && (st = json_object_get(b0, "status")) &&
        json_is_string(st) && strcmp(json_string_value(st), "ok") == 0 &&
        (ms = json_object_get(b0, "median_ms")) && json_is_number(ms))
      r->baseline_ms = json_number_value(ms);
  }

  if (get(path, r->doc, "", "best", K_OBJECT_OR_NULL, 0, &best, err))
    return TN_EINPUT;
  if (json_is_object(best)) {
    json_t *id, *params;
    int i;
    if (get(path, best, "best", "id", K_INT, 0, &id, err) ||
        get(path, best, "best", "params", K_OBJECT, 0, &params, err))
      return TN_EINPUT;
    if (parse_params(r, params, "best.params", &r->best_params, err))
      return TN_EINPUT;
    for (i = 0; i < r->n_cands; i++) {
      json_t *cid = json_object_get(json_array_get(cands, (size_t)i), "id");
      if (json_is_integer(cid) &&
          json_integer_value(cid) == json_integer_value(id))
        r->best = i;
    }
    if (r->best < 0)
      return tn_errf(err, TN_EINPUT,
                     "%s: best.id: %lld is not the id of a candidate", path,
                     (long long)json_integer_value(id));
    if (r->predicted) {
      if (get(path, best, "best", "predicted", K_BOOL, 0, &v, err))
        return TN_EINPUT;
      if (!json_is_true(v))
        return tn_errf(err, TN_EINPUT,
                       "%s: best.predicted: the results are predicted, "
                       "their best must say so",
                       path);
    } else {
      if (!r->cands[r->best].ok)
        return tn_errf(err, TN_EINPUT,
                       "%s: best.id: candidate %lld is not \"ok\"", path,
                       (long long)json_integer_value(id));
      if (get(path, best, "best", "noise", K_NUMBER, 0, &v, err))
        return TN_EINPUT;
      r->noise = json_number_value(v);
    }
  }
  return 0;
}

/* ---- finding the files ---- */

typedef struct {
  int n, cap;
  char **p;
} mg_paths;

static int paths_add(mg_paths *ps, const char *p, tn_err *err)
{
  if (ps->n == ps->cap) {
    int ncap = ps->cap ? ps->cap * 2 : 64;
    char **np = realloc(ps->p, sizeof(*np) * (size_t)ncap);
    if (np == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory");
    ps->p = np;
    ps->cap = ncap;
  }
  ps->p[ps->n] = strdup(p);
  if (ps->p[ps->n] == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory");
  ps->n++;
  return 0;
}

static void paths_free(mg_paths *ps)
{
  int i;
  for (i = 0; i < ps->n; i++)
    free(ps->p[i]);
  free(ps->p);
  memset(ps, 0, sizeof(*ps));
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *tail)
{
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Every *.json under dir (recursively), except temporaries. */
static int scan_dir(const char *dir, mg_paths *ps, tn_err *err)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int rc = 0;
  if (d == NULL)
    return tn_errf(err, TN_EINPUT, "%s: cannot open the folder: %s", dir,
                   strerror(errno));
  while (rc == 0 && (e = readdir(d)) != NULL) {
    char p[4096];
    struct stat st;
    if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp.") != NULL)
      continue;
    if (tn_path_join(p, sizeof(p), dir, e->d_name) != 0) {
      rc = tn_errf(err, TN_ETOOL, "%s/%s: path too long", dir, e->d_name);
      break;
    }
    if (stat(p, &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode))
      rc = scan_dir(p, ps, err);
    else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".json"))
      rc = paths_add(ps, p, err);
  }
  closedir(d);
  return rc;
}

/* A file as given, or a folder's *.json files in name order. */
static int expand_arg(const char *arg, mg_paths *ps, tn_err *err)
{
  struct stat st;
  int first = ps->n, rc;
  if (stat(arg, &st) != 0)
    return tn_errf(err, TN_EINPUT, "%s: cannot open: %s", arg,
                   strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return paths_add(ps, arg, err);
  rc = scan_dir(arg, ps, err);
  if (rc == 0 && ps->n == first)
    return tn_errf(err, TN_EINPUT, "%s: no results (*.json) in this folder",
                   arg);
  if (rc == 0)
    qsort(ps->p + first, (size_t)(ps->n - first), sizeof(char *), cmp_str);
  return rc;
}

static int runs_add(mg_runs *rs, mg_run *r, tn_err *err)
{
  if (rs->n == rs->cap) {
    int ncap = rs->cap ? rs->cap * 2 : 64;
    mg_run **nr = realloc(rs->r, sizeof(*nr) * (size_t)ncap);
    if (nr == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory");
    rs->r = nr;
    rs->cap = ncap;
  }
  rs->r[rs->n++] = r;
  return 0;
}

/* ---- choosing ---- */

/* Runs counted in one choice (room for every run read). */
typedef struct {
  int n;
  mg_run **r;
  double *w;
} mg_set;

static void join_devices(const mg_set *s, char *out, size_t n)
{
  int i, j, used = 0;
  out[0] = '\0';
  for (i = 0; i < s->n; i++) {
    int seen = 0;
    if (s->r[i]->device == NULL)
      continue;
    for (j = 0; j < i; j++)
      if (s->r[j]->device && strcmp(s->r[j]->device, s->r[i]->device) == 0)
        seen = 1;
    if (!seen && (size_t)used < n)
      used += snprintf(out + used, n - (size_t)used, "%s%s", used ? ", " : "",
                       s->r[i]->device);
  }
}

/* The runs of the most recent night among those that match. */
static void latest_night(const mg_runs *rs, const tn_arch *arch,
                         const char *device, int predicted, mg_set *s)
{
  long long last = LLONG_MIN;
  int i;
  s->n = 0;
  for (i = 0; i < rs->n; i++) {
    const mg_run *r = rs->r[i];
    if (r->best < 0 || r->interrupted || r->predicted != predicted ||
        (arch && r->arch != arch) ||
        (device && (r->device == NULL || strcmp(r->device, device) != 0)))
      continue;
    if (r->t > last)
      last = r->t;
  }
  for (i = 0; i < rs->n; i++) {
    mg_run *r = rs->r[i];
    if (r->best < 0 || r->interrupted || r->predicted != predicted ||
        (arch && r->arch != arch) ||
        (device && (r->device == NULL || strcmp(r->device, device) != 0)))
      continue;
    /* a prediction is one run: the latest; measurements: the night */
    if (predicted ? r->t == last : r->t > last - TN_MERGE_NIGHT_S)
      s->r[s->n++] = r;
  }
}

static const mg_run *latest_of(const mg_set *s)
{
  const mg_run *l = s->r[0];
  int i;
  for (i = 1; i < s->n; i++)
    if (s->r[i]->t >= l->t)
      l = s->r[i];
  return l;
}

/* Fills e with the choice among the runs of s (see merge.h). */
static int choose(const mg_set *s, mg_entry *e, tn_err *err)
{
  const mg_run *last = latest_of(s);
  double *w = s->w, wsum = 0, best_score = -1;
  const mg_cand *win = NULL;
  int i, j, best_votes = 0, n_dev;

  join_devices(s, e->devices, sizeof(e->devices));
  tn_strlcpy(e->date, last->started, sizeof(e->date));
  /* the file name only: a shipped header need not show a cluster's paths */
  tn_strlcpy(e->origin,
             strrchr(last->path, '/') ? strrchr(last->path, '/') + 1
                                      : last->path,
             sizeof(e->origin));
  if (s->n == 1 || last->predicted) {
    e->params = last->best_params;
    tn_strlcpy(e->text, last->cands[last->best].text, sizeof(e->text));
    if (last->predicted)
      snprintf(e->why, sizeof(e->why),
               "predicted by the model for %s (no measurement of it)",
               last->arch->name);
    else
      snprintf(e->why, sizeof(e->why),
               "the winner of the one run of the latest night (host %s, "
               "GPU %d)",
               last->host, last->ordinal);
    return 0;
  }
  /* each device model weighs the same, whatever its number of runs */
  n_dev = 0;
  for (i = 0; i < s->n; i++) {
    int same = 0, first = 1;
    for (j = 0; j < s->n; j++)
      if (strcmp(s->r[i]->device, s->r[j]->device) == 0) {
        same++;
        if (j < i)
          first = 0;
      }
    w[i] = 1.0 / same;
    wsum += w[i];
    n_dev += first;
  }
  for (i = 0; i < last->n_cands; i++) {
    const mg_cand *c = &last->cands[i];
    double logsum = 0, score;
    int k, all = 1, votes = 0;
    if (!c->ok)
      continue;
    for (k = 0; k < s->n && all; k++) {
      const mg_cand *o = find_cand(s->r[k], c->text);
      if (o == NULL) {
        all = 0;
        break;
      }
      logsum += w[k] * log(s->r[k]->fastest / o->ms);
      if (strcmp(s->r[k]->cands[s->r[k]->best].text, c->text) == 0)
        votes++;
    }
    if (!all)
      continue;
    score = exp(logsum / wsum);
    if (win == NULL || score > best_score * (1 + 1e-12) ||
        (score >= best_score * (1 - 1e-12) &&
         (votes > best_votes ||
          (votes == best_votes && strcmp(c->text, win->text) < 0)))) {
      win = c;
      best_score = score;
      best_votes = votes;
    }
  }
  if (win == NULL) {
    e->params = last->best_params;
    tn_strlcpy(e->text, last->cands[last->best].text, sizeof(e->text));
    snprintf(e->why, sizeof(e->why),
             "no configuration was measured by all %d runs of the latest "
             "night: the winner of the latest run (%s)",
             s->n, last->device);
    return 0;
  }
  {
    char where[64];
    double pct = 0;
    int have_pct = 1;
    snprintf(where, sizeof(where), "candidates[%d].params", win->idx);
    if (parse_params(last, win->params, where, &e->params, err) != 0)
      return TN_EINPUT;
    tn_strlcpy(e->text, win->text, sizeof(e->text));
    for (i = 0; i < s->n; i++) {
      const mg_cand *o = find_cand(s->r[i], win->text);
      if (!(s->r[i]->baseline_ms > 0))
        have_pct = 0;
      else
        pct += w[i] * log(100.0 * s->r[i]->baseline_ms / o->ms);
    }
    if (have_pct)
      snprintf(e->why, sizeof(e->why),
               "best geometric mean over %d runs on %d device models of "
               "the latest night: %.3f of each run's fastest, %.1f%% of "
               "baseline",
               s->n, n_dev, best_score, exp(pct / wsum));
    else
      snprintf(e->why, sizeof(e->why),
               "best geometric mean over %d runs on %d device models of "
               "the latest night: %.3f of each run's fastest",
               s->n, n_dev, best_score);
  }
  return 0;
}

/* 1 if a launch of p fits arch's limits (threads, shared memory). */
static int fits(const tn_family *f, const tn_params *p,
                const tn_problem *prob, const tn_arch *arch)
{
  tn_launch l;
  f->launch(p, prob, &l);
  return l.threads <= arch->max_threads_per_block &&
         l.smem_static <= arch->smem_static_max &&
         tn_launch_smem(&l) <= arch->smem_per_block;
}

/* The portable default: the family's default parameters when they are a
 * valid point that fits the oldest known architecture; else the oldest
 * entry that fits it; else the oldest entry, said so. */
static void choose_default(mg_ctx *cx, const mg_run *any)
{
  const tn_family *f = cx->family;
  const tn_arch *oldest = tn_arch_at(0);
  mg_entry *d = &cx->deflt;
  char why[512];
  int k, i;

  memset(d, 0, sizeof(*d));
  for (k = 0; k < f->n_params; k++) {
    if (f->params[k].kind == TN_PARAM_SWIZZLE)
      d->params.v[k].sw.kind = TN_SWZ_NONE;
    else
      d->params.v[k].i = f->params[k].def;
  }
  if (f->prepare(&d->params, &any->problem, why, sizeof(why)) == 0 &&
      fits(f, &d->params, &any->problem, oldest)) {
    tn_params_format(f->params, f->n_params, &d->params, d->text,
                     sizeof(d->text));
    snprintf(d->why, sizeof(d->why),
             "the %s family's default parameters (they fit %s, the oldest "
             "architecture known)",
             f->name, oldest->name);
    return;
  }
  for (i = 0; i < n_archs(); i++) {
    const mg_entry *e = cx->arch_entry[i];
    if (e && fits(f, &e->params, &any->problem, oldest)) {
      d->params = e->params;
      tn_strlcpy(d->text, e->text, sizeof(d->text));
      snprintf(d->why, sizeof(d->why),
               "the %s entry (the family's defaults do not fit; this fits "
               "%s, the oldest architecture known)",
               e->arch->name, oldest->name);
      return;
    }
  }
  for (i = 0; i < n_archs(); i++) {
    const mg_entry *e = cx->arch_entry[i];
    if (e) {
      d->params = e->params;
      tn_strlcpy(d->text, e->text, sizeof(d->text));
      snprintf(d->why, sizeof(d->why),
               "the oldest entry, %s: neither the family's defaults nor any "
               "entry fit %s (it may not run there)",
               e->arch->name, oldest->name);
      return;
    }
  }
}

/* ---- writing headers ---- */

/* Writes s into a C comment, with no comment end in it. */
static void put_comment(FILE *o, const char *s)
{
  for (; *s; s++) {
    if (s[0] == '*' && s[1] == '/') {
      fputs("* /", o);
      s++;
    } else if (*s == '\n') {
      fputs(" ", o);
    } else {
      fputc(*s, o);
    }
  }
}

/* Writes s as a C string literal. */
static void put_cstring(FILE *o, const char *s)
{
  fputc('"', o);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(o, "\\%c", c);
    else if (c < 32 || c >= 127)
      fprintf(o, "\\%03o", c);
    else if (c == '?' && s[1] == '?')
      fputs("\\?", o); /* no trigraphs */
    else
      fputc(c, o);
  }
  fputc('"', o);
}

/* #define PREFIX_PARAM value for every parameter (swizzles: _B, _M, _S). */
static void put_param_macros(FILE *o, const tn_family *f, const tn_params *p,
                             const char *prefix)
{
  int k;
  for (k = 0; k < f->n_params; k++) {
    char pname[48];
    tn_emit_macro_name(pname, sizeof(pname), f->params[k].name);
    if (f->params[k].kind == TN_PARAM_SWIZZLE) {
      const tn_swizzle *sw = &p->v[k].sw;
      char swn[32];
      fprintf(o, "#define %s_%s_B %d /* %s */\n", prefix, pname, sw->b,
              tn_swizzle_name(sw, swn, sizeof(swn)));
      fprintf(o, "#define %s_%s_M %d\n", prefix, pname, sw->m);
      fprintf(o, "#define %s_%s_S %d\n", prefix, pname, sw->s);
    } else {
      fprintf(o, "#define %s_%s %lld\n", prefix, pname, p->v[k].i);
    }
  }
}

/* #define TO_PARAM FROM_PARAM for every parameter. */
static void put_param_aliases(FILE *o, const tn_family *f, const char *to,
                              const char *from)
{
  static const char *const parts[] = {"_B", "_M", "_S"};
  int k, j;
  for (k = 0; k < f->n_params; k++) {
    char pname[48];
    tn_emit_macro_name(pname, sizeof(pname), f->params[k].name);
    if (f->params[k].kind == TN_PARAM_SWIZZLE)
      for (j = 0; j < 3; j++)
        fprintf(o, "#define %s_%s%s %s_%s%s\n", to, pname, parts[j], from,
                pname, parts[j]);
    else
      fprintf(o, "#define %s_%s %s_%s\n", to, pname, from, pname);
  }
}

/* Opens a growing in-memory text. */
static FILE *text_open(char **buf, size_t *len, tn_err *err)
{
  FILE *o;
  *buf = NULL;
  *len = 0;
  o = open_memstream(buf, len);
  if (o == NULL)
    tn_errf(err, TN_ETOOL, "open_memstream: %s", strerror(errno));
  return o;
}

static int text_close(FILE *o, char **buf, char **text, tn_err *err)
{
  int bad = ferror(o);
  if (fclose(o) != 0 || bad) {
    free(*buf);
    *buf = NULL;
    return tn_errf(err, TN_ETOOL, "out of memory writing a header");
  }
  *text = *buf;
  return 0;
}

/* NAME's macro prefix and C identifier; TN_EINPUT if it cannot be one. */
static int name_idents(const char *name, char *macro, char *ident, size_t n,
                       tn_err *err)
{
  size_t i;
  if (name[0] == '\0' || strchr(name, '/') != NULL || name[0] == '.')
    return tn_errf(err, TN_EINPUT,
                   "name \"%s\": not usable as a file name; give --name",
                   name);
  tn_emit_macro_name(macro, n, name);
  if (!(macro[0] >= 'A' && macro[0] <= 'Z'))
    return tn_errf(err, TN_EINPUT,
                   "name \"%s\": macros and C names must start with a "
                   "letter; give --name",
                   name);
  for (i = 0; macro[i]; i++)
    ident[i] = (char)(macro[i] >= 'A' && macro[i] <= 'Z' ? macro[i] + 32
                                                          : macro[i]);
  ident[i] = '\0';
  return 0;
}

int tn_merge_arch_header_text(const tn_merge_header *h, char **text,
                              tn_err *err)
{
  const tn_family *f = h->family;
  char name[64], ident[64], arch[16], ptxt[512], prefix[96], *buf;
  size_t len;
  FILE *o;
  int rc;

  rc = name_idents(h->name, name, ident, sizeof(name), err);
  if (rc != 0)
    return rc;
  tn_emit_macro_name(arch, sizeof(arch), h->arch);
  tn_params_format(f->params, f->n_params, h->params, ptxt, sizeof(ptxt));
  o = text_open(&buf, &len, err);
  if (o == NULL)
    return TN_ETOOL;
  fprintf(o, "/* %s/", h->arch);
  put_comment(o, h->name);
  fprintf(o, ".h -- generated by tuner; do not edit.\n *\n");
  if (h->predicted) {
    fprintf(o, " * PREDICTED, not measured: the %s layout the model and the "
               "architecture\n * table predict for %s (",
            f->name, h->arch);
    put_comment(o, h->date ? h->date : "");
    fprintf(o, ").\n * Measure it on a %s GPU to replace it.\n", h->arch);
  } else {
    fprintf(o, " * The %s layout measured on ", f->name);
    put_comment(o, h->devices ? h->devices : "?");
    fprintf(o, " (%s),\n * ", h->arch);
    put_comment(o, h->date ? h->date : "");
    fprintf(o, ".\n");
  }
  if (h->why) {
    fprintf(o, " * Chosen: ");
    put_comment(o, h->why);
    fprintf(o, ".\n");
  }
  if (h->origin) {
    fprintf(o, " * From: ");
    put_comment(o, h->origin);
    fprintf(o, "\n");
  }
  fprintf(o, " * Parameters: %s\n */\n", ptxt);
  fprintf(o, "#ifndef TUNER_%s_%s_H\n#define TUNER_%s_%s_H\n\n", name, arch,
          name, arch);
  fprintf(o, "#define %s_%s_%s 1\n", name, arch,
          h->predicted ? "PREDICTED" : "MEASURED");
  snprintf(prefix, sizeof(prefix), "%s_%s", name, arch);
  put_param_macros(o, f, h->params, prefix);
  fprintf(o, "\n#ifndef TUNER_ONLY_ARCH_NAMES\n");
  put_param_macros(o, f, h->params, name);
  fprintf(o, "#endif\n\n#endif\n");
  return text_close(o, &buf, text, err);
}

/* The newest architecture entry not newer than arch, or NULL. */
static const mg_entry *resolve(const mg_ctx *cx, int arch_index)
{
  int i;
  for (i = arch_index; i >= 0; i--)
    if (cx->arch_entry[i])
      return cx->arch_entry[i];
  return NULL;
}

static void put_table_entry(FILE *o, const mg_ctx *cx, const mg_entry *e,
                            const char *source)
{
  const tn_family *f = cx->family;
  int k;
  fprintf(o, "  {");
  if (e->device_name[0])
    put_cstring(o, e->device_name);
  else
    fprintf(o, "NULL");
  fprintf(o, ", %d, %d,", e->arch ? e->arch->major : 0,
          e->arch ? e->arch->minor : 0);
  for (k = 0; k < f->n_params; k++) {
    if (f->params[k].kind == TN_PARAM_SWIZZLE)
      fprintf(o, " %d, %d, %d,", e->params.v[k].sw.b, e->params.v[k].sw.m,
              e->params.v[k].sw.s);
    else
      fprintf(o, " %lld,", e->params.v[k].i);
  }
  fprintf(o, "\n   ");
  put_cstring(o, e->text);
  fprintf(o, ", \"%s\", ", source);
  put_cstring(o, e->devices);
  fprintf(o, ", ");
  put_cstring(o, e->date);
  fprintf(o, "}");
}

static int dispatch_text(const mg_ctx *cx, char **text, tn_err *err)
{
  const tn_family *f = cx->family;
  const char *M = cx->macro, *id = cx->ident;
  char *buf, prefix[96];
  size_t len;
  FILE *o;
  int i, k, n_entries = 0, first;

  o = text_open(&buf, &len, err);
  if (o == NULL)
    return TN_ETOOL;
  fprintf(o, "/* ");
  put_comment(o, cx->name);
  fprintf(o,
          "_dispatch.h -- generated by tuner merge; do not edit.\n"
          " *\n"
          " * The %s configurations of a fleet, for C and CUDA\n"
          " * (docs/fleet.md).\n"
          " *\n"
          " * Device code (__CUDA_ARCH__ defined): %s_<PARAM> is the\n"
          " * entry of the architecture being compiled, else of the nearest\n"
          " * older one that has an entry, else the portable default;\n"
          " * %s_CONFIG_ARCH says which (80 for sm_80, 0 for the default)\n"
          " * and %s_CONFIG_PREDICTED whether it was predicted.\n"
          " * Host code: %s_<PARAM> is the portable default.  Look the\n"
          " * right entry up at run time with %s_lookup(name, cc_major,\n"
          " * cc_minor): the exact device, then its architecture, then the\n"
          " * nearest older one, then the default.  For a kernel built with\n"
          " * the macros above, look up what it was compiled with:\n"
          " * %s_lookup(NULL, ptxVersion / 10, ptxVersion %% 10), with\n"
          " * the ptxVersion of cudaFuncGetAttributes().\n"
          " *\n"
          " * Entries (merged from %d results files):\n",
          f->name, M, M, M, M, id, id, cx->runs.n);
  for (i = 0; i < n_archs(); i++) {
    const mg_entry *e = cx->arch_entry[i];
    if (e == NULL)
      continue;
    fprintf(o, " *   %-7s %-9s %s  ", e->arch->name,
            e->predicted ? "predicted" : "measured", e->date);
    put_comment(o, e->predicted ? "-" : e->devices);
    fprintf(o, "\n *           %s\n *           ", e->text);
    put_comment(o, e->why);
    fprintf(o, "\n");
  }
  for (i = 0; i < cx->n_dev; i++) {
    const mg_entry *e = cx->dev_entry[i];
    fprintf(o, " *   device  ");
    put_comment(o, e->device_name);
    fprintf(o, " (%s) %s\n *           %s\n", e->arch->name, e->date,
            e->text);
  }
  fprintf(o, " *   default %s\n *           ", cx->deflt.text);
  put_comment(o, cx->deflt.why);
  fprintf(o, "\n */\n#ifndef TUNER_%s_DISPATCH_H\n", M);
  fprintf(o, "#define TUNER_%s_DISPATCH_H\n", M);
  fprintf(o, "\n#include <stddef.h>\n#include <string.h>\n");

  fprintf(o, "\n/* The portable default. */\n");
  snprintf(prefix, sizeof(prefix), "%s_DEFAULT", M);
  put_param_macros(o, f, &cx->deflt.params, prefix);
  for (i = 0; i < n_archs(); i++) {
    const mg_entry *e = cx->arch_entry[i];
    char arch[16];
    if (e == NULL)
      continue;
    tn_emit_macro_name(arch, sizeof(arch), e->arch->name);
    fprintf(o, "\n/* %s, %s. */\n", e->arch->name,
            e->predicted ? "predicted" : "measured");
    fprintf(o, "#define %s_%s_%s 1\n", M, arch,
            e->predicted ? "PREDICTED" : "MEASURED");
    snprintf(prefix, sizeof(prefix), "%s_%s", M, arch);
    put_param_macros(o, f, &e->params, prefix);
  }

  fprintf(o, "\n#if defined(__CUDA_ARCH__)\n");
  first = 1;
  for (i = n_archs() - 1; i >= 0; i--) {
    const tn_arch *a = tn_arch_at(i);
    const mg_entry *e = resolve(cx, i);
    char arch[16];
    if (e == NULL)
      break;
    tn_emit_macro_name(arch, sizeof(arch), e->arch->name);
    fprintf(o, "#%s __CUDA_ARCH__ >= %d\n", first ? "if" : "elif",
            a->major * 100 + a->minor * 10);
    first = 0;
    if (e->arch == a)
      fprintf(o, "/* %s: its own entry */\n", a->name);
    else
      fprintf(o, "/* %s: no entry; the nearest older one, %s */\n", a->name,
              e->arch->name);
    fprintf(o, "#define %s_CONFIG_ARCH %d\n", M,
            e->arch->major * 10 + e->arch->minor);
    fprintf(o, "#define %s_CONFIG_PREDICTED %d\n", M, e->predicted);
    snprintf(prefix, sizeof(prefix), "%s_%s", M, arch);
    put_param_aliases(o, f, M, prefix);
  }
  fprintf(o, "#%s\n/* older than every entry: the portable default */\n",
          first ? "if 1" : "else");
  fprintf(o, "#define %s_CONFIG_ARCH 0\n#define %s_CONFIG_PREDICTED 0\n", M,
          M);
  snprintf(prefix, sizeof(prefix), "%s_DEFAULT", M);
  put_param_aliases(o, f, M, prefix);
  fprintf(o, "#endif\n#else\n/* host code: the portable default; use "
             "%s_lookup() */\n",
          id);
  fprintf(o, "#define %s_CONFIG_ARCH 0\n#define %s_CONFIG_PREDICTED 0\n", M,
          M);
  put_param_aliases(o, f, M, prefix);
  fprintf(o, "#endif\n");

  fprintf(o, "\n/* Run time: one entry of the table. */\ntypedef struct {\n");
  fprintf(o, "  /* the exact device, or NULL: the architecture's entry */\n"
             "  const char *device_name;\n");
  fprintf(o, "  int cc_major, cc_minor;  /* compute capability (0.0: the "
             "default) */\n");
  for (k = 0; k < f->n_params; k++) {
    char pid[48], *c;
    tn_strlcpy(pid, f->params[k].name, sizeof(pid));
    for (c = pid; *c; c++)
      if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
        *c = *c >= 'A' && *c <= 'Z' ? (char)(*c + 32) : '_';
    if (f->params[k].kind == TN_PARAM_SWIZZLE)
      fprintf(o, "  int %s_b, %s_m, %s_s; /* Swizzle<B, M, S> */\n", pid, pid,
              pid);
    else
      fprintf(o, "  int %s;\n", pid);
  }
  fprintf(o, "  const char *params;      /* the parameters as text */\n");
  fprintf(o, "  const char *source;      /* \"measured\", \"predicted\" or "
             "\"default\" */\n");
  fprintf(o, "  const char *device;      /* where it was measured (\"\" if "
             "not) */\n");
  fprintf(o, "  const char *date;        /* when (UTC; \"\" for the default) "
             "*/\n} %s_config;\n",
          id);

  fprintf(o, "\n/* Devices first, then architectures, newest first. */\n");
  fprintf(o, "static const %s_config %s_configs[] = {\n", id, id);
  for (i = 0; i < cx->n_dev; i++) {
    put_table_entry(o, cx, cx->dev_entry[i],
                    cx->dev_entry[i]->predicted ? "predicted" : "measured");
    fprintf(o, ",\n");
    n_entries++;
  }
  for (i = n_archs() - 1; i >= 0; i--) {
    const mg_entry *e = cx->arch_entry[i];
    if (e == NULL)
      continue;
    put_table_entry(o, cx, e, e->predicted ? "predicted" : "measured");
    fprintf(o, ",\n");
    n_entries++;
  }
  fprintf(o, "};\n#define %s_N_CONFIGS %d\n", M, n_entries);
  fprintf(o, "\nstatic const %s_config %s_default_config =\n", id, id);
  {
    mg_entry d = cx->deflt;
    d.arch = NULL;
    d.device_name[0] = '\0';
    d.devices[0] = '\0';
    d.date[0] = '\0';
    put_table_entry(o, cx, &d, "default");
  }
  fprintf(o, ";\n");

  fprintf(o,
          "\n/* The entry for a device: the exact device name (and compute\n"
          " * capability), else its architecture's entry, else the nearest\n"
          " * older architecture's, else the portable default.  device_name\n"
          " * may be NULL.  Never returns NULL. */\n"
          "static inline const %s_config *\n"
          "%s_lookup(const char *device_name, int cc_major, int cc_minor)\n"
          "{\n"
          "  const %s_config *best = NULL;\n"
          "  const int want = cc_major * 100 + cc_minor;\n"
          "  size_t i;\n"
          "  if (device_name != NULL)\n"
          "    for (i = 0; i < %s_N_CONFIGS; i++) {\n"
          "      const %s_config *c = &%s_configs[i];\n"
          "      if (c->device_name != NULL && c->cc_major == cc_major &&\n"
          "          c->cc_minor == cc_minor &&\n"
          "          strcmp(c->device_name, device_name) == 0)\n"
          "        return c;\n"
          "    }\n"
          "  for (i = 0; i < %s_N_CONFIGS; i++) {\n"
          "    const %s_config *c = &%s_configs[i];\n"
          "    const int have = c->cc_major * 100 + c->cc_minor;\n"
          "    if (c->device_name == NULL && have <= want &&\n"
          "        (best == NULL ||\n"
          "         have > best->cc_major * 100 + best->cc_minor))\n"
          "      best = c;\n"
          "  }\n"
          "  return best != NULL ? best : &%s_default_config;\n"
          "}\n",
          id, id, id, M, id, id, M, id, id, id);
  fprintf(o, "\n#endif\n");
  return text_close(o, &buf, text, err);
}

/* ---- history ---- */

/* A path from a format; TN_ETOOL if it does not fit. */
static int pathf(char *out, size_t n, tn_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int pathf(char *out, size_t n, tn_err *err, const char *fmt, ...)
{
  va_list ap;
  int w;
  va_start(ap, fmt);
  w = vsnprintf(out, n, fmt, ap);
  va_end(ap);
  if (w < 0 || (size_t)w >= n)
    return tn_errf(err, TN_ETOOL, "%s...: path too long", out);
  return 0;
}

/* DIR/<day>/<arch>/<device>/<file name>, or the same with the content
 * hash when a different file already has that name. */
static int history_copy(const mg_ctx *cx, const mg_run *r, tn_err *err)
{
  char dev[256], dir[4096], path[4400], *old = NULL;
  const char *base = strrchr(r->path, '/');
  size_t olen = 0;
  tn_err ignore = {{0}};
  int rc;

  base = base ? base + 1 : r->path;
  tn_strlcpy(dev, r->predicted ? "predicted" : r->device, sizeof(dev));
  tn_sanitize_name(dev);
  rc = pathf(dir, sizeof(dir), err, "%s/%s/%s/%s", cx->opts.history, r->day,
             r->arch->name, dev);
  if (rc == 0)
    rc = tn_mkdirs(dir, err);
  if (rc == 0)
    rc = pathf(path, sizeof(path), err, "%s/%s", dir, base);
  if (rc != 0)
    return rc;
  if (tn_read_file(path, &old, &olen, &ignore) == 0) {
    int same = olen == r->raw_len && memcmp(old, r->raw, olen) == 0;
    free(old);
    if (same)
      return 0;
    rc = pathf(path, sizeof(path), err, "%s/%.*s-%.8s.json", dir,
               (int)(ends_with(base, ".json") ? strlen(base) - 5
                                              : strlen(base)),
               base, r->hash);
    if (rc)
      return rc;
  }
  return tn_write_file_atomic(path, r->raw, r->raw_len, err);
}

/* ---- regressions ---- */

static int same_gpu(const mg_run *a, const mg_run *b)
{
  return !a->predicted && !b->predicted && a->ordinal == b->ordinal &&
         strcmp(a->host, b->host) == 0 && strcmp(a->device, b->device) == 0;
}

typedef struct {
  const mg_cand *now, *before;
  double ratio, noise;
} mg_slower;

static int cmp_slower(const void *a, const void *b)
{
  const mg_slower *x = a, *y = b;
  return x->ratio < y->ratio ? 1 : x->ratio > y->ratio ? -1 : 0;
}

/* Compares every input run with the same GPU's previous night; reports
 * on stderr.  Returns the number of regressed configurations. */
static int regressions(mg_ctx *cx, tn_err *err)
{
  int i, j, total = 0;
  for (i = 0; i < cx->runs.n; i++) {
    const mg_run *now = cx->runs.r[i], *before = NULL;
    mg_slower *sl;
    int n = 0, k;
    if (!now->from_input || now->predicted || now->interrupted)
      continue;
    for (j = 0; j < cx->runs.n; j++) {
      const mg_run *r = cx->runs.r[j];
      if (r != now && same_gpu(r, now) && !r->interrupted &&
          r->t <= now->t - TN_MERGE_NIGHT_S &&
          (before == NULL || r->t > before->t))
        before = r;
    }
    if (before == NULL)
      continue;
    sl = calloc((size_t)now->n_cands + 1, sizeof(*sl));
    if (sl == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory");
    for (k = 0; k < now->n_cands; k++) {
      const mg_cand *c = &now->cands[k], *p;
      double noise = now->noise > before->noise ? now->noise : before->noise;
      if (!c->ok || (p = find_cand(before, c->text)) == NULL)
        continue;
      if (c->spread > noise)
        noise = c->spread;
      if (p->spread > noise)
        noise = p->spread;
      if (c->ms > p->ms * (1.0 + noise)) {
        sl[n].now = c;
        sl[n].before = p;
        sl[n].ratio = c->ms / p->ms;
        sl[n].noise = noise;
        n++;
      }
    }
    if (n > 0) {
      qsort(sl, (size_t)n, sizeof(*sl), cmp_slower);
      fprintf(stderr,
              "tuner merge: REGRESSION: %d configuration%s slower beyond "
              "noise on %s (%s, host %s, GPU %d): %s against %s\n",
              n, n > 1 ? "s" : "", now->device, now->arch->name, now->host,
              now->ordinal, now->started, before->started);
      fprintf(stderr, "  %s\n  against %s\n", now->path, before->path);
      if (now->driver && before->driver &&
          strcmp(now->driver, before->driver) != 0)
        fprintf(stderr, "  the driver changed: CUDA %s -> %s\n",
                before->driver, now->driver);
      if (now->nvrtc && before->nvrtc && strcmp(now->nvrtc, before->nvrtc))
        fprintf(stderr, "  NVRTC changed: %s -> %s\n", before->nvrtc,
                now->nvrtc);
      if (now->baseline_ms > 0 && before->baseline_ms > 0)
        fprintf(stderr, "  the baseline: %.4f -> %.4f ms (%+.1f%%)\n",
                before->baseline_ms, now->baseline_ms,
                100.0 * (now->baseline_ms / before->baseline_ms - 1));
      for (k = 0; k < n && k < 20; k++)
        fprintf(stderr, "  %s: %.4f -> %.4f ms (%+.1f%%, noise %.1f%%)\n",
                sl[k].now->text, sl[k].before->ms, sl[k].now->ms,
                100.0 * (sl[k].ratio - 1), 100.0 * sl[k].noise);
      if (n > 20)
        fprintf(stderr, "  ... and %d more\n", n - 20);
    }
    total += n;
    free(sl);
  }
  return total;
}

/* ---- the command ---- */

static void usage(FILE *out)
{
  fprintf(out,
"Usage: tuner merge [options] RESULTS...\n"
"\n"
"Merges results JSON files (measured or predicted; files, or folders\n"
"searched for *.json) of one kernel family from many hosts and nights into\n"
"DIR/<arch>/<name>.h for every architecture with an entry, and one\n"
"DIR/<name>_dispatch.h that selects the configuration at compile time by\n"
"__CUDA_ARCH__ and at run time by device name and compute capability,\n"
"falling back to the nearest older architecture and a portable default.\n"
"Rules: a measurement beats a prediction; the latest night counts; devices\n"
"of one architecture that disagree: the best geometric mean of each run's\n"
"fastest time over the configuration's (docs/fleet.md).\n"
"\n"
"Options:\n"
"  -o, --output DIR          write the headers here (default: results)\n"
"      --name NAME           name the headers and macros (default: the\n"
"                            results' name)\n"
"      --history DIR         keep every input under\n"
"                            DIR/<date>/<arch>/<device>/ and merge with\n"
"                            what is kept there; regressions are found\n"
"                            against the previous night\n"
"      --fail-on-regression  exit 4 when a configuration got slower than\n"
"                            on the same GPU the previous night beyond\n"
"                            noise (the headers are written all the same)\n"
"  -q, --quiet               no table of entries on stdout\n"
"  -h, --help                this text\n"
"\n"
"Exit status: 0 done; 1 a tool failed; 2 bad input (FILE: what is wrong),\n"
"nothing written; 4 a regression with --fail-on-regression.\n");
}

/* Checks a run against the first input: one name, one set of problems.
 * From the history, others are skipped (returns 1). */
static int compatible(const mg_ctx *cx, const mg_run *first, const mg_run *r,
                      int from_history, tn_err *err)
{
  if (strcmp(r->name, first->name) != 0 && cx->opts.name == NULL) {
    if (from_history)
      return 1;
    return tn_errf(err, TN_EINPUT,
                   "%s: name \"%s\", but %s is \"%s\": give --name to merge "
                   "them",
                   r->path, r->name, first->path, first->name);
  }
  if (!json_equal(r->problems, first->problems)) {
    if (from_history)
      return 1;
    return tn_errf(err, TN_EINPUT,
                   "%s: problems: not those of %s (the same config on every "
                   "host?)",
                   r->path, first->path);
  }
  return 0;
}

static int known_hash(const mg_runs *rs, const char *hash)
{
  int i;
  for (i = 0; i < rs->n; i++)
    if (strcmp(rs->r[i]->hash, hash) == 0)
      return 1;
  return 0;
}

static int load_all(mg_ctx *cx, int argc, char **argv, tn_err *err)
{
  mg_paths in = {0}, hist = {0};
  mg_run *first = NULL;
  int i, j, rc = 0;

  for (i = 0; i < argc && rc == 0; i++)
    rc = expand_arg(argv[i], &in, err);
  for (i = 0; i < in.n && rc == 0; i++) {
    mg_run *r = malloc(sizeof(*r));
    if (r == NULL) {
      rc = tn_errf(err, TN_ETOOL, "out of memory");
      break;
    }
    rc = load_run(in.p[i], cx->opts.history != NULL, first, 0, r, err);
    r->from_input = 1;
    if (rc == 0 && first != NULL)
      rc = compatible(cx, first, r, 0, err);
    if (rc != 0) {
      run_free(r);
      break;
    }
    if (known_hash(&cx->runs, r->hash)) {
      run_free(r); /* the same file twice (a file and its folder) */
      continue;
    }
    if (first == NULL)
      first = r;
    rc = runs_add(&cx->runs, r, err);
    if (rc)
      run_free(r);
  }
  cx->n_inputs = cx->runs.n;
  if (rc == 0 && cx->opts.history) {
    struct stat st;
    if (stat(cx->opts.history, &st) == 0)
      rc = scan_dir(cx->opts.history, &hist, err);
    if (rc == 0 && hist.n > 0)
      qsort(hist.p, (size_t)hist.n, sizeof(char *), cmp_str);
    for (i = 0; i < hist.n && rc == 0; i++) {
      mg_run *r = malloc(sizeof(*r));
      int dup = 0, skip;
      if (r == NULL) {
        rc = tn_errf(err, TN_ETOOL, "out of memory");
        break;
      }
      rc = load_run(hist.p[i], 0, first, 1, r, err);
      if (rc < 0) {
        run_free(r);
        break;
      }
      skip = rc == 1 || compatible(cx, first, r, 1, err);
      rc = 0;
      for (j = 0; j < cx->n_inputs && !skip; j++)
        if (strcmp(cx->runs.r[j]->name, r->name) == 0)
          break;
      if (j == cx->n_inputs)
        skip = 1; /* another job's history */
      /* an input kept earlier, or a copy of one */
      dup = known_hash(&cx->runs, r->hash);
      if (skip || dup) {
        run_free(r);
        continue;
      }
      rc = runs_add(&cx->runs, r, err);
      if (rc)
        run_free(r);
    }
  }
  paths_free(&in);
  paths_free(&hist);
  return rc;
}

static int choose_all(mg_ctx *cx, tn_err *err)
{
  mg_set set, *s = &set;
  int i, j, rc = 0;

  s->n = 0;
  s->r = calloc((size_t)cx->runs.n + 1, sizeof(*s->r));
  s->w = calloc((size_t)cx->runs.n + 1, sizeof(*s->w));
  if (s->r == NULL || s->w == NULL) {
    free(s->r);
    free(s->w);
    return tn_errf(err, TN_ETOOL, "out of memory");
  }
  for (i = 0; i < n_archs() && rc == 0; i++) {
    const tn_arch *a = tn_arch_at(i);
    mg_entry *e;
    int predicted = 0;
    latest_night(&cx->runs, a, NULL, 0, s);
    if (s->n == 0) {
      latest_night(&cx->runs, a, NULL, 1, s);
      predicted = 1;
    }
    if (s->n == 0)
      continue;
    e = calloc(1, sizeof(*e));
    if (e == NULL) {
      rc = tn_errf(err, TN_ETOOL, "out of memory");
      break;
    }
    e->arch = a;
    e->predicted = predicted;
    rc = choose(s, e, err);
    cx->arch_entry[i] = e;
    cx->n_arch++;
  }
  /* device entries: every device name measured, by architecture */
  for (i = 0; i < cx->runs.n && rc == 0; i++) {
    const mg_run *r = cx->runs.r[i];
    mg_entry *e;
    int seen = 0;
    if (r->predicted || r->best < 0 || r->interrupted)
      continue;
    for (j = 0; j < cx->n_dev; j++)
      if (strcmp(cx->dev_entry[j]->device_name, r->device) == 0 &&
          cx->dev_entry[j]->arch == r->arch)
        seen = 1;
    if (seen)
      continue;
    if (cx->n_dev == MG_MAX_DEVICES)
      break; /* the rest look up by architecture */
    e = calloc(1, sizeof(*e));
    if (e == NULL) {
      rc = tn_errf(err, TN_ETOOL, "out of memory");
      break;
    }
    e->arch = r->arch;
    tn_strlcpy(e->device_name, r->device, sizeof(e->device_name));
    latest_night(&cx->runs, r->arch, r->device, 0, s);
    rc = choose(s, e, err);
    cx->dev_entry[cx->n_dev++] = e;
  }
  free(s->r);
  free(s->w);
  if (rc == 0 && cx->n_arch == 0)
    return tn_errf(err, TN_EINPUT,
                   "nothing to merge: no results file has a winner (every "
                   "run failed, or was interrupted)");
  return rc;
}

static int cmp_dev(const void *a, const void *b)
{
  const mg_entry *x = *(const mg_entry *const *)a;
  const mg_entry *y = *(const mg_entry *const *)b;
  int ax = x->arch->major * 100 + x->arch->minor;
  int ay = y->arch->major * 100 + y->arch->minor;
  if (ax != ay)
    return ay - ax;
  return strcmp(x->device_name, y->device_name);
}

static void print_table(const mg_ctx *cx, FILE *o)
{
  int i, measured = 0, predicted = 0;
  for (i = 0; i < n_archs(); i++) {
    const mg_entry *e = cx->arch_entry[i], *r = resolve(cx, i);
    if (e) {
      measured += !e->predicted;
      predicted += e->predicted;
      fprintf(o, "%-7s %-9s %-20s %s\n        %s\n        %s\n",
              e->arch->name, e->predicted ? "predicted" : "measured",
              e->date, e->predicted ? "" : e->devices, e->text, e->why);
    } else if (r) {
      fprintf(o, "%-7s -> %s\n", tn_arch_at(i)->name, r->arch->name);
    } else {
      fprintf(o, "%-7s -> default\n", tn_arch_at(i)->name);
    }
  }
  for (i = 0; i < cx->n_dev; i++) {
    const mg_entry *e = cx->dev_entry[i];
    fprintf(o, "device  %s (%s) %s\n        %s\n", e->device_name,
            e->arch->name, e->date, e->text);
  }
  fprintf(o, "default %s\n        %s\n", cx->deflt.text, cx->deflt.why);
  fprintf(o, "%d results (%d given, %d from the history): %d architectures "
             "measured, %d predicted, %d devices\n",
          cx->runs.n, cx->n_inputs, cx->runs.n - cx->n_inputs, measured,
          predicted, cx->n_dev);
}

static int write_all(mg_ctx *cx, tn_err *err)
{
  char path[4400], dir[4400], *text = NULL;
  int i, rc;

  /* the history first: a night is kept even if a header cannot be written */
  if (cx->opts.history) {
    for (i = 0; i < cx->n_inputs; i++) {
      rc = history_copy(cx, cx->runs.r[i], err);
      if (rc != 0)
        return rc;
    }
  }
  for (i = 0; i < n_archs(); i++) {
    const mg_entry *e = cx->arch_entry[i];
    tn_merge_header h;
    if (e == NULL)
      continue;
    memset(&h, 0, sizeof(h));
    h.family = cx->family;
    h.name = cx->name;
    h.arch = e->arch->name;
    h.predicted = e->predicted;
    h.devices = e->devices;
    h.date = e->date;
    h.why = e->why;
    h.origin = e->origin;
    h.params = &e->params;
    rc = tn_merge_arch_header_text(&h, &text, err);
    if (rc != 0)
      return rc;
    rc = pathf(dir, sizeof(dir), err, "%s/%s", cx->opts.output,
               e->arch->name);
    if (rc == 0)
      rc = pathf(path, sizeof(path), err, "%s/%s.h", dir, cx->name);
    if (rc == 0)
      rc = tn_mkdirs(dir, err);
    if (rc == 0)
      rc = tn_write_file_atomic(path, text, strlen(text), err);
    free(text);
    if (rc)
      return rc;
    if (!cx->opts.quiet)
      fprintf(stderr, "tuner merge: %s\n", path);
  }
  rc = dispatch_text(cx, &text, err);
  if (rc != 0)
    return rc;
  rc = pathf(path, sizeof(path), err, "%s/%s_dispatch.h", cx->opts.output,
             cx->name);
  if (rc == 0)
    rc = tn_write_file_atomic(path, text, strlen(text), err);
  free(text);
  if (rc == 0 && !cx->opts.quiet)
    fprintf(stderr, "tuner merge: %s\n", path);
  return rc;
}

int tn_merge_main(int argc, char **argv)
{
  static const struct option longopts[] = {
      {"output", required_argument, NULL, 'o'},
      {"name", required_argument, NULL, 'N'},
      {"history", required_argument, NULL, 'H'},
      {"fail-on-regression", no_argument, NULL, 'F'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  mg_ctx *cx = calloc(1, sizeof(*cx));
  tn_err err = {{0}};
  int c, i, rc = 0, status = TN_EXIT_OK;

  if (cx == NULL) {
    fprintf(stderr, "tuner merge: out of memory\n");
    return TN_EXIT_TOOL;
  }
  cx->opts.output = "results";
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:qhV", longopts, NULL)) != -1) {
    switch (c) {
    case 'o':
      cx->opts.output = optarg;
      break;
    case 'N':
      cx->opts.name = optarg;
      break;
    case 'H':
      cx->opts.history = optarg;
      break;
    case 'F':
      cx->opts.fail_on_regression = 1;
      break;
    case 'q':
      cx->opts.quiet = 1;
      break;
    case 'h':
      usage(stdout);
      free(cx);
      return TN_EXIT_OK;
    case 'V':
      printf("tuner %s\n", TN_VERSION);
      free(cx);
      return TN_EXIT_OK;
    default:
      fprintf(stderr, "Try 'tuner merge --help'.\n");
      free(cx);
      return TN_EXIT_INPUT;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "tuner merge: no results files; try 'tuner merge "
                    "--help'\n");
    free(cx);
    return TN_EXIT_INPUT;
  }
  if (strlen(cx->opts.output) > 3000 ||
      (cx->opts.history && strlen(cx->opts.history) > 3000)) {
    fprintf(stderr, "tuner merge: --output/--history: path too long\n");
    free(cx);
    return TN_EXIT_INPUT;
  }

  rc = load_all(cx, argc - optind, argv + optind, &err);
  if (rc == 0) {
    cx->family = cx->runs.r[0]->family;
    tn_strlcpy(cx->name, cx->opts.name ? cx->opts.name : cx->runs.r[0]->name,
               sizeof(cx->name));
    rc = name_idents(cx->name, cx->macro, cx->ident, sizeof(cx->macro),
                     &err);
  }
  if (rc == 0)
    rc = choose_all(cx, &err);
  if (rc == 0) {
    mg_run *any = cx->runs.r[0];
    qsort(cx->dev_entry, (size_t)cx->n_dev, sizeof(cx->dev_entry[0]),
          cmp_dev);
    choose_default(cx, any);
    for (i = 0; i < cx->runs.n; i++) {
      const mg_run *r = cx->runs.r[i];
      if (r->from_input && r->best < 0)
        fprintf(stderr, "tuner merge: note: %s has no winner: kept, not "
                        "used\n",
                r->path);
      else if (r->from_input && r->interrupted)
        fprintf(stderr, "tuner merge: note: %s was interrupted: kept, not "
                        "used\n",
                r->path);
    }
    rc = write_all(cx, &err);
  }
  if (rc == 0) {
    if (!cx->opts.quiet)
      print_table(cx, stdout);
    cx->regressions = regressions(cx, &err);
    if (cx->regressions < 0) {
      rc = cx->regressions;
    } else if (cx->regressions > 0 && cx->opts.fail_on_regression) {
      fprintf(stderr, "tuner merge: %d regressed configuration%s "
                      "(--fail-on-regression)\n",
              cx->regressions, cx->regressions > 1 ? "s" : "");
      status = TN_EXIT_REGRESSION;
    }
  }
  if (rc) {
    fprintf(stderr, "tuner merge: %s\n", err.msg);
    status = tn_exit_status(rc);
  }
  for (i = 0; i < cx->runs.n; i++)
    run_free(cx->runs.r[i]);
  free(cx->runs.r);
  for (i = 0; i < (int)(sizeof(cx->arch_entry) / sizeof(cx->arch_entry[0]));
       i++)
    free(cx->arch_entry[i]);
  for (i = 0; i < cx->n_dev; i++)
    free(cx->dev_entry[i]);
  free(cx);
  return status;
}

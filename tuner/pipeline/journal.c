/* journal.c -- a run's journal: JSON lines appended and flushed as each
 * result is known, and read back by --resume (journal.h). */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/baselines.h"
#include "pipeline/journal_check.h"
#include "pipeline/results_drift.h"

static int timing_from_json(json_t *o, tn_timing *t)
{
  memset(t, 0, sizeof(*t));
  /* blocks: only where the launch fitted the grid (journal_check.c) */
  return json_unpack(o, "{s:F, s:F, s:F, s:F, s:F, s:i, s?:i}", "median_ms",
                     &t->median_ms, "min_ms", &t->min_ms, "max_ms", &t->max_ms,
                     "q1_ms", &t->q1_ms, "q3_ms", &t->q3_ms, "repetitions",
                     &t->repetitions, "blocks", &t->blocks);
}

int tn_journal_append(FILE *journal, const char *kind, json_t *obj,
                      tn_err *err)
{
  char *line;
  int rc = 0;
  json_object_set_new(obj, "kind", json_string(kind));
  line = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(17));
  json_decref(obj);
  if (line == NULL)
    return tn_errf(err, TN_ETOOL, "serialising a journal line failed");
  errno = 0;
  if (fprintf(journal, "%s\n", line) < 0 || fflush(journal) != 0 ||
      fsync(fileno(journal)) != 0)
    rc = tn_errf(err, TN_ETOOL, "writing the journal failed: %s",
                 errno ? strerror(errno) : "an I/O error");
  free(line);
  return rc;
}

/* o's "timed_at_ms" and "clocks" (checked by journal_check.c; absent in
 * journals before them: 0). */
static int restore_drift(json_t *o, double *timed_at, tn_clocks *clocks)
{
  json_t *at = json_object_get(o, "timed_at_ms");
  json_t *c = json_object_get(o, "clocks");
  char why[160];
  *timed_at = json_is_integer(at) ? json_integer_value(at) / 1000.0 : 0.0;
  memset(clocks, 0, sizeof(*clocks));
  return c ? tn_results_clocks_parse(c, clocks, why, sizeof(why)) : 0;
}

static int restore_candidate(tn_run *run, json_t *o)
{
  const tn_family *f = run->job->family;
  const char *text = NULL, *status = NULL, *reason = "";
  json_t *timings = NULL;
  json_int_t id = -1;
  tn_candidate *c;
  char mine[512];
  int st, raced = 0, k;
  double timed_at;
  tn_clocks clocks;

  if (json_unpack(o, "{s:I, s:s, s:s, s?s, s?o, s?b}", "id", &id,
                  "params_text", &text, "status", &status, "reason",
                  &reason, "timings", &timings, "raced_out", &raced) != 0 ||
      id < 0 || id >= run->space.n ||
      restore_drift(o, &timed_at, &clocks) != 0)
    return -1;
  st = tn_status_parse(status);
  if (st != TN_ST_OK && st != TN_ST_WRONG && st != TN_ST_FAILED)
    return 0; /* only finished measurements are worth keeping */
  /* by its id (the check tied it to its parameters): a journal of 500
   * lines on a space of 100,000 points is no search */
  c = &run->space.c[id];
  tn_params_format(f->params, f->n_params, &c->params, mine, sizeof(mine));
  if (strcmp(mine, text) != 0)
    return -1;
  /* pruned in this run, or compiled already and failed: keep that (one
   * still compiling keeps the measurement: compile.c's apply) */
  if (c->status != TN_ST_COMPILED && c->status != TN_ST_PENDING)
    return 0;
  if (st == TN_ST_OK) {
    if (!json_is_array(timings) ||
        (int)json_array_size(timings) != run->job->n_problems)
      return -1;
    c->total_ms = 0;
    for (k = 0; k < run->job->n_problems; k++) {
      if (timing_from_json(json_array_get(timings, (size_t)k),
                           &c->timing[k]) != 0)
        return -1;
      c->total_ms += c->timing[k].median_ms;
    }
    c->raced_out = raced;
    c->timed_at = timed_at;
    c->clocks = clocks;
  }
  c->status = (tn_status)st;
  tn_candidate_set_reason(c, "%s", reason);
  return 1;
}

/* A finished measurement of a baseline: appended in the order of its
 * "measurement" (0 in journals before it); one already restored (the
 * same line again, journal_check.c made sure) is skipped. */
static int restore_baseline(tn_run *run, json_t *o)
{
  const char *name = NULL, *status = NULL;
  json_t *timings = NULL;
  json_int_t j = 0, after = 0;
  tn_baseline_measure m;
  int i, k;
  if (json_unpack(o, "{s:s, s:s, s?o, s?I, s?I}", "name", &name, "status",
                  &status, "timings", &timings, "measurement", &j, "after",
                  &after) != 0)
    return -1;
  if (tn_status_parse(status) != TN_ST_OK)
    return 0;
  for (i = 0; i < run->n_baselines; i++) {
    tn_baseline_result *b = &run->baselines[i];
    if (strcmp(b->name, name) != 0)
      continue;
    if (j < b->n_meas)
      return 0;
    if (j > b->n_meas || !json_is_array(timings) ||
        (int)json_array_size(timings) != run->job->n_problems)
      return -1;
    memset(&m, 0, sizeof(m));
    for (k = 0; k < run->job->n_problems; k++) {
      if (timing_from_json(json_array_get(timings, (size_t)k),
                           &m.timing[k]) != 0)
        return -1;
      m.total_ms += m.timing[k].median_ms;
    }
    if (restore_drift(o, &m.timed_at, &m.clocks) != 0)
      return -1;
    m.after = after > 0 && after < 2147483647 ? (int)after : 0;
    if (tn_baselines_add(b, &m) != 0)
      return -1;
    b->status = TN_ST_OK;
    b->reason[0] = '\0';
    return j == 0; /* a baseline restored counts once, as before */
  }
  return 0;
}

int tn_journal_resume(const char *path, tn_run *run, tn_err *err)
{
  FILE *f = fopen(path, "r");
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int lineno = 0, restored = 0, checked;

  if (f == NULL)
    return tn_errf(err, TN_EINPUT, "%s: cannot open the journal to resume",
                   path);
  /* the whole journal checked first: nothing of a bad one is kept */
  checked = tn_journal_check(path, run->job, &run->space, err);
  if (checked != 0) {
    fclose(f);
    return checked;
  }
  while ((len = getline(&line, &cap, f)) >= 0) {
    json_error_t jerr;
    json_t *o;
    const char *kind = NULL;
    int rc;
    lineno++;
    if (len == 0 || line[len - 1] != '\n') {
      /* the last line of a run killed while writing it: not finished */
      break;
    }
    o = json_loads(line, 0, &jerr);
    if (o == NULL || json_unpack(o, "{s:s}", "kind", &kind) != 0) {
      json_decref(o);
      fclose(f);
      free(line);
      return tn_errf(err, TN_EINPUT, "%s:%d: not a journal line: %s", path,
                     lineno, o ? "no \"kind\"" : jerr.text);
    }
    if (strcmp(kind, "run") == 0) {
      const char *family = NULL, *name = NULL;
      json_int_t seed = 0;
      if (json_unpack(o, "{s:s, s:s, s:I}", "family", &family, "name", &name,
                      "seed", &seed) != 0 ||
          strcmp(family, run->job->family->name) != 0) {
        /* the message before o (which owns family) is gone */
        rc = tn_errf(err, TN_EINPUT,
                     "%s:%d: this journal is of another job (family %s, "
                     "not %s)",
                     path, lineno, family ? family : "?",
                     run->job->family->name);
        json_decref(o);
        fclose(f);
        free(line);
        return rc;
      }
      run->seed = (unsigned long long)seed;
      rc = 0;
    } else if (strcmp(kind, "candidate") == 0) {
      rc = restore_candidate(run, o);
    } else if (strcmp(kind, "baseline") == 0) {
      rc = restore_baseline(run, o);
    } else {
      rc = 0;
    }
    if (rc < 0) {
      /* the message before o (which owns kind) is gone */
      rc = tn_errf(err, TN_EINPUT, "%s:%d: a %s entry is malformed", path,
                   lineno, kind);
      json_decref(o);
      fclose(f);
      free(line);
      return rc;
    }
    json_decref(o);
    restored += rc;
  }
  fclose(f);
  free(line);
  return restored;
}

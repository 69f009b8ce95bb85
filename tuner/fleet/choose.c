/* choose.c -- the merge's rules: which configuration each architecture
 * and device gets (the latest night, measurements before predictions,
 * the weighted geometric mean where devices disagree) and the portable
 * default.  The rules are in merge.h and docs/fleet.md. */
#include "fleet/fleet.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/select.h"

/* The architectures entries are kept for, oldest first (tn_arch_at). */
int tn_fleet_n_archs(void)
{
  return tn_arch_count() < MG_MAX_ARCHS ? tn_arch_count() : MG_MAX_ARCHS;
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

/* A run's numbers at size k, or over all sizes (k < 0). */
static double ms_at(const mg_cand *c, int k)
{
  return k < 0 ? c->ms : c->ms_at[k];
}

static double fastest_at(const mg_run *r, int k)
{
  return k < 0 ? r->fastest : r->fastest_at[k];
}


static int best_at(const mg_run *r, int k)
{
  return k < 0 ? r->best : r->best_at[k];
}

/* A run's own winner at size k into params and text. */
static int own_winner(const mg_run *r, int k, tn_params *params, char *text,
                      size_t tn, tn_err *err)
{
  const mg_cand *c = &r->cands[best_at(r, k)];
  char where[64];
  tn_strlcpy(text, c->text, tn);
  if (k < 0) {
    *params = r->best_params;
    return 0;
  }
  snprintf(where, sizeof(where), "best_by_size[%d].params", k);
  return tn_fleet_parse_params(r, c->params, where, params, err);
}

/* The choice among the runs of s (weights w, wsum over n_dev device
 * models) at size k, or over all sizes (k < 0), by the rules of merge.h:
 * one run (or a prediction): its own winner; several: the best weighted
 * geometric mean of each run's fastest over the configuration's time
 * there. */
static int choose_at(const mg_set *s, int k, double wsum, int n_dev,
                     tn_params *params, char *text, size_t tn, char *why,
                     size_t wn, tn_err *err)
{
  const mg_run *last = latest_of(s);
  const double *w = s->w;
  double best_score = -1;
  const mg_cand *win = NULL;
  int i, j, best_votes = 0;

  if (s->n == 1 || last->predicted) {
    if (last->predicted)
      snprintf(why, wn,
               "predicted by the model for %s (no measurement of it)",
               last->arch->name);
    else
      snprintf(why, wn,
               "the winner of the one run of the latest night (host %s, "
               "GPU %d)",
               last->host, last->ordinal);
    return own_winner(last, k, params, text, tn, err);
  }
  for (i = 0; i < last->n_cands; i++) {
    const mg_cand *c = &last->cands[i];
    double logsum = 0, score;
    int all = 1, votes = 0;
    if (!c->ok)
      continue;
    for (j = 0; j < s->n && all; j++) {
      const mg_run *r = s->r[j];
      const mg_cand *o = tn_fleet_find_cand(r, c->text);
      if (o == NULL) {
        all = 0;
        break;
      }
      logsum += w[j] * log(fastest_at(r, k) / ms_at(o, k));
      if (strcmp(r->cands[best_at(r, k)].text, c->text) == 0)
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
    snprintf(why, wn,
             "no configuration was measured by all %d runs of the latest "
             "night: the winner of the latest run (%s)",
             s->n, last->device);
    return own_winner(last, k, params, text, tn, err);
  }
  {
    char where[64];
    double pct = 0;
    int have_pct = 1;
    snprintf(where, sizeof(where), "candidates[%d].params", win->idx);
    if (tn_fleet_parse_params(last, win->params, where, params, err) != 0)
      return TN_EINPUT;
    tn_strlcpy(text, win->text, tn);
    for (i = 0; i < s->n; i++) {
      const mg_cand *o = tn_fleet_find_cand(s->r[i], win->text);
      /* each against its own run's baseline timed nearest to it */
      if (!(tn_fleet_baseline_of(s->r[i], o, k) > 0))
        have_pct = 0;
      else
        pct += w[i] * log(100.0 * tn_fleet_baseline_of(s->r[i], o, k) /
                          ms_at(o, k));
    }
    if (have_pct)
      snprintf(why, wn,
               "best geometric mean over %d runs on %d device models of "
               "the latest night: %.3f of each run's fastest, %.1f%% of "
               "baseline",
               s->n, n_dev, best_score, exp(pct / wsum));
    else
      snprintf(why, wn,
               "best geometric mean over %d runs on %d device models of "
               "the latest night: %.3f of each run's fastest",
               s->n, n_dev, best_score);
  }
  return 0;
}

/* The selection's noise (tn_select_noise, pipeline/select.c) with c as
 * the reference, in run r at size k (-1: over all sizes): the larger of
 * the floor and c's relative interquartile range.  The floor is the run's
 * own selection margin there, at least its min_noise (which a results
 * file does not hold). */
static double rule_noise(const mg_run *r, const mg_cand *c, int k)
{
  tn_timing t[TN_MAX_SIZES];
  int j;
  memset(t, 0, sizeof(t));
  for (j = 0; j < r->n_problems && j < TN_MAX_SIZES; j++) {
    t[j].median_ms = c->ms_at[j];
    t[j].q3_ms = c->spread_at[j] * c->ms_at[j];
    t[j].repetitions = 1;
  }
  return tn_select_noise_of(t, j, k, k < 0 ? r->noise : r->noise_at[k]);
}

/* Appends to why (room wn). */
static void why_add(char *why, size_t wn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void why_add(char *why, size_t wn, const char *fmt, ...)
{
  size_t used = strlen(why);
  va_list ap;
  if (used + 1 >= wn)
    return;
  va_start(ap, fmt);
  vsnprintf(why + used, wn - used, fmt, ap);
  va_end(ap);
}

/* Headers that stay put: the winner just chosen for the row (arch,
 * device, size k) replaces the one recorded for the previous night only
 * when it beats it beyond noise, both measured on this night: the
 * weighted geometric mean over the night's runs (choose_at's weights) of
 * the old one's time over the new one's, less 1, is the margin; the
 * noise is the selection's rule with the new one as the reference, the
 * largest over the runs.  A near tie keeps the old winner (params, text
 * and why); the old one not measured by every run lets the new one in.
 * st records it for the history.  0 or TN_EINPUT. */
static int stay(const mg_ctx *cx, const mg_set *s, int k, double wsum,
                const mg_entry *e, tn_params *params, char *text, size_t tn,
                char *why, size_t wn, mg_stay *st, tn_err *err)
{
  const mg_run *last = latest_of(s);
  const mg_cand *o = NULL;
  const char *old;
  double logr = 0, noise = 0;
  char where[64], now[512];
  int j;

  memset(st, 0, sizeof(*st));
  if (last->predicted)
    return 0; /* nothing measured to compare */
  old = tn_fleet_winner_before(cx, e->arch, e->device_name, k, last->t);
  if (old == NULL)
    return 0;
  tn_strlcpy(st->prev, old, sizeof(st->prev));
  if (strcmp(old, text) == 0)
    return 0;
  for (j = 0; j < s->n; j++) {
    const mg_cand *n = tn_fleet_find_cand(s->r[j], text);
    double nz;
    o = tn_fleet_find_cand(s->r[j], old);
    if (n == NULL || o == NULL)
      break;
    logr += s->w[j] * log(ms_at(o, k) / ms_at(n, k));
    nz = rule_noise(s->r[j], n, k);
    noise = nz > noise ? nz : noise;
  }
  st->switched = 1;
  if (j < s->n) {
    why_add(why, wn, "; the previous winner (%s) was not measured by every "
                     "run of the night",
            old);
    return 0;
  }
  st->compared = 1;
  st->margin = exp(logr / wsum) - 1;
  st->noise = noise;
  if (st->margin > noise) {
    why_add(why, wn, "; it beats the previous winner (%s) by %.1f%%, beyond "
                     "the noise (%.1f%%)",
            old, 100.0 * st->margin, 100.0 * noise);
    return 0;
  }
  /* a near tie: the old one stays */
  st->switched = 0;
  o = tn_fleet_find_cand(last, old);
  snprintf(where, sizeof(where), "candidates[%d].params", o->idx);
  if (tn_fleet_parse_params(last, o->params, where, params, err) != 0)
    return TN_EINPUT;
  tn_strlcpy(now, text, sizeof(now));
  tn_strlcpy(text, old, tn);
  why[0] = '\0';
  why_add(why, wn, "the previous night's winner, kept: the latest night's "
                   "best (%s) beats it by only %.1f%%, within the noise "
                   "(%.1f%%)",
          now, 100.0 * st->margin, 100.0 * noise);
  return 0;
}

/* Fills e with the choice among the runs of s (see merge.h): over all
 * sizes, and size by size (the runs tuned the same problems); with cx,
 * each row stays the previous night's winner on a near tie (stay). */
static int choose(const mg_ctx *cx, const mg_set *s, mg_entry *e,
                  tn_err *err)
{
  const mg_run *last = latest_of(s);
  double *w = s->w, wsum = 0;
  int i, j, k, n_dev = 0, rc;

  join_devices(s, e->devices, sizeof(e->devices));
  tn_strlcpy(e->date, last->started, sizeof(e->date));
  /* the file name only: a shipped header need not show a cluster's paths */
  tn_strlcpy(e->origin,
             strrchr(last->path, '/') ? strrchr(last->path, '/') + 1
                                      : last->path,
             sizeof(e->origin));
  /* each device model weighs the same, whatever its number of runs */
  for (i = 0; i < s->n; i++) {
    int same = 0, first = 1;
    for (j = 0; j < s->n; j++)
      if (s->r[i]->device && s->r[j]->device &&
          strcmp(s->r[i]->device, s->r[j]->device) == 0) {
        same++;
        if (j < i)
          first = 0;
      }
    w[i] = same > 0 ? 1.0 / same : 1.0;
    wsum += w[i];
    n_dev += first;
  }
  e->night = last->t;
  rc = choose_at(s, -1, wsum, n_dev, &e->params, e->text, sizeof(e->text),
                 e->why, sizeof(e->why), err);
  if (rc == 0 && cx != NULL)
    rc = stay(cx, s, -1, wsum, e, &e->params, e->text, sizeof(e->text),
              e->why, sizeof(e->why), &e->stay, err);
  e->n_sizes = last->n_problems;
  for (k = 0; k < e->n_sizes && rc == 0; k++) {
    mg_size_entry *z = &e->size[k];
    rc = choose_at(s, k, wsum, n_dev, &z->params, z->text, sizeof(z->text),
                   z->why, sizeof(z->why), err);
    if (rc == 0 && cx != NULL)
      rc = stay(cx, s, k, wsum, e, &z->params, z->text, sizeof(z->text),
                z->why, sizeof(z->why), &z->stay, err);
  }
  return rc;
}

/* 1 if a launch of p fits arch's limits (threads, shared memory) and runs
 * there at all (min_cc: the space's rule, pipeline/space.c). */
static int fits(const tn_family *f, const tn_params *p,
                const tn_problem *prob, const tn_arch *arch)
{
  tn_launch l;
  f->launch(f, p, prob, &l);
  return l.min_cc <= 10 * arch->major + arch->minor &&
         (!l.arch_features ||
          (arch->features && l.min_cc == 10 * arch->major + arch->minor)) &&
         l.threads <= arch->max_threads_per_block &&
         l.smem_static <= arch->smem_static_max &&
         tn_launch_smem(&l) <= arch->smem_per_block;
}

/* The portable default: the family's default parameters when they are a
 * valid point that fits the oldest known architecture; else the oldest
 * entry that fits it; else the oldest entry, said so. */
void tn_fleet_choose_default(mg_ctx *cx, const mg_run *any)
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
  if (f->prepare(f, &d->params, &any->problem, why, sizeof(why)) == 0 &&
      fits(f, &d->params, &any->problem, oldest)) {
    tn_params_format(f->params, f->n_params, &d->params, d->text,
                     sizeof(d->text));
    snprintf(d->why, sizeof(d->why),
             "the %s family's default parameters (they fit %s, the oldest "
             "architecture known)",
             f->name, oldest->name);
    return;
  }
  for (i = 0; i < tn_fleet_n_archs(); i++) {
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
  for (i = 0; i < tn_fleet_n_archs(); i++) {
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

/* The newest architecture entry not newer than arch, or NULL. */
const mg_entry *tn_fleet_resolve(const mg_ctx *cx, int arch_index)
{
  int i;
  for (i = arch_index; i >= 0; i--)
    if (cx->arch_entry[i])
      return cx->arch_entry[i];
  return NULL;
}

int tn_fleet_choose_arch(const mg_runs *rs, const tn_arch *a, mg_entry **out,
                         tn_err *err)
{
  mg_set set, *s = &set;
  mg_entry *e;
  int rc, predicted = 0;

  *out = NULL;
  s->n = 0;
  s->r = calloc((size_t)rs->n + 1, sizeof(*s->r));
  s->w = calloc((size_t)rs->n + 1, sizeof(*s->w));
  e = calloc(1, sizeof(*e));
  if (s->r == NULL || s->w == NULL || e == NULL) {
    free(s->r);
    free(s->w);
    free(e);
    return tn_errf(err, TN_ETOOL, "out of memory");
  }
  latest_night(rs, a, NULL, 0, s);
  if (s->n == 0) {
    latest_night(rs, a, NULL, 1, s);
    predicted = 1;
  }
  if (s->n == 0) {
    free(e);
    rc = 0;
  } else {
    e->arch = a;
    e->predicted = predicted;
    rc = choose(NULL, s, e, err);
    *out = e;
  }
  free(s->r);
  free(s->w);
  return rc;
}

int tn_fleet_choose_all(mg_ctx *cx, tn_err *err)
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
  for (i = 0; i < tn_fleet_n_archs() && rc == 0; i++) {
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
    rc = choose(cx, s, e, err);
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
    rc = choose(cx, s, e, err);
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


/* history.c -- the merge's memory: every input kept under
 * DIR/<date>/<arch>/<device>/, and each GPU's configurations compared
 * with its previous night (slower beyond noise: a regression). */
#include "fleet/fleet.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- history ---- */

int tn_fleet_pathf(char *out, size_t n, tn_err *err, const char *fmt, ...)
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
int tn_fleet_history_copy(const mg_ctx *cx, const mg_run *r, tn_err *err)
{
  char dev[256], dir[4096], path[4400], *old = NULL;
  const char *base = strrchr(r->path, '/');
  size_t olen = 0;
  tn_err ignore = {{0}};
  int rc;

  base = base ? base + 1 : r->path;
  tn_strlcpy(dev, r->predicted ? "predicted" : r->device, sizeof(dev));
  tn_sanitize_name(dev);
  rc = tn_fleet_pathf(dir, sizeof(dir), err, "%s/%s/%s/%s",
                      cx->opts.history, r->day, r->arch->name, dev);
  if (rc == 0)
    rc = tn_mkdirs(dir, err);
  if (rc == 0)
    rc = tn_fleet_pathf(path, sizeof(path), err, "%s/%s", dir, base);
  if (rc != 0)
    return rc;
  if (tn_read_file(path, &old, &olen, &ignore) == 0) {
    int same = olen == r->raw_len && memcmp(old, r->raw, olen) == 0;
    free(old);
    if (same)
      return 0;
    rc = tn_fleet_pathf(path, sizeof(path), err, "%s/%.*s-%.8s.json", dir,
               (int)(tn_fleet_ends_with(base, ".json") ? strlen(base) - 5
                                              : strlen(base)),
               base, r->hash);
    if (rc)
      return rc;
  }
  return tn_write_file_atomic(path, r->raw, r->raw_len, err);
}

/* ---- regressions ---- */

int tn_fleet_same_gpu(const mg_run *a, const mg_run *b)
{
  return !a->predicted && !b->predicted && a->ordinal == b->ordinal &&
         strcmp(a->host, b->host) == 0 && strcmp(a->device, b->device) == 0;
}

const mg_run *tn_fleet_previous_night(const mg_runs *rs, const mg_run *now)
{
  const mg_run *before = NULL;
  int j;
  for (j = 0; j < rs->n; j++) {
    const mg_run *r = rs->r[j];
    if (r != now && tn_fleet_same_gpu(r, now) && !r->interrupted &&
        r->t <= now->t - TN_MERGE_NIGHT_S &&
        (before == NULL || r->t > before->t))
      before = r;
  }
  return before;
}

int tn_fleet_slower(const mg_run *now, const mg_run *before,
                    const mg_cand *c, const mg_cand **p, double *noise)
{
  double nz = now->noise > before->noise ? now->noise : before->noise;
  const mg_cand *q;
  if (!c->ok)
    return 0;
  q = tn_fleet_find_cand(before, c->text);
  if (q == NULL)
    return 0;
  if (c->spread > nz)
    nz = c->spread;
  if (q->spread > nz)
    nz = q->spread;
  *p = q;
  *noise = nz;
  return c->ms > q->ms * (1.0 + nz);
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
int tn_fleet_regressions(mg_ctx *cx, tn_err *err)
{
  int i, total = 0;
  for (i = 0; i < cx->runs.n; i++) {
    const mg_run *now = cx->runs.r[i], *before = NULL;
    mg_slower *sl;
    int n = 0, k;
    if (!now->from_input || now->predicted || now->interrupted)
      continue;
    before = tn_fleet_previous_night(&cx->runs, now);
    if (before == NULL)
      continue;
    sl = calloc((size_t)now->n_cands + 1, sizeof(*sl));
    if (sl == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory");
    for (k = 0; k < now->n_cands; k++) {
      const mg_cand *c = &now->cands[k], *p;
      double noise;
      if (tn_fleet_slower(now, before, c, &p, &noise)) {
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


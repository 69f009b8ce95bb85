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

/* name (from a file: a device, a file name) as one component of a path
 * in the history: letters, digits, '-', '_' and '.' kept, anything else
 * (a '/', a control character) '_', and a leading '.' '_' too: "." and
 * ".." would leave their folder, and the history's scan skips names that
 * start with a dot.  At most n - 1 bytes (n <= 256: a file name's
 * limit). */
static void component(char *out, size_t n, const char *name)
{
  tn_strlcpy(out, name, n);
  tn_sanitize_name(out);
  if (out[0] == '.')
    out[0] = '_';
}

int tn_fleet_history_dir(const mg_ctx *cx, const mg_run *r, char *dir,
                         size_t n, tn_err *err)
{
  char dev[256];
  component(dev, sizeof(dev), r->predicted ? "predicted" : r->device);
  return tn_fleet_pathf(dir, n, err, "%s/%s/%s/%s", cx->opts.history, r->day,
                        r->arch->name, dev);
}

int tn_fleet_history_name(const mg_run *r, char *out, size_t n)
{
  const char *base = strrchr(r->path, '/');
  char name[256];
  size_t len;
  component(name, sizeof(name), base ? base + 1 : r->path);
  /* room for "-<8 hex digits>.json" when the name is taken */
  len = strlen(name);
  if (tn_fleet_ends_with(name, ".json"))
    len -= 5;
  if (len > 200)
    len = 200;
  return snprintf(out, n, "%.*s.json", (int)len, name) >= (int)n ? -1 : 0;
}

/* DIR/<day>/<arch>/<device>/<file name>, or the same with the content
 * hash when a different file already has that name. */
int tn_fleet_history_copy(const mg_ctx *cx, const mg_run *r, tn_err *err)
{
  char dir[4096], path[4400], base[256], *old = NULL;
  size_t olen = 0;
  tn_err ignore = {{0}};
  int rc;

  tn_fleet_history_name(r, base, sizeof(base));
  rc = tn_fleet_history_dir(cx, r, dir, sizeof(dir), err);
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

int tn_fleet_slower_at(const mg_run *now, const mg_run *before,
                       const mg_cand *c, int k, const mg_cand **p,
                       double *noise)
{
  double nz = now->noise_at[k] > before->noise_at[k] ? now->noise_at[k]
                                                     : before->noise_at[k];
  const mg_cand *q;
  if (!c->ok || k >= before->n_problems)
    return 0;
  q = tn_fleet_find_cand(before, c->text);
  if (q == NULL)
    return 0;
  if (c->spread_at[k] > nz)
    nz = c->spread_at[k];
  if (q->spread_at[k] > nz)
    nz = q->spread_at[k];
  *p = q;
  *noise = nz;
  return c->ms_at[k] > q->ms_at[k] * (1.0 + nz);
}

int tn_fleet_slower(const mg_run *now, const mg_run *before,
                    const mg_cand *c, const mg_cand **p, double *noise)
{
  int k;
  for (k = 0; k < now->n_problems; k++)
    if (tn_fleet_slower_at(now, before, c, k, p, noise))
      return 1;
  return 0;
}

typedef struct {
  const mg_cand *now, *before;
  int size;
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
    sl = calloc((size_t)now->n_cands * (size_t)now->n_problems + 1,
                sizeof(*sl));
    if (sl == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory");
    /* size by size: a configuration slower at one size is reported there
     * (with one size, this is the total) */
    for (k = 0; k < now->n_cands; k++) {
      const mg_cand *c = &now->cands[k], *p;
      double noise;
      int z;
      for (z = 0; z < now->n_problems; z++)
        if (tn_fleet_slower_at(now, before, c, z, &p, &noise)) {
          sl[n].now = c;
          sl[n].before = p;
          sl[n].size = z;
          sl[n].ratio = c->ms_at[z] / p->ms_at[z];
          sl[n].noise = noise;
          n++;
        }
    }
    if (n > 0) {
      qsort(sl, (size_t)n, sizeof(*sl), cmp_slower);
      if (now->n_problems > 1)
        fprintf(stderr,
                "tuner merge: REGRESSION: %d configuration%s and size%s "
                "slower beyond noise on %s (%s, host %s, GPU %d): %s "
                "against %s\n",
                n, n > 1 ? "s" : "", n > 1 ? "s" : "", now->device,
                now->arch->name, now->host, now->ordinal, now->started,
                before->started);
      else
        fprintf(stderr,
                "tuner merge: REGRESSION: %d configuration%s slower beyond "
                "noise on %s (%s, host %s, GPU %d): %s against %s\n",
                n, n > 1 ? "s" : "", now->device, now->arch->name,
                now->host, now->ordinal, now->started, before->started);
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
      for (k = 0; k < n && k < 20; k++) {
        int z = sl[k].size;
        if (now->n_problems > 1) {
          const tn_size *sz = &now->problem_list[z].size;
          int d;
          fprintf(stderr, "  at ");
          for (d = 0; d < sz->n_dims; d++)
            fprintf(stderr, "%s%lld", d ? "x" : "", sz->dims[d]);
          fprintf(stderr, ":");
        }
        fprintf(stderr, "  %s: %.4f -> %.4f ms (%+.1f%%, noise %.1f%%)\n",
                sl[k].now->text, sl[k].before->ms_at[z],
                sl[k].now->ms_at[z], 100.0 * (sl[k].ratio - 1),
                100.0 * sl[k].noise);
      }
      if (n > 20)
        fprintf(stderr, "  ... and %d more\n", n - 20);
    }
    total += n;
    free(sl);
  }
  return total;
}


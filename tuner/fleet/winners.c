/* winners.c -- headers that stay put: every row's winner of a merge
 * (each architecture's and device's entry, its single best and each
 * size) recorded in the history as JSON lines, DIR/<name>.winners.jsonl,
 * so that the next night's merge knows the winner it would replace
 * (choose.c keeps it on a near tie) and the record shows every switch
 * with its margin:
 *
 *   {"night": "2026-11-29T03:40:00Z", "arch": "sm_80", "device": null,
 *    "size": -1, "params_text": "...", "previous": "..." or null,
 *    "switched": false, "compared": true, "margin": 0.004,
 *    "noise": 0.01, "merged": "2026-11-29T06:00:00Z"}
 *
 * The record lives in the history, which the merge trusts as a place,
 * but its lines are read as any file is: each checked, a bad one named
 * FILE:LINE. */
#define _POSIX_C_SOURCE 200809L
#include "fleet/fleet.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tn_fleet_winners_path(const mg_ctx *cx, char *out, size_t n,
                          tn_err *err)
{
  int w = snprintf(out, n, "%s/%s.winners.jsonl", cx->opts.history,
                   cx->name);
  if (w < 0 || (size_t)w >= n)
    return tn_errf(err, TN_ETOOL, "%s/%s.winners.jsonl: path too long",
                   cx->opts.history, cx->name);
  return 0;
}

/* One line of the record into w.  0, or -1 with why. */
static int parse_line(json_t *o, mg_winner *w, char *why, size_t n)
{
  json_t *arch = json_object_get(o, "arch"), *dev, *size, *night, *text;
  char twhy[128];
  memset(w, 0, sizeof(*w));
  if (!json_is_object(o)) {
    snprintf(why, n, "expected an object");
    return -1;
  }
  w->arch = json_is_string(arch) ? tn_arch_find(json_string_value(arch))
                                 : NULL;
  if (w->arch == NULL) {
    snprintf(why, n, "arch: expected a known architecture");
    return -1;
  }
  dev = json_object_get(o, "device");
  if (!json_is_null(dev) &&
      (!json_is_string(dev) ||
       tn_strlcpy(w->device, json_string_value(dev), sizeof(w->device)))) {
    snprintf(why, n, "device: expected null or a device name (at most %zu "
                     "bytes)",
             sizeof(w->device) - 1);
    return -1;
  }
  size = json_object_get(o, "size");
  if (!json_is_integer(size) || json_integer_value(size) < -1 ||
      json_integer_value(size) >= TN_MAX_SIZES) {
    snprintf(why, n, "size: expected -1 (the single best) or a size in "
                     "[0, %d]",
             TN_MAX_SIZES - 1);
    return -1;
  }
  w->size = (int)json_integer_value(size);
  night = json_object_get(o, "night");
  if (!json_is_string(night)) {
    snprintf(why, n, "night: expected a UTC time");
    return -1;
  }
  if (tn_fleet_parse_time(json_string_value(night), &w->night, NULL, twhy,
                          sizeof(twhy)) != 0) {
    snprintf(why, n, "night: not a UTC time like 2026-11-30T03:48:20Z: %s",
             twhy);
    return -1;
  }
  text = json_object_get(o, "params_text");
  if (!json_is_string(text) ||
      tn_strlcpy(w->text, json_string_value(text), sizeof(w->text))) {
    snprintf(why, n, "params_text: expected a parameter text (at most %zu "
                     "bytes)",
             sizeof(w->text) - 1);
    return -1;
  }
  return 0;
}

int tn_fleet_winners_read(mg_ctx *cx, tn_err *err)
{
  char path[4400], *data = NULL, *line, *next;
  size_t len = 0;
  struct stat st;
  int lineno = 0, cap = 0, rc;

  if (cx->opts.history == NULL)
    return 0;
  rc = tn_fleet_winners_path(cx, path, sizeof(path), err);
  if (rc != 0 || stat(path, &st) != 0)
    return rc; /* the first night with a record */
  rc = tn_read_file(path, &data, &len, err);
  if (rc != 0)
    return rc;
  if (strlen(data) != len) {
    free(data);
    return tn_errf(err, TN_EINPUT, "%s: not text (it holds a NUL byte)",
                   path);
  }
  for (line = data; rc == 0 && *line != '\0'; line = next) {
    json_error_t jerr;
    json_t *o;
    char why[256];
    next = strchr(line, '\n');
    if (next == NULL)
      break; /* a line cut short by a kill: written again tonight */
    *next++ = '\0';
    lineno++;
    o = json_loads(line, 0, &jerr);
    if (o == NULL) {
      rc = tn_errf(err, TN_EINPUT, "%s:%d: not JSON: %s", path, lineno,
                   jerr.text);
      break;
    }
    if (cx->n_prev == cap) {
      int ncap = cap ? cap * 2 : 64;
      mg_winner *np = realloc(cx->prev, sizeof(*np) * (size_t)ncap);
      if (np == NULL) {
        json_decref(o);
        rc = tn_errf(err, TN_ETOOL, "out of memory");
        break;
      }
      cx->prev = np;
      cap = ncap;
    }
    if (parse_line(o, &cx->prev[cx->n_prev], why, sizeof(why)) != 0)
      rc = tn_errf(err, TN_EINPUT, "%s:%d: %s", path, lineno, why);
    else
      cx->n_prev++;
    json_decref(o);
  }
  free(data);
  return rc;
}

/* The record's line of row (arch, device, k) at night, or NULL.  Among
 * lines of one night, the last written. */
static const mg_winner *find(const mg_ctx *cx, const tn_arch *arch,
                             const char *device, int k, long long night_max,
                             int exact)
{
  const mg_winner *best = NULL;
  int i;
  for (i = 0; i < cx->n_prev; i++) {
    const mg_winner *w = &cx->prev[i];
    if (w->arch != arch || w->size != k || strcmp(w->device, device) != 0 ||
        (exact ? w->night != night_max : w->night > night_max))
      continue;
    if (best == NULL || w->night >= best->night)
      best = w;
  }
  return best;
}

const char *tn_fleet_winner_before(const mg_ctx *cx, const tn_arch *arch,
                                   const char *device, int k,
                                   long long night)
{
  const mg_winner *w;
  if (cx == NULL)
    return NULL;
  w = find(cx, arch, device, k, night - TN_MERGE_NIGHT_S, 0);
  return w ? w->text : NULL;
}

/* The line of one row, or NULL when the record has it already. */
static json_t *row_line(const mg_ctx *cx, const mg_entry *e, int k,
                        const char *text, const mg_stay *st)
{
  const mg_winner *same = find(cx, e->arch, e->device_name, k, e->night, 1);
  json_t *o;
  if (same != NULL && strcmp(same->text, text) == 0)
    return NULL;
  o = json_pack("{s:s, s:s, s:o, s:i, s:s, s:o, s:b, s:b, s:s}", "night",
                e->date, "arch", e->arch->name, "device",
                e->device_name[0] ? json_string(e->device_name)
                                  : json_null(),
                "size", k, "params_text", text, "previous",
                st->prev[0] ? json_string(st->prev) : json_null(),
                "switched", st->switched, "compared", st->compared,
                "merged", cx->opts.now_text);
  if (o != NULL && st->compared) {
    json_object_set_new(o, "margin", json_real(st->margin));
    json_object_set_new(o, "noise", json_real(st->noise));
  }
  return o;
}

/* The lines of every row of e into text (appended, a growing buffer).
 * 0 or TN_ETOOL. */
static int entry_lines(const mg_ctx *cx, const mg_entry *e, char **text,
                       size_t *len, tn_err *err)
{
  int k;
  for (k = -1; e != NULL && k < e->n_sizes; k++) {
    json_t *o = row_line(cx, e, k, k < 0 ? e->text : e->size[k].text,
                         k < 0 ? &e->stay : &e->size[k].stay);
    char *s, *grown;
    size_t n;
    if (o == NULL)
      continue;
    s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_decref(o);
    if (s == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory");
    n = strlen(s);
    grown = realloc(*text, *len + n + 2);
    if (grown == NULL) {
      free(s);
      return tn_errf(err, TN_ETOOL, "out of memory");
    }
    memcpy(grown + *len, s, n);
    grown[*len + n] = '\n';
    grown[*len + n + 1] = '\0';
    *text = grown;
    *len += n + 1;
    free(s);
  }
  return 0;
}

int tn_fleet_winners_write(const mg_ctx *cx, tn_err *err)
{
  char path[4400], *text = NULL;
  size_t len = 0, old_len;
  struct stat st;
  tn_err ignore = {{0}};
  int i, rc;

  if (cx->opts.history == NULL)
    return 0;
  rc = tn_fleet_winners_path(cx, path, sizeof(path), err);
  if (rc != 0)
    return rc;
  /* what is there, less a line a kill cut short */
  if (stat(path, &st) == 0 && tn_read_file(path, &text, &len, &ignore) == 0)
    while (len > 0 && text[len - 1] != '\n')
      text[--len] = '\0';
  old_len = len;
  for (i = 0; rc == 0 && i < MG_MAX_ARCHS; i++)
    rc = entry_lines(cx, cx->arch_entry[i], &text, &len, err);
  for (i = 0; rc == 0 && i < cx->n_dev; i++)
    rc = entry_lines(cx, cx->dev_entry[i], &text, &len, err);
  if (rc == 0 && len > old_len)
    rc = tn_write_file_atomic(path, text, len, err);
  free(text);
  return rc;
}

void tn_fleet_winners_free(mg_ctx *cx)
{
  free(cx->prev);
  cx->prev = NULL;
  cx->n_prev = 0;
}

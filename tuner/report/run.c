/* run.c -- one run's section of the report: candidates by status, the
 * timed ones as bars against the baselines, the model's wavefronts
 * against the clock, the winner with its ties and the run's cost, and
 * each parameter's effect.  Every chart is followed by a table of its
 * numbers; marks carry them in data-* attributes too (tests read them). */
#include "report/parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"

enum { K_OK, K_PRUNED, K_EXCLUDED, K_COMPILE, K_WRONG, K_FAILED, K_OTHER,
       K_N };

static const char *const kcls[K_N] = {"ok",    "pruned", "excluded",
                                      "compile_error", "wrong", "failed",
                                      "other"};
static const char *const klabel[K_N] = {
    "timed (ok)", "pruned by the model", "excluded (family, constraint, "
    "limits)", "compile error", "wrong result", "failed (crash, hang)",
    "not run"};

static json_t *cand_json(const mg_run *r, int k)
{
  return json_array_get(json_object_get(r->doc, "candidates"), (size_t)k);
}

static int kind_of(json_t *c)
{
  const char *st = json_string_value(json_object_get(c, "status"));
  const char *by = json_string_value(json_object_get(c, "pruned_by"));
  if (st == NULL)
    return K_OTHER;
  if (strcmp(st, "ok") == 0)
    return K_OK;
  if (strcmp(st, "pruned") == 0)
    return by && (strcmp(by, "model") == 0 || strcmp(by, "time_model") == 0 ||
                  strcmp(by, "measured") == 0)
               ? K_PRUNED
               : K_EXCLUDED;
  if (strcmp(st, "compile_error") == 0)
    return K_COMPILE;
  if (strcmp(st, "wrong") == 0)
    return K_WRONG;
  if (strcmp(st, "failed") == 0)
    return K_FAILED;
  return K_OTHER;
}

/* obj.key as a number, NAN when absent or not a number. */
static double num(json_t *obj, const char *key)
{
  json_t *v = json_object_get(obj, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *obj, const char *key)
{
  json_t *v = json_object_get(obj, key);
  return json_is_string(v) ? json_string_value(v) : "";
}

static double wavefronts(const mg_run *r, int k)
{
  double w = num(json_object_get(cand_json(r, k), "model"), "wavefronts");
  return w > 0 ? w : NAN;
}

/* 2: the winner, 1: within its noise, 0: neither. */
static int rank_of(const mg_run *r, int k)
{
  json_t *ties = json_object_get(json_object_get(r->doc, "best"),
                                 "within_noise"), *v;
  size_t i;
  if (r->best == k)
    return 2;
  json_array_foreach(ties, i, v) {
    if (json_is_integer(v) && json_integer_value(v) == r->cands[k].id)
      return 1;
  }
  return 0;
}

static const char *mark_cls(const mg_run *r, int k)
{
  static const char *const c[3] = {"st-ok", "st-tie", "st-win"};
  return c[rank_of(r, k)];
}

static int cmp_ms(const void *a, const void *b)
{
  const mg_cand *x = *(const mg_cand *const *)a;
  const mg_cand *y = *(const mg_cand *const *)b;
  if (x->ms != y->ms)
    return x->ms < y->ms ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static void counts(tn_html *h, const mg_run *r, int n)
{
  int cnt[K_N] = {0}, k, total = r->n_cands;
  double x = 10;
  char id[32], desc[512];
  size_t used = 0;
  for (k = 0; k < r->n_cands; k++)
    cnt[kind_of(cand_json(r, k))]++;
  for (k = 0; k < K_N; k++)
    if (cnt[k])
      used += (size_t)snprintf(desc + used, sizeof(desc) - used, "%s%d %s",
                               used ? ", " : "", cnt[k], klabel[k]);
  tn_html_printf(h, "<h3>Candidates by status</h3>\n<p class=\"key\">");
  for (k = 0; k < K_N; k++) {
    char cls[32];
    snprintf(cls, sizeof(cls), "st-%s", kcls[k]);
    if (cnt[k])
      tn_svg_key(h, cls, klabel[k]);
  }
  tn_html_printf(h, "</p>\n");
  snprintf(id, sizeof(id), "r%d-counts", n);
  tn_svg_begin(h, id, 1000, 50, "Candidates by status", desc);
  for (k = 0; k < K_N && total > 0; k++) {
    double w = 980.0 * cnt[k] / total;
    if (cnt[k] == 0)
      continue;
    tn_html_printf(h,
                   "<rect class=\"st-%s\" data-status=\"%s\" "
                   "data-count=\"%d\" x=\"%.2f\" y=\"5\" width=\"%.2f\" "
                   "height=\"40\"><title>%d %s</title></rect>\n",
                   kcls[k], kcls[k], cnt[k], x, w, cnt[k], klabel[k]);
    x += w;
  }
  tn_svg_end(h);
  snprintf(id, sizeof(id), "r%d-counts-tab", n);
  tn_html_table(h, id, "Candidates by status", "status", "candidates",
                NULL);
  for (k = 0; k < K_N; k++) {
    if (cnt[k] == 0)
      continue;
    tn_html_tr(h);
    tn_html_td(h, klabel[k]);
    tn_html_td_int(h, cnt[k]);
    tn_html_tr_end(h);
  }
  tn_html_tr(h);
  tn_html_td(h, "all");
  tn_html_td_int(h, total);
  tn_html_tr_end(h);
  tn_html_table_end(h);
}

static void bars(tn_html *h, const mg_run *r, int n, mg_cand **ok, int n_ok)
{
  json_t *bl = json_object_get(r->doc, "baselines"), *b;
  const char *unit = "";
  double hi = 0, pw = 910, bw;
  tn_axis y;
  char id[32], desc[600];
  size_t i;
  int k;

  for (k = 0; k < n_ok; k++)
    if (ok[k]->ms > hi)
      hi = ok[k]->ms;
  json_array_foreach(bl, i, b) {
    if (strcmp(str(b, "status"), "ok") == 0 && num(b, "median_ms") > hi)
      hi = num(b, "median_ms");
  }
  tn_axis_init(&y, 0, hi, 0, 1, 330, 20);
  bw = n_ok ? pw / n_ok : pw;
  snprintf(desc, sizeof(desc),
           "%d timed candidates as bars of their median time in ms, "
           "fastest first, from %.4g to %.4g ms; the winner and its ties "
           "within noise in orange; dashed lines: the baselines. The "
           "numbers are in the table below.",
           n_ok, n_ok ? ok[0]->ms : 0.0, n_ok ? ok[n_ok - 1]->ms : 0.0);
  tn_html_printf(h, "<h3>Timed candidates, fastest first</h3>\n"
                    "<p class=\"key\">");
  tn_svg_key(h, "st-win", "winner");
  tn_svg_key(h, "st-tie", "within noise of it");
  tn_svg_key(h, "st-ok", "timed");
  tn_svg_key(h, "bl-t", "baseline");
  tn_html_printf(h, "</p>\n");
  snprintf(id, sizeof(id), "r%d-bars", n);
  tn_svg_begin(h, id, 1000, 380, "Timed candidates by median time", desc);
  tn_svg_yaxis(h, &y, 70, 980, "median time (ms)");
  tn_html_printf(h, "<g aria-hidden=\"true\"><text x=\"525\" y=\"365\" "
                    "text-anchor=\"middle\">candidates, fastest first "
                    "(%d)</text></g>\n",
                 n_ok);
  for (k = 0; k < n_ok; k++) {
    double top = tn_axis_px(&y, ok[k]->ms);
    tn_html_printf(h,
                   "<rect class=\"%s\" data-id=\"%d\" data-ms=\"",
                   mark_cls(r, (int)(ok[k] - r->cands)), ok[k]->id);
    tn_html_num(h, ok[k]->ms);
    tn_html_printf(h,
                   "\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                   "height=\"%.2f\"><title>",
                   70 + k * bw, top, bw > 1.5 ? bw * 0.85 : bw,
                   330 - top);
    tn_html_printf(h, "#%d (id %d): ", k + 1, ok[k]->id);
    tn_html_num(h, ok[k]->ms);
    tn_html_printf(h, " ms, ");
    tn_html_text(h, ok[k]->text);
    tn_html_printf(h, "</title></rect>\n");
  }
  json_array_foreach(bl, i, b) {
    double ms = num(b, "median_ms"), py;
    if (strcmp(str(b, "status"), "ok") != 0 || !(ms > 0))
      continue;
    py = tn_axis_px(&y, ms);
    tn_html_printf(h, "<line class=\"bl\" data-baseline=\"");
    tn_html_text(h, str(b, "name"));
    tn_html_printf(h, "\" data-ms=\"");
    tn_html_num(h, ms);
    tn_html_printf(h,
                   "\" x1=\"70\" x2=\"980\" y1=\"%.2f\" y2=\"%.2f\">"
                   "<title>baseline ",
                   py, py);
    tn_html_text(h, str(b, "name"));
    tn_html_printf(h, ": ");
    tn_html_num(h, ms);
    tn_html_printf(h, " ms</title></line><text class=\"bl-t\" x=\"975\" "
                      "y=\"%.2f\" text-anchor=\"end\">",
                   py - 4);
    tn_html_text(h, str(b, "name"));
    tn_html_printf(h, " ");
    tn_html_num(h, ms);
    tn_html_printf(h, " ms</text>\n");
  }
  tn_svg_end(h);

  snprintf(id, sizeof(id), "r%d-bars-tab", n);
  tn_html_table(h, id, "Baselines", "baseline", "status", "median (ms)",
                "rate", NULL);
  json_array_foreach(bl, i, b) {
    tn_html_tr(h);
    tn_html_td(h, str(b, "name"));
    tn_html_td(h, str(b, "status"));
    tn_html_td_num(h, num(b, "median_ms"));
    tn_html_printf(h, "<td class=\"n\">");
    tn_html_num(h, num(b, "rate"));
    tn_html_printf(h, " ");
    tn_html_text(h, str(b, "unit"));
    tn_html_printf(h, "</td>");
    tn_html_tr_end(h);
  }
  tn_html_table_end(h);
  snprintf(id, sizeof(id), "r%d-timed-tab", n);
  tn_html_table(h, id, "Timed candidates, fastest first", "#", "id",
                "parameters", "median (ms)", "rate", "% of baseline",
                "wavefronts (model)", "", NULL);
  for (k = 0; k < n_ok; k++) {
    json_t *c = cand_json(r, ok[k]->idx);
    int rk = rank_of(r, ok[k]->idx);
    unit = str(c, "unit");
    tn_html_tr(h);
    tn_html_td_int(h, k + 1);
    tn_html_td_int(h, ok[k]->id);
    tn_html_printf(h, "<td class=\"p\">");
    tn_html_text(h, ok[k]->text);
    tn_html_printf(h, "</td>");
    tn_html_td_num(h, ok[k]->ms);
    tn_html_printf(h, "<td class=\"n\">");
    tn_html_num(h, num(c, "rate"));
    tn_html_printf(h, " ");
    tn_html_text(h, unit);
    tn_html_printf(h, "</td>");
    tn_html_td_num(h, num(c, "pct_of_baseline"));
    tn_html_td_num(h, wavefronts(r, ok[k]->idx));
    tn_html_td(h, rk == 2 ? "winner" : rk == 1 ? "within noise" : "");
    tn_html_tr_end(h);
  }
  tn_html_table_end(h);
}

static void scatter(tn_html *h, const mg_run *r, int n)
{
  double wlo = INFINITY, whi = 0, mlo = INFINITY, mhi = 0;
  int k, n_t = 0, n_u = 0;
  tn_axis x, y;
  char id[32], desc[600];

  for (k = 0; k < r->n_cands; k++) {
    double w = wavefronts(r, k);
    int kd = kind_of(cand_json(r, k));
    if (isnan(w) || kd == K_EXCLUDED)
      continue;
    wlo = w < wlo ? w : wlo;
    whi = w > whi ? w : whi;
    if (r->cands[k].ok) {
      n_t++;
      mlo = r->cands[k].ms < mlo ? r->cands[k].ms : mlo;
      mhi = r->cands[k].ms > mhi ? r->cands[k].ms : mhi;
    } else {
      n_u++;
    }
  }
  tn_html_printf(h, "<h3>The model against the clock</h3>\n");
  if (n_t + n_u == 0) {
    tn_html_printf(h, "<p>No candidate has the model's wavefronts.</p>\n");
    return;
  }
  if (n_t == 0)
    mlo = mhi = 1;
  tn_axis_init(&x, wlo, whi, 1, 0, 70, 980);
  tn_axis_init(&y, mlo, mhi, 1, 0, 290, 20);
  snprintf(desc, sizeof(desc),
           "Scatter of the model's shared-memory wavefronts per launch "
           "(x, logarithmic) against the median time in ms (y, "
           "logarithmic) for %d timed candidates; below the plot, %d "
           "candidates with wavefronts that were not timed (pruned or "
           "failed). The numbers are in the tables of timed candidates and "
           "of those not timed.",
           n_t, n_u);
  snprintf(id, sizeof(id), "r%d-model", n);
  tn_svg_begin(h, id, 1000, 380, "Wavefronts against measured time", desc);
  tn_svg_yaxis(h, &y, 70, 980, "median time (ms)");
  tn_svg_xaxis(h, &x, 335, 20, "shared-memory wavefronts per launch "
                               "(model)");
  tn_html_printf(h, "<text x=\"66\" y=\"322\" text-anchor=\"end\" "
                    "aria-hidden=\"true\">not timed</text>\n");
  for (k = 0; k < r->n_cands; k++) {
    double w = wavefronts(r, k), px;
    int kd = kind_of(cand_json(r, k));
    if (isnan(w) || kd == K_EXCLUDED)
      continue;
    px = tn_axis_px(&x, w);
    if (r->cands[k].ok) {
      tn_html_printf(h, "<circle class=\"%s\" data-id=\"%d\" data-ms=\"",
                     mark_cls(r, k), r->cands[k].id);
      tn_html_num(h, r->cands[k].ms);
      tn_html_printf(h, "\" data-wavefronts=\"");
      tn_html_num(h, w);
      tn_html_printf(h, "\" cx=\"%.2f\" cy=\"%.2f\" r=\"4\"><title>id %d: ",
                     px, tn_axis_px(&y, r->cands[k].ms), r->cands[k].id);
      tn_html_num(h, w);
      tn_html_printf(h, " wavefronts, ");
      tn_html_num(h, r->cands[k].ms);
      tn_html_printf(h, " ms</title></circle>\n");
    } else {
      tn_html_printf(h, "<rect class=\"st-%s\" data-id=\"%d\" "
                        "data-status=\"%s\" data-wavefronts=\"",
                     kcls[kd], r->cands[k].id, kcls[kd]);
      tn_html_num(h, w);
      tn_html_printf(h, "\" x=\"%.2f\" y=\"310\" width=\"2\" height=\"16\">"
                        "<title>id %d (%s): ",
                     px - 1, r->cands[k].id, klabel[kd]);
      tn_html_num(h, w);
      tn_html_printf(h, " wavefronts</title></rect>\n");
    }
  }
  tn_svg_end(h);
  if (n_u == 0)
    return;
  snprintf(id, sizeof(id), "r%d-untimed-tab", n);
  tn_html_table(h, id, "Not timed, with the model's wavefronts", "id",
                "parameters", "status", "wavefronts (model)", "why", NULL);
  for (k = 0; k < r->n_cands; k++) {
    json_t *c = cand_json(r, k);
    double w = wavefronts(r, k);
    int kd = kind_of(c);
    if (isnan(w) || kd == K_EXCLUDED || r->cands[k].ok)
      continue;
    tn_html_tr(h);
    tn_html_td_int(h, r->cands[k].id);
    tn_html_printf(h, "<td class=\"p\">");
    tn_html_text(h, r->cands[k].text);
    tn_html_printf(h, "</td>");
    tn_html_td(h, klabel[kd]);
    tn_html_td_num(h, w);
    tn_html_td(h, str(c, "reason"));
    tn_html_tr_end(h);
  }
  tn_html_table_end(h);
}

void tn_report_run(tn_html *h, const mg_run *r, int n)
{
  json_t *run = json_object_get(r->doc, "run");
  mg_cand **ok = calloc((size_t)r->n_cands + 1, sizeof(*ok));
  int k, n_ok = 0;

  if (ok == NULL) {
    h->oom = 1;
    return;
  }
  for (k = 0; k < r->n_cands; k++)
    if (r->cands[k].ok)
      ok[n_ok++] = &r->cands[k];
  qsort(ok, (size_t)n_ok, sizeof(*ok), cmp_ms);
  tn_html_printf(h, "<section id=\"run-%d\" aria-labelledby=\"run-%d-h\">\n"
                    "<h2 id=\"run-%d-h\">",
                 n, n, n);
  tn_html_text(h, r->name);
  tn_html_printf(h, " on ");
  tn_html_text(h, r->device ? r->device : "no device (predicted)");
  tn_html_printf(h, " (%s), ", r->arch->name);
  tn_html_text(h, r->started);
  tn_html_printf(h, "</h2>\n<p>Results file <code>");
  tn_html_text(h, r->path);
  tn_html_printf(h, "</code>, family %s, host ", r->family->name);
  tn_html_text(h, r->host);
  tn_html_printf(h, "; command <code>");
  tn_html_text(h, str(run, "command"));
  tn_html_printf(h, "</code>%s%s.</p>\n",
                 json_is_true(json_object_get(run, "no_prune"))
                     ? " (--no-prune: the model pruned nothing)"
                     : "",
                 r->interrupted ? " (interrupted)" : "");
  tn_report_winner(h, r, n);
  counts(h, r, n);
  if (n_ok > 0)
    bars(h, r, n, ok, n_ok);
  else
    tn_html_printf(h, "<p>No candidate was verified and timed.</p>\n");
  if (!r->predicted)
    tn_report_drift(h, r, n);
  scatter(h, r, n);
  tn_report_effect(h, r, n);
  tn_html_printf(h, "</section>\n");
  free(ok);
}

/* effect.c -- parts of a run's section: the winner with its parameters,
 * its ties within noise and the run's cost (compiling, benchmarking); and
 * each layout parameter's effect, the best time reached with each of its
 * values, as small bar charts with their table. */
#include "report/parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"

#define MAX_VALUES 64

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

/* A row of a number and its unit (text from the results file, escaped
 * like every other). */
static void row_num(tn_html *h, const char *what, double v, const char *unit)
{
  if (isnan(v))
    return;
  tn_html_tr(h);
  tn_html_td(h, what);
  tn_html_printf(h, "<td class=\"n\">");
  tn_html_num(h, v);
  if (unit[0] != '\0') {
    tn_html_printf(h, " ");
    tn_html_text(h, unit);
  }
  tn_html_printf(h, "</td>");
  tn_html_tr_end(h);
}

static void row_text(tn_html *h, const char *what, const char *v)
{
  tn_html_tr(h);
  tn_html_td(h, what);
  tn_html_td(h, v);
  tn_html_tr_end(h);
}

static const mg_cand *by_id(const mg_run *r, json_int_t id)
{
  int k;
  for (k = 0; k < r->n_cands; k++)
    if (r->cands[k].id == id)
      return &r->cands[k];
  return NULL;
}

void tn_report_winner(tn_html *h, const mg_run *r, int n)
{
  json_t *best = json_object_get(r->doc, "best"), *v, *ties;
  json_t *run = json_object_get(r->doc, "run");
  json_t *comp = json_object_get(run, "compile");
  const char *key;
  char id[32];
  size_t i;

  tn_html_printf(h, "<h3>The winner</h3>\n");
  if (!json_is_object(best) || r->best < 0) {
    tn_html_printf(h, "<p>No winner: nothing was verified and timed.</p>"
                      "\n");
  } else {
    const mg_cand *w = &r->cands[r->best];
    tn_html_printf(h, "<p id=\"r%d-winner\" data-id=\"%d\" data-ms=\"", n,
                   w->id);
    tn_html_num(h, w->ms);
    tn_html_printf(h, "\">Candidate %d, <code>", w->id);
    tn_html_text(h, w->text);
    tn_html_printf(h, "</code>%s</p>\n",
                   r->predicted ? " (predicted, not measured)" : "");
    snprintf(id, sizeof(id), "r%d-win-tab", n);
    tn_html_table(h, id, "The winner", "", "value", NULL);
    json_object_foreach(json_object_get(best, "params"), key, v) {
      char s[64];
      if (json_is_integer(v))
        snprintf(s, sizeof(s), "%lld", (long long)json_integer_value(v));
      tn_html_tr(h);
      tn_html_td(h, key);
      tn_html_td(h, json_is_string(v) ? json_string_value(v) : s);
      tn_html_tr_end(h);
    }
    row_num(h, "median (ms)", num(best, "median_ms"), "");
    row_num(h, "rate", num(best, "rate"), str(best, "unit"));
    row_num(h, "% of baseline", num(best, "pct_of_baseline"),
            str(r->doc, "reference_baseline"));
    if (json_is_string(json_object_get(best, "vs_baseline"))) {
      /* against the baseline timed nearest to it, with that noise */
      row_text(h, "against the baseline", str(best, "vs_baseline"));
      row_num(h, "noise against the baseline (relative)",
              num(best, "baseline_noise"), "");
    }
    row_num(h, "noise (relative)", num(best, "noise"), "");
    row_text(h, "rule", str(best, "rule"));
    tn_html_table_end(h);
    ties = json_object_get(best, "within_noise");
    if (json_array_size(ties) > 1) {
      snprintf(id, sizeof(id), "r%d-ties-tab", n);
      tn_html_table(h, id, "Within noise of the fastest (ties)", "id",
                    "parameters", "median (ms)", NULL);
      json_array_foreach(ties, i, v) {
        const mg_cand *c = json_is_integer(v)
                               ? by_id(r, json_integer_value(v))
                               : NULL;
        if (c == NULL)
          continue;
        tn_html_tr(h);
        tn_html_td_int(h, c->id);
        tn_html_printf(h, "<td class=\"p\">");
        tn_html_text(h, c->text);
        tn_html_printf(h, "</td>");
        tn_html_td_num(h, c->ms);
        tn_html_tr_end(h);
      }
      tn_html_table_end(h);
    }
  }
  snprintf(id, sizeof(id), "r%d-cost-tab", n);
  tn_html_table(h, id, "The run's cost", "", "value", NULL);
  row_num(h, "whole run (s)", num(run, "wall_s"), "");
  row_num(h, "compiling, wall (s)", num(comp, "wall_s"), "");
  row_num(h, "compiling, CPU (s)", num(comp, "cpu_s"), "");
  row_num(h, "compile threads", num(comp, "threads"), "");
  row_num(h, "compiled", num(comp, "compiled"), "");
  row_num(h, "from the cache", num(comp, "cached"), "");
  row_num(h, "failed to compile", num(comp, "failed"), "");
  row_num(h, "benchmarking (s)", num(run, "bench_s"), "");
  row_num(h, "pruned by the model", num(run, "pruned_by_model"), "");
  row_num(h, "worker starts", num(run, "worker_starts"), "");
  tn_html_table_end(h);
}

typedef struct {
  char text[64];
  long long i;
  int is_int, timed, best_id;
  double best;
} value;

static int cmp_value(const void *a, const void *b)
{
  const value *x = a, *y = b;
  if (x->is_int && y->is_int)
    return (x->i > y->i) - (x->i < y->i);
  return strcmp(x->text, y->text);
}

/* The values of parameter name among r's timed candidates. */
static int values_of(const mg_run *r, const char *name, value *vs)
{
  int k, j, n = 0;
  for (k = 0; k < r->n_cands; k++) {
    const mg_cand *c = &r->cands[k];
    json_t *v = json_object_get(c->params, name);
    value cur;
    if (!c->ok || v == NULL)
      continue;
    memset(&cur, 0, sizeof(cur));
    if (json_is_integer(v)) {
      cur.is_int = 1;
      cur.i = (long long)json_integer_value(v);
      snprintf(cur.text, sizeof(cur.text), "%lld", cur.i);
    } else if (json_is_string(v)) {
      tn_strlcpy(cur.text, json_string_value(v), sizeof(cur.text));
    }
    for (j = 0; j < n; j++)
      if (strcmp(vs[j].text, cur.text) == 0)
        break;
    if (j == n) {
      if (n == MAX_VALUES)
        continue;
      vs[n++] = cur;
      vs[j].best = INFINITY;
    }
    vs[j].timed++;
    if (c->ms < vs[j].best) {
      vs[j].best = c->ms;
      vs[j].best_id = c->id;
    }
  }
  qsort(vs, (size_t)n, sizeof(*vs), cmp_value);
  return n;
}

static void effect_chart(tn_html *h, const mg_run *r, int n, int p,
                         const value *vs, int nv)
{
  const char *name = r->family->params[p].name;
  double hi = 0;
  int j, ht = 40 + 20 * nv;
  tn_axis x;
  char id[48], title[128], desc[256];

  for (j = 0; j < nv; j++)
    hi = vs[j].best > hi ? vs[j].best : hi;
  tn_axis_init(&x, 0, hi, 0, 1, 90, 340);
  snprintf(id, sizeof(id), "r%d-eff-%d", n, p);
  snprintf(title, sizeof(title), "Best time with each value of %s", name);
  snprintf(desc, sizeof(desc),
           "Bars of the best median time in ms reached with each of %d "
           "values of %s; the numbers are in the table of parameters.",
           nv, name);
  tn_html_printf(h, "<figure>");
  tn_svg_begin(h, id, 360, ht, title, desc);
  tn_svg_xaxis(h, &x, ht - 22, 8, "");
  tn_html_printf(h, "<text x=\"4\" y=\"%d\" aria-hidden=\"true\">", ht - 4);
  tn_html_text(h, name);
  tn_html_printf(h, "</text>\n");
  for (j = 0; j < nv; j++) {
    double y = 10 + 20 * j;
    tn_html_printf(h, "<text x=\"84\" y=\"%.1f\" text-anchor=\"end\" "
                      "aria-hidden=\"true\">",
                   y + 13);
    tn_html_text(h, vs[j].text);
    tn_html_printf(h, "</text><rect class=\"%s\" data-param=\"",
                   vs[j].best_id == r->cands[r->best].id ? "st-win"
                                                          : "st-ok");
    tn_html_text(h, name);
    tn_html_printf(h, "\" data-value=\"");
    tn_html_text(h, vs[j].text);
    tn_html_printf(h, "\" data-ms=\"");
    tn_html_num(h, vs[j].best);
    tn_html_printf(h, "\" x=\"90\" y=\"%.1f\" width=\"%.2f\" "
                      "height=\"16\"><title>",
                   y, tn_axis_px(&x, vs[j].best) - 90);
    tn_html_text(h, name);
    tn_html_printf(h, " = ");
    tn_html_text(h, vs[j].text);
    tn_html_printf(h, ": best ");
    tn_html_num(h, vs[j].best);
    tn_html_printf(h, " ms (%d timed)</title></rect>\n", vs[j].timed);
  }
  tn_svg_end(h);
  tn_html_printf(h, "</figure>\n");
}

void tn_report_effect(tn_html *h, const mg_run *r, int n)
{
  const tn_family *f = r->family;
  value *vs = calloc(MAX_VALUES, sizeof(*vs));
  char id[32];
  int p, j, nv;

  if (vs == NULL) {
    h->oom = 1;
    return;
  }
  tn_html_printf(h, "<h3>Each parameter's effect</h3>\n");
  if (r->best < 0) {
    tn_html_printf(h, "<p>Nothing was timed.</p>\n");
    free(vs);
    return;
  }
  tn_html_printf(h, "<p>For each value of a parameter, the best median "
                    "time of the timed candidates with it (orange: the "
                    "winner's).</p>\n<div class=\"grid\">\n");
  for (p = 0; p < f->n_params; p++) {
    nv = values_of(r, f->params[p].name, vs);
    if (nv > 0)
      effect_chart(h, r, n, p, vs, nv);
  }
  tn_html_printf(h, "</div>\n");
  snprintf(id, sizeof(id), "r%d-eff-tab", n);
  tn_html_table(h, id, "Each parameter's effect", "parameter", "value",
                "timed", "best median (ms)", "its id", NULL);
  for (p = 0; p < f->n_params; p++) {
    nv = values_of(r, f->params[p].name, vs);
    for (j = 0; j < nv; j++) {
      tn_html_tr(h);
      tn_html_td(h, f->params[p].name);
      tn_html_td(h, vs[j].text);
      tn_html_td_int(h, vs[j].timed);
      tn_html_td_num(h, vs[j].best);
      tn_html_td_int(h, vs[j].best_id);
      tn_html_tr_end(h);
    }
  }
  tn_html_table_end(h);
  free(vs);
}

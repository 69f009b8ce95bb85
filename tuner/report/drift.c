/* drift.c -- a run's section on its GPU over time: whether the clocks
 * held or throttled (run.clocks), and the reference baseline timed
 * through the run, each timing with its clocks, as a table.  Read from a
 * document fleet/drift.c checked; files before these fields say so. */
#include "report/parts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double num(json_t *obj, const char *key)
{
  json_t *v = json_object_get(obj, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The names of a checked "reasons" array, comma-separated, escaped. */
static void reasons(tn_html *h, json_t *a)
{
  json_t *v;
  size_t i;
  json_array_foreach(a, i, v) {
    if (i > 0)
      tn_html_printf(h, ", ");
    tn_html_text(h, json_string_value(v));
  }
}

static void verdict(tn_html *h, const mg_run *r, json_t *clk)
{
  if (r->clocks_known < 0) {
    tn_html_printf(h, "<p data-clocks=\"none\">This results file is from "
                      "before the tuner read the GPU's clocks and timed "
                      "the baseline through the run.</p>\n");
    return;
  }
  if (r->clocks_known == 0) {
    tn_html_printf(h, "<p data-clocks=\"unknown\">Clocks unknown: ");
    tn_html_text(h, r->clocks_why ? r->clocks_why : "");
    tn_html_printf(h, ".</p>\n");
    return;
  }
  tn_html_printf(h, "<p data-clocks=\"%s\"%s><strong>%s</strong>: ",
                 r->throttled ? "throttled" : "steady",
                 r->throttled ? " class=\"warn\"" : "",
                 r->throttled ? "The GPU throttled" : "Clocks steady");
  tn_html_num(h, num(clk, "candidates_throttled"));
  tn_html_printf(h, " of ");
  tn_html_num(h, num(clk, "candidates"));
  tn_html_printf(h, " candidates and ");
  tn_html_num(h, num(clk, "baseline_measurements_throttled"));
  tn_html_printf(h, " of ");
  tn_html_num(h, num(clk, "baseline_measurements"));
  tn_html_printf(h, " baseline timings throttled (a power or thermal "
                    "reason, or an SM clock more than ");
  tn_html_num(h, 100.0 * num(clk, "drop"));
  tn_html_printf(h, "%% below the start's); SM clock ");
  tn_html_num(h, num(clk, "start_sm_mhz"));
  tn_html_printf(h, " MHz at the start, ");
  tn_html_num(h, num(clk, "min_sm_mhz"));
  tn_html_printf(h, " to ");
  tn_html_num(h, num(clk, "max_sm_mhz"));
  tn_html_printf(h, " MHz");
  if (!isnan(num(clk, "max_power_w"))) {
    tn_html_printf(h, "; power up to ");
    tn_html_num(h, num(clk, "max_power_w"));
    tn_html_printf(h, " W");
  }
  if (!isnan(num(clk, "power_limit_w"))) {
    tn_html_printf(h, " of a limit of ");
    tn_html_num(h, num(clk, "power_limit_w"));
    tn_html_printf(h, " W");
  }
  if (json_array_size(json_object_get(clk, "reasons")) > 0) {
    tn_html_printf(h, "; reasons NVML gave: ");
    reasons(h, json_object_get(clk, "reasons"));
  }
  tn_html_printf(h, ".</p>\n");
}

void tn_report_drift(tn_html *h, const mg_run *r, int n)
{
  json_t *clk = json_object_get(json_object_get(r->doc, "run"), "clocks");
  json_t *b0 = json_array_get(json_object_get(r->doc, "baselines"), 0);
  json_t *ms = json_object_get(b0, "measurements"), *m;
  double first = NAN;
  char id[32];
  size_t j;

  tn_html_printf(h, "<h3>The GPU through the run</h3>\n");
  verdict(h, r, clk);
  if (r->n_base_meas == 0)
    return;
  tn_html_printf(h, "<p>The baseline ");
  tn_html_text(h, json_string_value(json_object_get(b0, "name")));
  tn_html_printf(h, " was timed %d times; each candidate's %% of baseline "
                    "is against the timing nearest to it.  They spread ",
                 r->n_base_meas);
  tn_html_num(h, 100.0 * num(b0, "spread"));
  tn_html_printf(h, "%%.</p>\n");
  snprintf(id, sizeof(id), "r%d-drift-tab", n);
  tn_html_table(h, id, "The baseline timed through the run", "#",
                "seconds after the first", "after candidates",
                "median (ms)", "SM clock (MHz)", "power, max (W)",
                "reasons", "throttled", NULL);
  json_array_foreach(ms, j, m) {
    json_t *c = json_object_get(m, "clocks");
    json_t *at = json_object_get(m, "timed_at_ms");
    double t = json_is_integer(at) ? (double)json_integer_value(at) : NAN;
    char clock[64] = "";
    if (isnan(first))
      first = t;
    if (!isnan(num(c, "sm_mhz_min")))
      snprintf(clock, sizeof(clock), "%.0f to %.0f", num(c, "sm_mhz_min"),
               num(c, "sm_mhz_max"));
    tn_html_printf(h, "<tr data-measurement=\"%zu\" data-ms=\"", j);
    tn_html_num(h, r->base_meas_total[j]);
    tn_html_printf(h, "\" data-throttled=\"%s\">",
                   json_is_true(json_object_get(c, "throttled")) ? "1" : "0");
    tn_html_td_int(h, (long long)j);
    tn_html_td_num(h, (t - first) / 1000.0);
    tn_html_td_num(h, num(m, "after"));
    tn_html_td_num(h, r->base_meas_total[j]);
    tn_html_td(h, clock);
    tn_html_td_num(h, num(c, "power_w_max"));
    tn_html_printf(h, "<td>");
    reasons(h, json_object_get(c, "reasons"));
    tn_html_printf(h, "</td>");
    tn_html_td(h, json_is_true(json_object_get(c, "throttled")) ? "yes"
                                                                 : "");
    tn_html_tr_end(h);
  }
  tn_html_table_end(h);
}

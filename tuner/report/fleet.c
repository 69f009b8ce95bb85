/* fleet.c -- the fleet's sections of the report: a matrix architecture x
 * job with the configuration merge's rules choose (fleet/choose.c),
 * measured or predicted, and its % of baseline; and for each job and
 * architecture the nights as lines, one per GPU, regressions marked. */
#include "report/parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"

#define MAX_JOBS 32

typedef struct {
  mg_ctx *cx[MAX_JOBS];
  int n;
} jobs;

/* The configurations of now slower than on the same GPU's previous night
 * beyond noise, by merge's rule (fleet/history.c), counted.  *before: that
 * night's run, or NULL. */
static int regressed(const mg_runs *rs, const mg_run *now,
                     const mg_run **before)
{
  const mg_run *b = tn_fleet_previous_night(rs, now);
  int k, n = 0;
  *before = b;
  if (b == NULL || now->interrupted)
    return 0;
  for (k = 0; k < now->n_cands; k++) {
    const mg_cand *p;
    double noise;
    n += tn_fleet_slower(now, b, &now->cands[k], &p, &noise);
  }
  return n;
}

static void jobs_free(jobs *js)
{
  int j, i;
  for (j = 0; j < js->n; j++) {
    for (i = 0; i < MG_MAX_ARCHS; i++)
      free(js->cx[j]->arch_entry[i]);
    for (i = 0; i < js->cx[j]->n_dev; i++)
      free(js->cx[j]->dev_entry[i]);
    free(js->cx[j]->runs.r);
    free(js->cx[j]);
  }
}

/* One context per job (name), its runs borrowed, its entries chosen. */
static int make_jobs(mg_runs *runs, jobs *js, tn_err *err)
{
  int i, j;
  js->n = 0;
  for (i = 0; i < runs->n; i++) {
    mg_run *r = runs->r[i];
    mg_ctx *cx = NULL;
    for (j = 0; j < js->n; j++)
      if (strcmp(js->cx[j]->name, r->name) == 0)
        cx = js->cx[j];
    if (cx == NULL) {
      if (js->n == MAX_JOBS)
        return tn_errf(err, TN_EINPUT, "%s: more than %d jobs in one "
                                       "report",
                       r->path, MAX_JOBS);
      cx = calloc(1, sizeof(*cx));
      if (cx != NULL)
        cx->runs.r = calloc((size_t)runs->n + 1, sizeof(mg_run *));
      if (cx == NULL || cx->runs.r == NULL) {
        free(cx);
        return tn_errf(err, TN_ETOOL, "out of memory");
      }
      tn_strlcpy(cx->name, r->name, sizeof(cx->name));
      cx->family = r->family;
      js->cx[js->n++] = cx;
    }
    if (r->family == cx->family)
      cx->runs.r[cx->runs.n++] = r;
  }
  for (j = 0; j < js->n; j++) {
    tn_err mine = {{0}};
    int rc = tn_fleet_choose_all(js->cx[j], &mine);
    if (rc == TN_ETOOL)
      return tn_errf(err, rc, "%s", mine.msg);
  }
  return 0;
}

/* The latest measured run of cx on arch with the configuration text and
 * a baseline, and that configuration's candidate there. */
static const mg_run *measured_in(const mg_ctx *cx, const tn_arch *arch,
                                 const char *text, const mg_cand **cand)
{
  const mg_run *best = NULL;
  int i;
  *cand = NULL;
  for (i = 0; i < cx->runs.n; i++) {
    const mg_run *r = cx->runs.r[i];
    const mg_cand *c;
    if (r->arch != arch || r->predicted || r->baseline_ms <= 0)
      continue;
    c = tn_fleet_find_cand(r, text);
    if (c != NULL && (best == NULL || r->t > best->t)) {
      best = r;
      *cand = c;
    }
  }
  return best;
}

static void matrix(tn_html *h, const jobs *js)
{
  int a, j;
  tn_html_printf(h, "<section id=\"matrix\" aria-labelledby=\"matrix-h\">"
                    "\n<h2 id=\"matrix-h\">Architecture &times; job</h2>\n"
                    "<p>The configuration <code>tuner merge</code> chooses "
                    "for each architecture (its rules: a measurement beats "
                    "a prediction, the latest night counts), and its time "
                    "as a %% of the baseline in the latest run that "
                    "measured it.</p>\n");
  tn_html_printf(h, "<table id=\"matrix-t\">\n<caption>Chosen "
                    "configurations</caption>\n<thead><tr><th "
                    "scope=\"col\">architecture</th>");
  for (j = 0; j < js->n; j++) {
    tn_html_printf(h, "<th scope=\"col\">");
    tn_html_text(h, js->cx[j]->name);
    tn_html_printf(h, "</th>");
  }
  tn_html_printf(h, "</tr></thead>\n<tbody>\n");
  for (a = tn_fleet_n_archs() - 1; a >= 0; a--) {
    int any = 0;
    for (j = 0; j < js->n; j++)
      any |= js->cx[j]->arch_entry[a] != NULL;
    if (!any)
      continue;
    tn_html_printf(h, "<tr><th scope=\"row\">%s</th>", tn_arch_at(a)->name);
    for (j = 0; j < js->n; j++) {
      const mg_entry *e = js->cx[j]->arch_entry[a];
      const mg_cand *c = NULL;
      const mg_run *r;
      if (e == NULL) {
        tn_html_printf(h, "<td class=\"mute\">none</td>");
        continue;
      }
      r = e->predicted ? NULL : measured_in(js->cx[j], e->arch, e->text, &c);
      tn_html_printf(h, "<td class=\"%s\" data-arch=\"%s\" data-job=\"",
                     e->predicted ? "predicted" : "measured", e->arch->name);
      tn_html_text(h, js->cx[j]->name);
      tn_html_printf(h, "\" data-pct=\"");
      if (r != NULL)
        tn_html_num(h, 100.0 * tn_fleet_baseline_of(r, c, -1) / c->ms);
      tn_html_printf(h, "\"><strong>%s</strong>",
                     e->predicted ? "predicted" : "measured");
      if (r != NULL) {
        tn_html_printf(h, ": ");
        tn_html_num(h, 100.0 * tn_fleet_baseline_of(r, c, -1) / c->ms);
        tn_html_printf(h, "%% of baseline (");
        tn_html_num(h, c->ms);
        tn_html_printf(h, " ms)");
      }
      tn_html_printf(h, "<br><span class=\"p\">");
      tn_html_text(h, e->text);
      tn_html_printf(h, "</span><br><span class=\"mute\">");
      tn_html_text(h, e->predicted ? "" : e->devices);
      tn_html_printf(h, " ");
      tn_html_text(h, e->date);
      tn_html_printf(h, "</span></td>");
    }
    tn_html_printf(h, "</tr>\n");
  }
  tn_html_printf(h, "</tbody>\n</table>\n</section>\n");
}

static void gpu_name(const mg_run *r, char *out, size_t n)
{
  snprintf(out, n, "%s, GPU %d of %s", r->device, r->ordinal, r->host);
}

/* One job on one architecture: its measured runs as lines, one per GPU. */
static void nights(tn_html *h, const mg_ctx *cx, const tn_arch *arch,
                   int n)
{
  const mg_runs *rs = &cx->runs;
  double tlo = INFINITY, thi = -INFINITY, mlo = INFINITY, mhi = 0;
  int i, j, pts = 0, regs = 0;
  tn_axis x, y;
  char id[32], desc[512], name[600], first_day[11] = "";

  for (i = 0; i < rs->n; i++) {
    const mg_run *r = rs->r[i];
    if (r->arch != arch || r->predicted || !(r->fastest > 0))
      continue;
    pts++;
    if (r->t < tlo) {
      tlo = (double)r->t;
      memcpy(first_day, r->day, sizeof(first_day));
    }
    thi = (double)r->t > thi ? (double)r->t : thi;
    mlo = r->fastest < mlo ? r->fastest : mlo;
    mhi = r->fastest > mhi ? r->fastest : mhi;
  }
  if (pts == 0)
    return;
  tn_axis_init(&x, 0, thi - tlo > 86400 ? (thi - tlo) / 86400.0 : 1, 0, 1,
               70, 980);
  tn_axis_init(&y, mlo, mhi, 0, 1, 230, 20);
  tn_html_printf(h, "<h3>");
  tn_html_text(h, cx->name);
  tn_html_printf(h, " on %s</h3>\n", arch->name);
  snprintf(desc, sizeof(desc),
           "Lines of the fastest median time in ms of each night, one line "
           "per GPU, %d runs from %s; red triangles: a night with "
           "configurations slower than the same GPU's previous night beyond "
           "noise. The numbers are in the table below.",
           pts, first_day);
  snprintf(id, sizeof(id), "hist-%d", n);
  tn_svg_begin(h, id, 1000, 280, "Nightly history", desc);
  tn_svg_yaxis(h, &y, 70, 980, "fastest median (ms)");
  snprintf(name, sizeof(name), "days since %s", first_day);
  tn_svg_xaxis(h, &x, 230, 20, name);
  for (i = 0; i < rs->n; i++) {
    const mg_run *r = rs->r[i];
    int dup = 0;
    if (r->arch != arch || r->predicted || !(r->fastest > 0))
      continue;
    for (j = 0; j < i; j++)
      dup |= tn_fleet_same_gpu(rs->r[j], r) && rs->r[j]->arch == arch;
    if (dup)
      continue; /* this GPU's line is drawn with its first run */
    tn_html_printf(h, "<polyline class=\"hl\" style=\"stroke:var(--ok)\" "
                      "points=\"");
    for (j = 0; j < rs->n; j++) {
      const mg_run *q = rs->r[j];
      if (q->arch == arch && tn_fleet_same_gpu(q, r) && q->fastest > 0)
        tn_html_printf(h, "%.2f,%.2f ",
                       tn_axis_px(&x, (double)(q->t - tlo) / 86400.0),
                       tn_axis_px(&y, q->fastest));
    }
    tn_html_printf(h, "\"/>\n");
  }
  for (i = 0; i < rs->n; i++) {
    const mg_run *r = rs->r[i], *before;
    double px, py;
    int nr;
    if (r->arch != arch || r->predicted || !(r->fastest > 0))
      continue;
    nr = regressed(rs, r, &before);
    regs += nr > 0;
    px = tn_axis_px(&x, (double)(r->t - tlo) / 86400.0);
    py = tn_axis_px(&y, r->fastest);
    gpu_name(r, name, sizeof(name));
    tn_html_printf(h, "<g data-job=\"");
    tn_html_text(h, cx->name);
    tn_html_printf(h, "\" data-started=\"");
    tn_html_text(h, r->started);
    tn_html_printf(h, "\" data-ms=\"");
    tn_html_num(h, r->fastest);
    tn_html_printf(h, "\" data-regressed=\"%d\">", nr);
    if (nr > 0)
      tn_html_printf(h, "<path class=\"reg\" d=\"M%.2f %.2fl7 12h-14z\"/>",
                     px, py - 16);
    tn_html_printf(h, "<circle class=\"st-ok\" cx=\"%.2f\" cy=\"%.2f\" "
                      "r=\"4\"><title>",
                   px, py);
    tn_html_text(h, name);
    tn_html_printf(h, ", ");
    tn_html_text(h, r->started);
    tn_html_printf(h, ": ");
    tn_html_num(h, r->fastest);
    tn_html_printf(h, " ms; %d regressed</title></circle></g>\n", nr);
  }
  tn_svg_end(h);
  snprintf(id, sizeof(id), "hist-%d-tab", n);
  tn_html_table(h, id, "Nights", "GPU", "started", "fastest (ms)",
                "winner (ms)", "baseline (ms)", "regressed configurations",
                "against", NULL);
  for (i = 0; i < rs->n; i++) {
    const mg_run *r = rs->r[i], *before;
    int nr;
    if (r->arch != arch || r->predicted || !(r->fastest > 0))
      continue;
    nr = regressed(rs, r, &before);
    gpu_name(r, name, sizeof(name));
    tn_html_tr(h);
    tn_html_td(h, name);
    tn_html_td(h, r->started);
    tn_html_td_num(h, r->fastest);
    tn_html_td_num(h, r->best >= 0 ? r->cands[r->best].ms : NAN);
    tn_html_td_num(h, r->baseline_ms > 0 ? r->baseline_ms : NAN);
    tn_html_td_int(h, nr);
    tn_html_td(h, before ? before->started : "no earlier night");
    tn_html_tr_end(h);
  }
  tn_html_table_end(h);
  if (regs == 0)
    tn_html_printf(h, "<p>No regression.</p>\n");
}

int tn_report_fleet(tn_html *h, mg_runs *runs, int n_inputs, tn_err *err)
{
  jobs js;
  int j, a, rc, n = 0;

  memset(&js, 0, sizeof(js));
  rc = make_jobs(runs, &js, err);
  if (rc == 0) {
    tn_html_printf(h, "<p>%d results files (%d given, %d from the "
                      "history), %d jobs.</p>\n",
                   runs->n, n_inputs, runs->n - n_inputs, js.n);
    matrix(h, &js);
    tn_html_printf(h, "<section id=\"history\" aria-labelledby=\"hist-h\">"
                      "\n<h2 id=\"hist-h\">Nightly history</h2>\n");
    for (j = 0; j < js.n; j++)
      for (a = tn_fleet_n_archs() - 1; a >= 0; a--)
        nights(h, js.cx[j], tn_arch_at(a), n++);
    tn_html_printf(h, "</section>\n");
  }
  jobs_free(&js);
  return rc;
}

/* svg.c -- scales, axes and the chart element of the report's inline SVG
 * charts; the charts themselves are drawn in run.c and fleet.c. */
#include "report/svg.h"

#include <math.h>
#include <stdio.h>

static double nice_step(double span)
{
  double raw = span / 6.0, mag, f;
  if (!(raw > 0))
    return 1;
  mag = pow(10, floor(log10(raw)));
  f = raw / mag;
  if (f <= 1)
    return mag;
  if (f <= 2)
    return 2 * mag;
  if (f <= 5)
    return 5 * mag;
  return 10 * mag;
}

void tn_axis_init(tn_axis *ax, double lo, double hi, int log, int zero,
                  double a, double b)
{
  ax->a = a;
  ax->b = b;
  ax->log = log && lo > 0;
  if (!(hi > lo)) {
    double d = fabs(lo) > 0 ? fabs(lo) * 0.1 : 1;
    lo -= d;
    hi += d;
    if (ax->log && lo <= 0)
      lo = hi / 100;
  }
  if (ax->log) {
    ax->lo = pow(10, floor(log10(lo)));
    ax->hi = pow(10, ceil(log10(hi)));
    if (ax->hi <= ax->lo)
      ax->hi = ax->lo * 10;
  } else {
    double st;
    if (zero && lo > 0)
      lo = 0;
    st = nice_step(hi - lo);
    ax->lo = floor(lo / st) * st;
    ax->hi = ceil(hi / st) * st;
    if (ax->hi <= ax->lo)
      ax->hi = ax->lo + st;
  }
}

double tn_axis_px(const tn_axis *ax, double v)
{
  double f;
  if (ax->log)
    f = (log10(v > 0 ? v : ax->lo) - log10(ax->lo)) /
        (log10(ax->hi) - log10(ax->lo));
  else
    f = (v - ax->lo) / (ax->hi - ax->lo);
  return ax->a + f * (ax->b - ax->a);
}

void tn_svg_begin(tn_html *h, const char *id, int w, int ht,
                  const char *title, const char *desc)
{
  tn_html_printf(h,
                 "<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
                 "role=\"img\" aria-labelledby=\"%s-t %s-d\" viewBox=\"0 0 "
                 "%d %d\" width=\"%d\" height=\"%d\">\n<title id=\"%s-t\">",
                 id, id, id, w, ht, w, ht, id);
  tn_html_text(h, title);
  tn_html_printf(h, "</title>\n<desc id=\"%s-d\">", id);
  tn_html_text(h, desc);
  tn_html_printf(h, "</desc>\n");
}

void tn_svg_end(tn_html *h)
{
  tn_html_printf(h, "</svg>\n");
}

/* The ticks of ax: its decades (with 2 and 5 when few), or round steps. */
static int ticks(const tn_axis *ax, double *t, int max)
{
  int n = 0;
  if (ax->log) {
    double d, decades = log10(ax->hi) - log10(ax->lo);
    for (d = ax->lo; d <= ax->hi * 1.0001 && n < max; d *= 10) {
      t[n++] = d;
      if (decades <= 2 && d * 2 <= ax->hi && n + 2 < max) {
        t[n++] = d * 2;
        t[n++] = d * 5;
      }
    }
  } else {
    double st = nice_step(ax->hi - ax->lo), v;
    int i;
    for (i = 0; n < max; i++) {
      v = ax->lo + i * st;
      if (v > ax->hi + st * 1e-6)
        break;
      t[n++] = fabs(v) < st * 1e-9 ? 0 : v;
    }
  }
  return n;
}

void tn_svg_xaxis(tn_html *h, const tn_axis *x, double c0, double c1,
                  const char *label)
{
  double t[64];
  int i, n = ticks(x, t, 64);
  tn_html_printf(h, "<g aria-hidden=\"true\">");
  for (i = 0; i < n; i++) {
    double px = tn_axis_px(x, t[i]);
    tn_html_printf(h,
                   "<line class=\"gr\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                   "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"middle\">%.4g</text>",
                   px, c0, px, c1, px, c0 + 15, t[i]);
  }
  tn_html_printf(h,
                 "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                 "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
                 "text-anchor=\"middle\">",
                 x->a, c0, x->b, c0, (x->a + x->b) / 2, c0 + 32);
  tn_html_text(h, label);
  tn_html_printf(h, "</text></g>\n");
}

void tn_svg_yaxis(tn_html *h, const tn_axis *y, double c0, double c1,
                  const char *label)
{
  double t[64];
  int i, n = ticks(y, t, 64);
  tn_html_printf(h, "<g aria-hidden=\"true\">");
  for (i = 0; i < n; i++) {
    double py = tn_axis_px(y, t[i]);
    tn_html_printf(h,
                   "<line class=\"gr\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                   "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"end\">%.4g</text>",
                   c0, py, c1, py, c0 - 5, py + 4, t[i]);
  }
  tn_html_printf(h,
                 "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                 "y2=\"%.1f\"/><text transform=\"translate(14 %.1f) "
                 "rotate(-90)\" text-anchor=\"middle\">",
                 c0, y->a, c0, y->b, (y->a + y->b) / 2);
  tn_html_text(h, label);
  tn_html_printf(h, "</text></g>\n");
}

void tn_svg_key(tn_html *h, const char *cls, const char *text)
{
  tn_html_printf(h, "<span><svg class=\"sw\" viewBox=\"0 0 10 10\" "
                    "aria-hidden=\"true\"><rect class=\"%s\" width=\"10\" "
                    "height=\"10\"/></svg>",
                 cls);
  tn_html_text(h, text);
  tn_html_printf(h, "</span>");
}

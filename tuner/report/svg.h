/* svg.h -- inline SVG charts for the report: scales, axes with ticks and
 * grid, and the chart element with its text alternative (<title>,
 * <desc>, role="img", aria-labelledby).  Private to tuner/report/. */
#ifndef TN_REPORT_SVG_H
#define TN_REPORT_SVG_H

#include "report/html.h"

/* Data in [lo, hi] onto pixels [a, b] (b < a for a y axis), linear or
 * logarithmic (lo > 0). */
typedef struct {
  double lo, hi, a, b;
  int log;
} tn_axis;

/* An axis over the data [lo, hi]: a linear one is widened to round ticks
 * (and to 0 when zero is set), a logarithmic one to whole decades. */
void tn_axis_init(tn_axis *ax, double lo, double hi, int log, int zero,
                  double a, double b);
double tn_axis_px(const tn_axis *ax, double v);

/* <svg> of w x ht user units, labelled by its title and description
 * (text, escaped); id must be unique in the page. */
void tn_svg_begin(tn_html *h, const char *id, int w, int ht,
                  const char *title, const char *desc);
void tn_svg_end(tn_html *h);
/* Ticks, labels and grid lines across [c0, c1] of the other axis, and the
 * axis' label (text). */
void tn_svg_xaxis(tn_html *h, const tn_axis *x, double c0, double c1,
                  const char *label);
void tn_svg_yaxis(tn_html *h, const tn_axis *y, double c0, double c1,
                  const char *label);
/* A legend swatch (class st-...) and its text, for the HTML around. */
void tn_svg_key(tn_html *h, const char *cls, const char *text);

#endif

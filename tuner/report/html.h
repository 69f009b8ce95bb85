/* html.h -- the report's document: a growing buffer, the one escaping
 * rule for text from results files, the page (head, CSS for both themes
 * and print), tables and number formatting.  Private to tuner/report/. */
#ifndef TN_REPORT_HTML_H
#define TN_REPORT_HTML_H

#include <stddef.h>

#include "base/util.h"

typedef struct {
  char *s;
  size_t n, cap;
  int oom; /* set when a write failed: the document is incomplete */
} tn_html;

/* Markup, formatted (never text from a results file: see tn_html_text). */
void tn_html_printf(tn_html *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Text escaped for HTML and SVG, in content and in quoted attributes:
 * & < > " ' become entities; other control characters but tab and
 * newline become U+FFFD.  The only way text from input reaches the page. */
void tn_html_text(tn_html *h, const char *s);
/* A number as the page shows it (in tables and data attributes alike):
 * "%.6g", or "" for NaN. */
void tn_html_num(tn_html *h, double v);

/* The page up to <body><main>, and its end. */
void tn_html_begin(tn_html *h, const char *title);
void tn_html_end(tn_html *h);

/* A table with a caption and column heads (NULL-terminated); cells are
 * written with tn_html_td* between tn_html_tr and tn_html_tr_end. */
void tn_html_table(tn_html *h, const char *id, const char *caption, ...);
void tn_html_table_end(tn_html *h);
void tn_html_tr(tn_html *h);
void tn_html_tr_end(tn_html *h);
void tn_html_td(tn_html *h, const char *text);   /* escaped */
void tn_html_td_num(tn_html *h, double v);        /* right-aligned */
void tn_html_td_int(tn_html *h, long long v);

/* Frees the buffer. */
void tn_html_free(tn_html *h);

#endif

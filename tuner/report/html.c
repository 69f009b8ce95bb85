/* html.c -- the report's document: buffer, escaping, the page with its
 * CSS (light and dark themes by prefers-color-scheme, print), tables. */
#include "report/html.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(tn_html *h, size_t more)
{
  size_t cap;
  char *s;
  if (h->oom)
    return -1;
  if (h->n + more + 1 <= h->cap)
    return 0;
  cap = h->cap ? h->cap : 65536;
  while (cap < h->n + more + 1)
    cap *= 2;
  s = realloc(h->s, cap);
  if (s == NULL) {
    h->oom = 1;
    return -1;
  }
  h->s = s;
  h->cap = cap;
  return 0;
}

static void put(tn_html *h, const char *s, size_t len)
{
  if (reserve(h, len) != 0)
    return;
  memcpy(h->s + h->n, s, len);
  h->n += len;
  h->s[h->n] = '\0';
}

void tn_html_printf(tn_html *h, const char *fmt, ...)
{
  va_list ap;
  int w;
  va_start(ap, fmt);
  w = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (w < 0 || reserve(h, (size_t)w) != 0) {
    h->oom = 1;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(h->s + h->n, (size_t)w + 1, fmt, ap);
  va_end(ap);
  h->n += (size_t)w;
}

void tn_html_text(tn_html *h, const char *s)
{
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  for (; *p; p++) {
    switch (*p) {
    case '&':
      put(h, "&amp;", 5);
      break;
    case '<':
      put(h, "&lt;", 4);
      break;
    case '>':
      put(h, "&gt;", 4);
      break;
    case '"':
      put(h, "&quot;", 6);
      break;
    case '\'':
      put(h, "&#39;", 5);
      break;
    default:
      if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
        put(h, "\xef\xbf\xbd", 3);
      else
        put(h, (const char *)p, 1);
    }
  }
}

void tn_html_num(tn_html *h, double v)
{
  if (isfinite(v))
    tn_html_printf(h, "%.6g", v);
}

static const char css[] =
":root{--bg:#fff;--fg:#1b1b1f;--mute:#5d5d66;"
"--grid:#d4d4da;--ok:#2f6fb0;--win:#c25400;--tie:#e69a3c;--pruned:#8a5fb5;"
"--excluded:#9b9ba3;--compile:#b8860b;--wrong:#c0143c;--failed:#6b1010;"
"--base:#1a8f4a;--reg:#d0021b;--cell:#eef3fa}\n"
"@media (prefers-color-scheme:dark){:root{--bg:#15161a;--fg:#e6e6ea;"
"--mute:#a0a0aa;--grid:#3a3b42;--ok:#6aa8e8;--win:#ff9a3d;--tie:#ffc77a;"
"--pruned:#b995e0;--excluded:#70707a;--compile:#e0b84a;--wrong:#ff5c7a;"
"--failed:#ff8f8f;--base:#4cd383;--reg:#ff4b5c;--cell:#1f2733}}\n"
"body{background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,"
"sans-serif;margin:0}main{max-width:1180px;margin:0 auto;padding:1em}\n"
"h1{font-size:1.6em}h2{border-bottom:2px solid var(--grid);margin-top:2em}"
"h3{margin-top:1.5em}\n"
"table{border-collapse:collapse;margin:.5em 0 1.2em;font-size:.9em}"
"caption{text-align:left;font-weight:600;padding:.3em 0}"
"th,td{border:1px solid var(--grid);padding:.15em .5em;text-align:left;"
"vertical-align:top}td.n{text-align:right;font-variant-numeric:"
"tabular-nums}th{background:var(--cell)}\n"
"code,.p{font-family:ui-monospace,monospace;font-size:.85em;"
"overflow-wrap:anywhere}\n"
"svg{display:block;width:100%;height:auto;margin:.5em 0}"
"svg text{fill:var(--fg);font:12px system-ui,sans-serif}"
"svg .ax{stroke:var(--mute);stroke-width:1}svg .gr{stroke:var(--grid);"
"stroke-width:1}\n"
".st-ok{fill:var(--ok)}.st-win{fill:var(--win)}.st-tie{fill:var(--tie)}"
".st-pruned{fill:var(--pruned)}.st-excluded{fill:var(--excluded)}"
".st-compile_error{fill:var(--compile)}.st-wrong{fill:var(--wrong)}"
".st-failed{fill:var(--failed)}.st-other{fill:var(--mute)}"
".bl{stroke:var(--base);stroke-width:2;stroke-dasharray:6 3}"
".bl-t{fill:var(--base)}.hl{fill:none;stroke-width:2}"
".reg{fill:var(--reg)}svg.sw{display:inline-block;width:.9em;height:.9em;"
"vertical-align:-.1em;margin-right:.3em;border-radius:2px}\n"
".key span{margin-right:1.2em;white-space:nowrap}.mute{color:var(--mute)}"
".warn{color:var(--reg)}"
"td.measured{background:var(--cell)}figure{margin:0}"
".grid{display:grid;grid-template-columns:repeat(auto-fill,"
"minmax(360px,1fr));gap:.5em 1.5em}\n"
"@media print{body{background:#fff;color:#000;font-size:10pt}"
"main{max-width:none;padding:0}section{break-inside:avoid-page}"
"table{break-inside:auto}tr{break-inside:avoid}"
"svg{max-height:24cm;break-inside:avoid}h2{break-before:page}"
"h2:first-of-type{break-before:auto}}\n";

void tn_html_begin(tn_html *h, const char *title)
{
  tn_html_printf(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                    "<meta charset=\"utf-8\">\n"
                    "<meta name=\"color-scheme\" content=\"light dark\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, "
                    "initial-scale=1\">\n<title>");
  tn_html_text(h, title);
  tn_html_printf(h, "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
                    "<main>\n<h1>",
                 css);
  tn_html_text(h, title);
  tn_html_printf(h, "</h1>\n");
}

void tn_html_end(tn_html *h)
{
  tn_html_printf(h, "<footer class=\"mute\"><p>Written by tuner %s "
                    "(tuner report). Every chart's numbers are in the "
                    "table after it.</p></footer>\n</main>\n</body>\n"
                    "</html>\n",
                 TN_VERSION);
}

void tn_html_table(tn_html *h, const char *id, const char *caption, ...)
{
  va_list ap;
  const char *head;
  tn_html_printf(h, "<table id=\"%s\">\n<caption>", id);
  tn_html_text(h, caption);
  tn_html_printf(h, "</caption>\n<thead><tr>");
  va_start(ap, caption);
  for (head = va_arg(ap, const char *); head != NULL;
       head = va_arg(ap, const char *)) {
    tn_html_printf(h, "<th scope=\"col\">");
    tn_html_text(h, head);
    tn_html_printf(h, "</th>");
  }
  va_end(ap);
  tn_html_printf(h, "</tr></thead>\n<tbody>\n");
}

void tn_html_table_end(tn_html *h)
{
  tn_html_printf(h, "</tbody>\n</table>\n");
}

void tn_html_tr(tn_html *h)
{
  tn_html_printf(h, "<tr>");
}

void tn_html_tr_end(tn_html *h)
{
  tn_html_printf(h, "</tr>\n");
}

void tn_html_td(tn_html *h, const char *text)
{
  tn_html_printf(h, "<td>");
  tn_html_text(h, text);
  tn_html_printf(h, "</td>");
}

void tn_html_td_num(tn_html *h, double v)
{
  tn_html_printf(h, "<td class=\"n\">");
  tn_html_num(h, v);
  tn_html_printf(h, "</td>");
}

void tn_html_td_int(tn_html *h, long long v)
{
  tn_html_printf(h, "<td class=\"n\">%lld</td>", v);
}

void tn_html_free(tn_html *h)
{
  free(h->s);
  h->s = NULL;
  h->n = h->cap = 0;
}

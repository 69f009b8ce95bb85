/* progress.c -- a progress bar on stderr, drawn only when it is a terminal.
 * Steps come from OpenMP threads, so they are counted in a critical
 * section; redraws are limited to about 20 per second. */
#define _POSIX_C_SOURCE 200809L
#include "base/progress.h"

#include <stdio.h>
#include <unistd.h>

#include "base/util.h"

void tn_progress_start(tn_progress *p, const char *label, int total,
                       int quiet)
{
  p->label = label;
  p->total = total;
  p->done = 0;
  p->enabled = !quiet && isatty(STDERR_FILENO);
  p->start = p->last_draw = tn_now();
}

static void draw(tn_progress *p, const char *what)
{
  int width = 30, filled = p->total ? p->done * width / p->total : width, i;
  char bar[64];
  for (i = 0; i < width; i++)
    bar[i] = i < filled ? '#' : '.';
  bar[width] = '\0';
  fprintf(stderr, "\r\033[K%-8s [%s] %d/%d %5.1fs %.40s", p->label, bar,
          p->done, p->total, tn_now() - p->start, what ? what : "");
  fflush(stderr);
}

void tn_progress_step(tn_progress *p, const char *what)
{
#pragma omp critical(tn_progress)
  {
    double now;
    p->done++;
    now = tn_now();
    if (p->enabled && (now - p->last_draw > 0.05 || p->done == p->total)) {
      p->last_draw = now;
      draw(p, what);
    }
  }
}

void tn_progress_end(tn_progress *p)
{
  if (p->enabled) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
  }
}

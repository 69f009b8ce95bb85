/* progress.h -- a progress bar on stderr, drawn only when it is a terminal. */
#ifndef TN_PROGRESS_H
#define TN_PROGRESS_H

typedef struct {
  const char *label;
  int total, done;
  int enabled;   /* stderr is a terminal and the user did not ask quiet */
  double start, last_draw;
} tn_progress;

/* Starts a bar; enabled only if stderr is a terminal and !quiet. */
void tn_progress_start(tn_progress *p, const char *label, int total,
                       int quiet);
/* Counts one more item done (thread-safe) and redraws now and then. */
void tn_progress_step(tn_progress *p, const char *what);
/* Clears the bar's line. */
void tn_progress_end(tn_progress *p);

#endif

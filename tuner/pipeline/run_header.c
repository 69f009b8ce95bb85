/* run_header.c -- the header of a run's winner: the run as the plain
 * entry tuner/emit/ writes (run_header.h). */
#include "pipeline/run_header.h"

#include <stdio.h>
#include <string.h>

#include "emit/emit.h"
#include "pipeline/baselines.h"

/* Why size k's winner of run: its time there against the single best's
 * and the baseline's. */
static void size_why(const tn_run *run, int k, char *out, size_t n)
{
  const tn_selection *s = &run->sel_size[k];
  const tn_candidate *w = &run->space.c[s->best];
  const tn_candidate *one = &run->space.c[run->sel.best];
  double ms = w->timing[k].median_ms, one_ms = one->timing[k].median_ms;
  size_t used;
  used = (size_t)snprintf(out, n,
                          "candidate %d, %.4f ms%s; the single best %.4f ms "
                          "there (%+.1f%%)",
                          w->id, ms, s->n_ties > 1 ? " (among ties)" : "",
                          one_ms, 100.0 * (one_ms / ms - 1.0));
  /* the baseline as timed nearest to the winner (baselines.h) */
  if (used < n && tn_baselines_ms(run, w, k) > 0)
    snprintf(out + used, n - used, "; %.1f%% of %s",
             100.0 * tn_baselines_ms(run, w, k) / ms,
             run->baselines[0].name);
}

/* The entry of run's single best, with its storage. */
typedef struct {
  tn_header_entry e;
  tn_header_size sizes[TN_MAX_SIZES];
  char winner[160], median[256], problems[512];
  char whys[TN_MAX_SIZES][256];
} run_entry;

static int entry_of(const tn_run *run, run_entry *h, tn_err *err)
{
  const tn_job *job = run->job;
  const tn_candidate *c;
  tn_header_entry *e = &h->e;
  size_t used;
  int k;

  if (run->sel.best < 0)
    return tn_errf(err, TN_ETOOL, "no verified candidate to write a header of");
  c = &run->space.c[run->sel.best];
  snprintf(h->winner, sizeof(h->winner),
           "candidate %d, the fastest verified%s%s", c->id,
           job->n_problems > 1 ? " over all sizes (the single best)" : "",
           run->sel.n_ties > 1 ? "; chosen among ties within noise" : "");
  if (tn_baselines_ms(run, c, -1) > 0)
    snprintf(h->median, sizeof(h->median),
             "median %.4f ms = %.1f%% of %s (%.4f ms, same run, timed "
             "nearest to it)",
             c->total_ms, 100.0 * tn_baselines_ms(run, c, -1) / c->total_ms,
             run->baselines[0].name, tn_baselines_ms(run, c, -1));
  else
    snprintf(h->median, sizeof(h->median), "median %.4f ms", c->total_ms);
  used = (size_t)snprintf(h->problems, sizeof(h->problems), "problems:");
  for (k = 0; k < job->n_problems && used < sizeof(h->problems); k++) {
    char one[128];
    tn_size_format(&job->problems[k].size, one, sizeof(one));
    used += (size_t)snprintf(h->problems + used, sizeof(h->problems) - used,
                             " %s", one);
  }
  memset(e, 0, sizeof(*e));
  e->family = job->family;
  e->name = job->name;
  e->arch = run->have_device ? run->device.arch : run->arch->name;
  e->devices = run->have_device ? run->device.name : "no device";
  e->date = run->finished[0] ? run->finished : run->started;
  e->origin = job->path;
  e->why[0] = h->winner;
  e->why[1] = h->median;
  e->why[2] = h->problems;
  e->params = &c->params;
  e->problem = job->n_problems > 0 ? &job->problems[0] : NULL;
  /* the table by size: every size with a winner */
  for (k = 0; k < job->n_problems; k++) {
    const tn_selection *s = &run->sel_size[k];
    if (s->best < 0 || s->best >= run->space.n ||
        run->space.c[s->best].status != TN_ST_OK)
      break; /* all or none: a run that verified something timed every size */
    size_why(run, k, h->whys[k], sizeof(h->whys[k]));
    h->sizes[k].problem = &job->problems[k];
    h->sizes[k].params = &run->space.c[s->best].params;
    h->sizes[k].params_text = NULL;
    h->sizes[k].why = h->whys[k];
  }
  if (k == job->n_problems) {
    e->n_sizes = k;
    e->sizes = h->sizes;
  }
  return 0;
}

int tn_run_header_text(const tn_run *run, char **text, tn_err *err)
{
  run_entry h;
  int rc = entry_of(run, &h, err);
  return rc ? rc : tn_emit_arch_header_text(&h.e, text, err);
}

int tn_run_header_write(const tn_run *run, tn_err *err)
{
  run_entry h;
  int rc = entry_of(run, &h, err);
  return rc ? rc : tn_emit_arch_header(&h.e, run->header_path, err);
}

/* summary.c -- what a run prints when it ends (summary.h). */
#include "pipeline/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/baselines.h"
#include "pipeline/results.h"
#include "pipeline/throttle.h"

/* The row of candidate i (and the line of its reason). */
static void print_row(const tn_run *run, int i, FILE *out)
{
  const tn_family *f = run->job->family;
  const tn_candidate *c = &run->space.c[i];
  char ptxt[512], model[16] = "-", deg[16] = "-", regs[24] = "-",
                  ms[16] = "-", rate[16] = "-", pct[16] = "-";
  tn_params_format(f->params, f->n_params, &c->params, ptxt, sizeof(ptxt));
  /* a described kernel without a plan has no wavefronts, not 0 */
  if (f->plan != NULL && tn_candidate_modelled(c)) {
    snprintf(model, sizeof(model), "%.1f",
             tn_model_wavefronts_per_block(&c->model[0]));
    snprintf(deg, sizeof(deg), "%d", c->model[0].max_degree);
  }
  /* spilled registers cost local-memory traffic the plan does not
   * price: the bytes stored are shown beside the count */
  if (c->regs > 0 && c->spill_stores > 0)
    snprintf(regs, sizeof(regs), "%d+%dB", c->regs, c->spill_stores);
  else if (c->regs > 0)
    snprintf(regs, sizeof(regs), "%d", c->regs);
  if (c->status == TN_ST_OK) {
    snprintf(ms, sizeof(ms), "%.4f", c->total_ms);
    snprintf(rate, sizeof(rate), "%.1f",
             tn_family_rate(f, run->job->problems, run->job->n_problems,
                            c->total_ms));
    /* against the baseline timed nearest to it (baselines.h) */
    if (tn_baselines_ms(run, c, -1) > 0)
      snprintf(pct, sizeof(pct), "%.1f",
               100.0 * tn_baselines_ms(run, c, -1) / c->total_ms);
  }
  fprintf(out, "%4d  %-52s %-13s %9s %3s %7s %9s %9s %6s%s\n", c->id, ptxt,
          tn_status_name(c->status), model, deg, regs, ms, rate, pct,
          i == run->sel.best ? "  <- best" : "");
  if (c->status == TN_ST_PRUNED || c->status == TN_ST_WRONG ||
      c->status == TN_ST_FAILED || c->status == TN_ST_COMPILE_ERROR) {
    char why[121];
    const char *nl, *by;
    tn_strlcpy(why, c->reason, sizeof(why));
    nl = strchr(why, '\n');
    if (nl)
      why[nl - why] = '\0';
    /* "constraint: ...", unless the reason names its kind already */
    by = c->status == TN_ST_PRUNED ? tn_pruned_by_name(c->pruned_by) : "";
    if (*by && strncmp(why, by, strlen(by)) == 0)
      by = "";
    fprintf(out, "      %s%s%s\n", by, *by ? ": " : "", why);
  }
}

/* Orders candidate indices by their median (the timed ones), else by
 * their prediction (those with one), then by id; qsort has no context
 * pointer, hence the file-level space, one a thread. */
static _Thread_local const tn_space *rank_space;

/* 0: timed (by its median), 1: predicted and not pruned (by the
 * prediction), 2: neither. */
static int rank_tier(const tn_candidate *c)
{
  if (c->status == TN_ST_OK && c->total_ms > 0)
    return 0;
  if (c->status != TN_ST_PRUNED && c->status != TN_ST_WRONG &&
      c->status != TN_ST_FAILED && c->status != TN_ST_COMPILE_ERROR &&
      c->pred_total.ms > 0)
    return 1;
  return 2;
}

static int cmp_rank(const void *pa, const void *pb)
{
  const tn_candidate *a = &rank_space->c[*(const int *)pa];
  const tn_candidate *b = &rank_space->c[*(const int *)pb];
  int ta = rank_tier(a), tb = rank_tier(b);
  double x = ta == 0 ? a->total_ms : a->pred_total.ms;
  double y = tb == 0 ? b->total_ms : b->pred_total.ms;
  if (ta != tb)
    return ta < tb ? -1 : 1;
  if (ta < 2 && x != y)
    return x < y ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

/* A space too large for a row each: the count of each state, then the
 * rows of the most promising candidates (the timed ones by their median,
 * else the predicted by the prediction) and of the winner. */
static void print_summary(const tn_run *run, FILE *out)
{
  const tn_space *sp = &run->space;
  int by_status[8] = {0}, by_prune[8] = {0}, *order, i, shown = 0, st;
  for (i = 0; i < sp->n; i++) {
    by_status[sp->c[i].status & 7]++;
    if (sp->c[i].status == TN_ST_PRUNED)
      by_prune[sp->c[i].pruned_by & 7]++;
  }
  fprintf(out, "%d candidates (a row each: -v or --all-candidates):", sp->n);
  for (st = 0, shown = 0; st < 7; st++) {
    int by, n_by = 0;
    if (by_status[st] == 0)
      continue;
    fprintf(out, "%s %s %d", shown++ ? "," : "",
            tn_status_name((tn_status)st), by_status[st]);
    if (st != TN_ST_PRUNED)
      continue;
    fprintf(out, " (");
    for (by = 1; by < 8; by++)
      if (by_prune[by] > 0)
        fprintf(out, "%s%s %d", n_by++ ? ", " : "",
                tn_pruned_by_name((tn_pruned_by)by), by_prune[by]);
    fprintf(out, ")");
  }
  fprintf(out, "\n");
  order = malloc(sizeof(int) * (size_t)sp->n);
  if (order == NULL)
    return; /* the counts are said; the rows need memory */
  for (i = 0; i < sp->n; i++)
    order[i] = i;
  rank_space = sp;
  qsort(order, (size_t)sp->n, sizeof(int), cmp_rank);
  for (shown = 0; shown < sp->n && shown < TN_SUMMARY_TOP &&
                  rank_tier(&sp->c[order[shown]]) < 2;
       shown++)
    ;
  fprintf(out, "the %d most promising, %s:\n", shown,
          by_status[TN_ST_OK] > 0 ? "by their median, then by the time "
                                    "model's prediction"
                                  : "by the time model's prediction");
  for (i = 0; i < shown; i++)
    print_row(run, order[i], out);
  /* the winner, chosen among those within the noise of the fastest,
   * may rank lower than these */
  for (i = 0; i < shown && order[i] != run->sel.best; i++)
    ;
  if (run->sel.best >= 0 && i == shown)
    print_row(run, run->sel.best, out);
  free(order);
}

void tn_summary_table(const tn_run *run, FILE *out)
{
  const tn_family *f = run->job->family;
  const char *unit = f->unit;
  int i;

  fprintf(out, "%4s  %-52s %-13s %9s %3s %7s %9s %9s %6s\n", "id",
          "parameters", "status", "wf/block", "deg", "regs", "median_ms",
          unit, "%base");
  if (run->space.n <= TN_SUMMARY_ROWS || run->opts->verbose ||
      run->opts->all_candidates) {
    for (i = 0; i < run->space.n; i++)
      print_row(run, i, out);
  } else {
    print_summary(run, out);
  }
  for (i = 0; i < run->n_baselines && run->have_device; i++) {
    const tn_baseline_result *b = &run->baselines[i];
    if (b->status == TN_ST_OK)
      fprintf(out, "baseline %-10s %9.4f ms %9.1f %s (median of %d "
                   "timings)\n",
              b->name, b->total_ms,
              tn_family_rate(f, run->job->problems, run->job->n_problems,
                             b->total_ms),
              unit, b->n_meas);
    else
      fprintf(out, "baseline %-10s unavailable: %s\n", b->name, b->reason);
  }
}

void tn_summary_cost_line(const tn_run *run, FILE *out)
{
  tn_results_cost c = tn_results_cost_split(run);
  fprintf(out,
          "tuner: wall %.2f s = start-up %.2f + compile warm-up %.2f + "
          "compiling %.2f + verification %.2f + timed launches %.2f + "
          "other %.2f; %d launches, %d candidates raced out%s\n",
          run->wall_s, c.startup, c.warmup, c.compile, c.verify, c.timed,
          c.other, run->launches, run->raced_out,
          run->opts->full_protocol ? " (full protocol)" : "");
}

void tn_summary_budget_line(const tn_run *run, FILE *out)
{
  const tn_budget *b = &run->job->budget;
  char limit[64];
  int untimed = tn_space_count(&run->space, TN_ST_PENDING) +
                tn_space_count(&run->space, TN_ST_COMPILED);
  if (!run->budget_stopped)
    return;
  if (b->candidates > 0)
    snprintf(limit, sizeof(limit), "%d candidates", b->candidates);
  else
    snprintf(limit, sizeof(limit), "%g s", b->seconds);
  fprintf(out,
          "tuner: the budget (%s) stopped the benchmark: %d candidates "
          "timed, the most promising first; %d left untimed: continue with "
          "--resume %s (--budget none: all of them)\n",
          limit, run->budget_timed, untimed, run->results_path);
}

void tn_summary_sizes_line(const tn_run *run, FILE *out)
{
  const tn_job *job = run->job;
  int k;
  if (job->n_problems < 2)
    return;
  fprintf(out, "tuner: %d sizes [%s]:", job->n_problems,
          job->family->dim_names);
  for (k = 0; k < job->n_problems; k++) {
    char size[96];
    tn_size_format(&job->problems[k].size, size, sizeof(size));
    fprintf(out, " %s", size);
  }
  fprintf(out, "\n");
}

void tn_summary_size_lines(const tn_run *run, FILE *out)
{
  const tn_job *job = run->job;
  const tn_family *f = job->family;
  const tn_candidate *single =
      run->sel.best >= 0 ? &run->space.c[run->sel.best] : NULL;
  int k;
  if (job->n_problems < 2 || single == NULL)
    return;
  fprintf(out, "tuner: by size, each size's winner against the single best "
               "(candidate %d; +x%%: it is x%% slower there) and the %s "
               "baseline:\n",
          single->id, run->n_baselines > 0 ? run->baselines[0].name : "no");
  for (k = 0; k < job->n_problems; k++) {
    const tn_selection *s = &run->sel_size[k];
    const tn_size_cost *sc = &run->size_cost[k];
    const tn_baseline_result *b = tn_baselines_ref(run);
    char size[96], base[64] = "";
    double w, one, bms;
    tn_size_format(&job->problems[k].size, size, sizeof(size));
    if (s->best < 0)
      continue;
    w = run->space.c[s->best].timing[k].median_ms;
    one = single->timing[k].median_ms;
    bms = tn_baselines_ms(run, &run->space.c[s->best], k);
    if (b && bms > 0)
      snprintf(base, sizeof(base), ", %s %.4f ms (%.1f%%)", b->name, bms,
               100.0 * bms / w);
    fprintf(out,
            "tuner:   %-16s id %-5d %.4f ms %8.2f %s; single best %.4f ms "
            "(%+.1f%%)%s; %d launches, %d raced out, %.2f s timed\n",
            size, run->space.c[s->best].id, w,
            tn_family_rate(f, &job->problems[k], 1, w), f->unit, one,
            100.0 * (one / w - 1.0), base, sc->launches, sc->raced_out,
            sc->verify_s + sc->timed_s);
  }
}

void tn_summary_drift_lines(const tn_run *run, FILE *out)
{
  const tn_baseline_result *b = tn_baselines_ref(run);
  tn_throttle t;
  char line[768];
  if (!run->have_device)
    return;
  if (b != NULL) {
    const tn_baseline_measure *lo = &b->meas[0], *hi = &b->meas[0];
    int j;
    for (j = 1; j < b->n_meas; j++) {
      if (b->meas[j].total_ms < lo->total_ms)
        lo = &b->meas[j];
      if (b->meas[j].total_ms > hi->total_ms)
        hi = &b->meas[j];
    }
    fprintf(out,
            "tuner: baseline %s timed %d times over %.1f s: %.4f to %.4f "
            "ms (spread %.1f%%); each candidate is compared with the "
            "timing nearest to it\n",
            b->name, b->n_meas,
            b->meas[b->n_meas - 1].timed_at - b->meas[0].timed_at,
            lo->total_ms, hi->total_ms, 100.0 * tn_baselines_spread(b));
    if (run->sel.best >= 0) {
      const tn_candidate *c = &run->space.c[run->sel.best];
      const tn_baseline_measure *m = tn_baselines_for(run, c, &j);
      double mn = run->job->bench.min_noise;
      if (m != NULL)
        fprintf(out,
                "tuner: the best (id %d) is %.1f%% of %s as timed %.1f s "
                "%s it, noise %.1f%%: %s\n",
                c->id, 100.0 * m->total_ms / c->total_ms, b->name,
                fabs(c->timed_at - m->timed_at),
                m->timed_at >= c->timed_at ? "after" : "before",
                100.0 * tn_baselines_noise(run, c, -1, mn),
                tn_baselines_verdict(run, c, -1, mn));
    }
  }
  tn_throttle_judge(run, &t);
  tn_throttle_line(run, &t, line, sizeof(line));
  fprintf(out, "tuner: %s\n", line);
}

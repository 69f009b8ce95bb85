/* summary.c -- what a run prints when it ends (summary.h). */
#include "pipeline/summary.h"

#include <math.h>
#include <string.h>

#include "pipeline/baselines.h"
#include "pipeline/results.h"
#include "pipeline/throttle.h"

void tn_summary_table(const tn_run *run, FILE *out)
{
  const tn_family *f = run->job->family;
  const char *unit = f->unit;
  int i;

  fprintf(out, "%4s  %-52s %-13s %9s %3s %4s %9s %9s %6s\n", "id",
          "parameters", "status", "wf/block", "deg", "regs", "median_ms",
          unit, "%base");
  for (i = 0; i < run->space.n; i++) {
    const tn_candidate *c = &run->space.c[i];
    char ptxt[512], model[16] = "-", deg[16] = "-", regs[16] = "-",
                    ms[16] = "-", rate[16] = "-", pct[16] = "-";
    /* a described kernel without a plan has no wavefronts, not 0 */
    int modelled = f->plan != NULL && tn_candidate_modelled(c);
    tn_params_format(f->params, f->n_params, &c->params, ptxt, sizeof(ptxt));
    if (modelled) {
      snprintf(model, sizeof(model), "%.1f",
               tn_model_wavefronts_per_block(&c->model[0]));
      snprintf(deg, sizeof(deg), "%d", c->model[0].max_degree);
    }
    if (c->regs > 0)
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
    fprintf(out, "%4d  %-52s %-13s %9s %3s %4s %9s %9s %6s%s\n", c->id,
            ptxt, tn_status_name(c->status), model, deg, regs, ms, rate, pct,
            i == run->sel.best ? "  <- best" : "");
    if (c->status == TN_ST_PRUNED || c->status == TN_ST_WRONG ||
        c->status == TN_ST_FAILED || c->status == TN_ST_COMPILE_ERROR) {
      char why[121];
      const char *nl;
      tn_strlcpy(why, c->reason, sizeof(why));
      nl = strchr(why, '\n');
      if (nl)
        why[nl - why] = '\0';
      fprintf(out, "      %s%s%s\n",
              c->status == TN_ST_PRUNED ? tn_pruned_by_name(c->pruned_by) : "",
              c->status == TN_ST_PRUNED ? ": " : "", why);
    }
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

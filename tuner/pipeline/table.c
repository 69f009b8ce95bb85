/* table.c -- the table of candidates a run prints: each point with its
 * state, model, resources and measurements, the reason of each that did
 * not run, and the baselines. */
#include "pipeline/table.h"

#include <string.h>

void tn_run_print_table(const tn_run *run, FILE *out)
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
    int modelled = tn_candidate_modelled(c);
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
      if (run->n_baselines > 0 && run->baselines[0].status == TN_ST_OK)
        snprintf(pct, sizeof(pct), "%.1f",
                 100.0 * run->baselines[0].total_ms / c->total_ms);
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
      fprintf(out, "baseline %-10s %9.4f ms %9.1f %s\n", b->name,
              b->total_ms,
              tn_family_rate(f, run->job->problems, run->job->n_problems,
                             b->total_ms),
              unit);
    else
      fprintf(out, "baseline %-10s unavailable: %s\n", b->name, b->reason);
  }
}

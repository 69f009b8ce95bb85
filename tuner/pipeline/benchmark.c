/* benchmark.c -- a prepared run measured on a GPU worker (benchmark.h). */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/benchmark.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "pipeline/baselines.h"
#include "pipeline/journal.h"
#include "pipeline/measured.h"
#include "pipeline/precheck.h"
#include "pipeline/results.h"
#include "pipeline/select.h"

static unsigned long long job_seed(const tn_run *run, int id, int k)
{
  /* distinct inputs for every check, reproducible from the run's seed
   * (a fixed-inputs family: the same for a size's every check) */
  if (run->job->family->fixed_inputs)
    id = -1000;
  return run->seed ^ ((unsigned long long)(id + 2) * 0x9e3779b97f4a7c15ULL) ^
         ((unsigned long long)(k + 1) << 48);
}

/* Runs one job (of size k) on the worker and adds where its time went to
 * the run and to the size. */
static int run_job(tn_run *run, tn_worker *w, tn_bench_job *bj, int k,
                   const void *cubin, tn_bench_result *res, tn_err *err)
{
  const void *ref_cubin = bj->ref.cubin_len ? run->ref.cubin : NULL;
  tn_bench_steps *t = &run->steps;
  const tn_bench_steps *s = &res->steps;
  tn_size_cost *sc = &run->size_cost[k];
  double t0 = tn_now();
  int rc;
  bj->full = run->opts->full_protocol;
  rc = tn_worker_run(w, bj, cubin, ref_cubin, run->job->bench.timeout_s, res,
                     err);
  run->jobs_s += tn_now() - t0;
  t->setup_s += s->setup_s;
  t->load_s += s->load_s;
  t->inputs_s += s->inputs_s;
  t->check_s += s->check_s;
  t->verify_s += s->verify_s;
  t->warmup_s += s->warmup_s;
  t->timed_s += s->timed_s;
  t->total_s += s->total_s;
  sc->verify_s += s->inputs_s + s->check_s + s->verify_s;
  sc->timed_s += s->warmup_s + s->timed_s;
  if (rc == 0 && res->status == TN_BENCH_OK) {
    run->launches += res->timing.repetitions;
    sc->launches += res->timing.repetitions;
    sc->raced_out += res->raced_out;
  }
  return rc;
}

/* Where the benchmark stands on timing the baselines again. */
typedef struct {
  int timed;          /* candidates benchmarked in this run (resumed too) */
  int since;          /* of them, since the last measurement */
  double last_s;      /* the last measurement's end (tn_now) */
} retime_state;

/* Times baseline b once at every size: a measurement, appended to b and
 * journaled.  A baseline that fails before its first measurement is
 * failed for the run (and measured again by --resume); one that fails
 * later keeps its measurements, with a note.  Returns 0 or the worker's
 * or the journal's error. */
static int time_baseline(tn_run *run, tn_worker *w, FILE *journal, int i,
                         int after, tn_err *err)
{
  const tn_job *job = run->job;
  tn_baseline_result *b = &run->baselines[i];
  tn_baseline_measure m;
  double t0 = tn_wall_now();
  int k, rc;

  memset(&m, 0, sizeof(m));
  for (k = 0; k < job->n_problems; k++) {
    tn_bench_job bj;
    tn_bench_result res;
    memset(&bj, 0, sizeof(bj));
    bj.kind = TN_JOB_BASELINE;
    tn_strlcpy(bj.family, job->family->name, sizeof(bj.family));
    tn_strlcpy(bj.baseline, b->name, sizeof(bj.baseline));
    bj.problem = job->problems[k];
    bj.bench = job->bench;
    bj.seed = job_seed(run, -1 - i, k);
    /* a kernel of the user's runs as a candidate runs */
    if (tn_kernel_ref_baseline_job(job, &run->base, &run->ref, &bj, k,
                                   err) != 0)
      return TN_EINPUT;
    rc = run_job(run, w, &bj, k, run->base.cubin, &res, err);
    if (rc)
      return rc;
    if (res.status != TN_BENCH_OK) {
      if (b->n_meas > 0) {
        fprintf(stderr, "\ntuner: note: the baseline %s could not be timed "
                        "again (%s); its %d measurements stand\n",
                b->name, res.reason, b->n_meas);
        return 0;
      }
      b->status = TN_ST_FAILED;
      tn_strlcpy(b->reason, res.reason, sizeof(b->reason));
      if (tn_journal_append(journal, "baseline",
                            tn_results_baseline_line(run, b, -1), err) != 0)
        return TN_ETOOL;
      return 0;
    }
    m.timing[k] = res.timing;
    m.total_ms += res.timing.median_ms;
    tn_clocks_merge(&m.clocks, &res.clocks);
  }
  m.timed_at = 0.5 * (t0 + tn_wall_now());
  m.after = after;
  if (tn_baselines_add(b, &m) != 0)
    return tn_errf(err, TN_ETOOL, "out of memory");
  b->status = TN_ST_OK;
  b->reason[0] = '\0';
  if (tn_journal_append(journal, "baseline",
                        tn_results_baseline_line(run, b, b->n_meas - 1),
                        err) != 0)
    return TN_ETOOL;
  return 0;
}

/* Times every baseline once more: at the start (first: also one that a
 * resumed run restored as failed), through the run, at the end.  A
 * baseline that failed in this run is not tried again. */
static int time_baselines(tn_run *run, tn_worker *w, FILE *journal,
                          retime_state *rs, int first, tn_err *err)
{
  int i, rc;
  for (i = 0; i < run->n_baselines; i++) {
    if (!first && run->baselines[i].status != TN_ST_OK)
      continue;
    rc = time_baseline(run, w, journal, i, rs->timed, err);
    if (rc)
      return rc;
  }
  rs->since = 0;
  rs->last_s = tn_now();
  return 0;
}

/* 1 when the baselines are due again (bench.baseline_every_s,
 * bench.baseline_every). */
static int retime_due(const tn_run *run, const retime_state *rs)
{
  const tn_bench_settings *bs = &run->job->bench;
  if (rs->since == 0)
    return 0;
  return (bs->baseline_every > 0 && rs->since >= bs->baseline_every) ||
         (bs->baseline_every_s > 0 &&
          tn_now() - rs->last_s >= bs->baseline_every_s);
}

/* 1 if the job's budget (job.h) allows no more candidates: as many were
 * timed, or the run is as old. */
static int budget_spent(const tn_run *run)
{
  const tn_budget *b = &run->job->budget;
  return (b->candidates > 0 && run->budget_timed >= b->candidates) ||
         (b->seconds > 0 && tn_now() - run->t0 >= b->seconds);
}

/* Verifies and times one candidate on every problem; racing at each size
 * against that size's leader (select.h) unless --full-protocol. */
static int run_candidate(tn_run *run, tn_worker *w, tn_candidate *c,
                         tn_err *err)
{
  const tn_job *job = run->job;
  int k, rc, leader;
  double t0 = tn_wall_now();
  c->total_ms = 0;
  c->raced_out = 0;
  memset(&c->clocks, 0, sizeof(c->clocks));
  for (k = 0; k < job->n_problems; k++) {
    tn_bench_job bj;
    tn_bench_result res;
    memset(&bj, 0, sizeof(bj));
    bj.kind = TN_JOB_CANDIDATE;
    tn_strlcpy(bj.family, job->family->name, sizeof(bj.family));
    tn_strlcpy(bj.kernel, job->family->kernel, sizeof(bj.kernel));
    bj.candidate_id = c->id;
    bj.problem = job->problems[k];
    bj.params = c->params;
    job->family->launch(job->family, &c->params, &job->problems[k],
                        &bj.launch);
    bj.bench = job->bench;
    bj.seed = job_seed(run, c->id, k);
    bj.cubin_len = c->cubin_len;
    if (tn_kernel_ref_attach(job, &run->ref, &bj, k, err) != 0)
      return TN_EINPUT;
    leader = tn_select_leader(&run->space, k);
    if (leader >= 0 && !run->opts->full_protocol) {
      bj.race = 1;
      bj.stop_ms = tn_select_stop_ms(&run->space, leader, k,
                                     job->bench.min_noise);
    }
    rc = run_job(run, w, &bj, k, c->cubin, &res, err);
    if (rc)
      return rc;
    if (res.status != TN_BENCH_OK) {
      c->status = res.status == TN_BENCH_WRONG ? TN_ST_WRONG : TN_ST_FAILED;
      tn_candidate_set_reason(c, "%s", res.reason);
      return 0;
    }
    c->timing[k] = res.timing;
    c->total_ms += res.timing.median_ms;
    c->raced_out |= res.raced_out;
    tn_clocks_merge(&c->clocks, &res.clocks);
  }
  /* the middle of its jobs: what the baselines' times are compared with */
  c->timed_at = 0.5 * (t0 + tn_wall_now());
  c->status = TN_ST_OK;
  run->raced_out += c->raced_out;
  return 0;
}

/* At the first member of a group of the benchmark's order (order[start],
 * tn_select_order): waits for the compiles of all its members and decides
 * on them by the measured bound (measured.h) unless --no-prune.  *end
 * gets the group's end, *verdicts its end - start verdicts (malloc'd, the
 * previous ones freed; NULL: time them all).  Returns 0 or
 * tn_run_wait's error. */
static int decide_group(tn_run *run, const int *order, int start, int *end,
                        tn_measured_verdict **verdicts, tn_err *err)
{
  const tn_job *job = run->job;
  int j, rc;
  free(*verdicts);
  *verdicts = NULL;
  *end = tn_measured_group_end(job->family, &run->space, order,
                               run->space.n, start);
  if (run->opts->no_prune || job->family->plan == NULL)
    return 0;
  /* a group with nothing left to time (its points excluded by the
   * constraints, the model or the limits) needs no verdicts: deciding
   * walks every group of the order, and a space of 73,728 points has
   * thousands of such groups (gemm-wg-fp8.cfg: 76 s of a run's 88) */
  for (j = start; j < *end; j++) {
    tn_status st = run->space.c[order[j]].status;
    if (st == TN_ST_PENDING || st == TN_ST_COMPILED)
      break;
  }
  if (j == *end)
    return 0;
  /* the rules read every member's prediction with its registers */
  for (j = start; j < *end; j++) {
    rc = tn_run_wait(run, order[j], err);
    if (rc)
      return rc;
  }
  *verdicts = calloc((size_t)(*end - start), sizeof(**verdicts));
  if (*verdicts == NULL)
    return 0; /* an optimisation: without memory, time them all */
  tn_measured_decide(job->family, &run->space, order, run->space.n, start,
                     *end, job->n_problems, job->bench.min_noise, *verdicts);
  return 0;
}

int tn_benchmark_run(tn_run *run, tn_worker *w, tn_err *err)
{
  const tn_job *job = run->job;
  tn_progress bar;
  FILE *journal;
  int i, rc = 0, todo = tn_space_count(&run->space, TN_ST_COMPILED);
  int *order = malloc(sizeof(int) * (size_t)(run->space.n + 1));
  int group_start = 0, group_end = 0;
  tn_measured_verdict *verdicts = NULL;
  double t0 = tn_now(), last_write = t0; /* the file exists: measure() */
  retime_state rs;

  if (order == NULL ||
      tn_select_order(job->family, &run->space, order) != 0) {
    free(order);
    return tn_errf(err, TN_ETOOL, "out of memory");
  }
  journal = fopen(run->journal_path, "a");
  if (journal == NULL) {
    free(order);
    return tn_errf(err, TN_ETOOL, "open(%s): %s", run->journal_path,
                   strerror(errno));
  }
  if (!run->resumed &&
      (rc = tn_journal_append(
           journal, "run",
           json_pack("{s:s, s:s, s:s, s:I, s:s, s:s, s:o}", "family",
                     job->family->name, "name", job->name, "config",
                     job->path, "seed", (json_int_t)run->seed, "started",
                     run->started, "device",
                     run->have_device ? run->device.name : "", "identity",
                     tn_run_identity(run)),
           err)) != 0)
    goto done;
  memset(&rs, 0, sizeof(rs));
  rs.timed = run->resumed;
  /* a resumed run times them again unless nothing is left to time: its
   * candidates are compared with the baselines of their own time (left
   * to time: compiled, or still compiling in the background) */
  if (todo + tn_space_count(&run->space, TN_ST_PENDING) > 0 ||
      !run->resumed || run->n_baselines == 0 ||
      run->baselines[0].n_meas == 0) {
    rc = time_baselines(run, w, journal, &rs, 1, err);
    if (rc)
      goto done;
  }
  tn_progress_start(&bar, "bench", todo, run->opts->quiet);
  for (i = 0; i < run->space.n; i++) {
    /* likely winners first (select.h), so the leader is known early */
    tn_candidate *c = &run->space.c[order[i]];
    if (budget_spent(run)) {
      /* the rest stay untimed, as many as the space has left: --resume
       * continues with them */
      run->budget_stopped = tn_space_count(&run->space, TN_ST_COMPILED) +
                                tn_space_count(&run->space,
                                               TN_ST_PENDING) >
                            0;
      break;
    }
    if (i == group_end) {
      group_start = i;
      rc = decide_group(run, order, i, &group_end, &verdicts, err);
      if (rc)
        break;
    }
    rc = tn_run_wait(run, order[i], err); /* compiled in the background */
    if (rc)
      break;
    if (c->status != TN_ST_COMPILED)
      continue;
    if (verdicts != NULL && verdicts[i - group_start].prune) {
      c->status = TN_ST_PRUNED;
      c->pruned_by = TN_BY_MEASURED;
      tn_candidate_set_reason(c, "%s", verdicts[i - group_start].reason);
      run->pruned_by_measured++;
      tn_progress_step(&bar, "");
      continue;
    }
    if (tn_interrupted()) {
      rc = tn_errf(err, TN_EINTR, "interrupted");
      break;
    }
    run->budget_timed++;
    /* the candidate is about to be benchmarked */
    rc = run_candidate(run, w, c, err);
    if (rc)
      break;
    rs.timed++;
    rs.since++;
    rc = tn_journal_append(journal, "candidate",
                           tn_results_candidate(run, c), err);
    if (rc != 0)
      break;
    /* the journal is current after every candidate; the results file at
     * most TN_RESULTS_EVERY_S behind it (a GEMM space's is 4 MB, and
     * rewriting it after each of 94 candidates cost 11 s of a run), and
     * whole at the end (measure()) */
    run->bench_s = tn_now() - t0;
    if (tn_now() - last_write >= TN_RESULTS_EVERY_S) {
      rc = tn_results_write(run, err);
      if (rc != 0)
        break;
      last_write = tn_now();
    }
    if (retime_due(run, &rs)) {
      rc = time_baselines(run, w, journal, &rs, 0, err);
      if (rc)
        break;
    }
    tn_progress_step(&bar, "");
  }
  tn_progress_end(&bar);
  /* and at the end, when candidates were timed since the last time */
  if (rc == 0 && rs.since > 0)
    rc = time_baselines(run, w, journal, &rs, 0, err);
done:
  run->bench_s = tn_now() - t0;
  fclose(journal);
  free(order);
  free(verdicts);
  return rc;
}

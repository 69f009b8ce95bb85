/* test_baselines.c -- a GPU that drifts, without one (issue 31, part 5):
 * the baselines timed through a run and each candidate against the
 * measurement nearest in time (pipeline/baselines.h), the noise of that
 * comparison with the baseline's spread in it; NVML's readings folded and
 * named (gpu/clocks.h), read back from JSON as untrusted input; and a
 * run judged throttled or steady (pipeline/throttle.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/baselines.h"
#include "pipeline/results_drift.h"
#include "pipeline/throttle.h"
#include "test_util.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static tn_baseline_measure measure(double ms, double at, unsigned mhz,
                                   unsigned long long reasons)
{
  tn_baseline_measure m;
  tn_clock_sample s;
  memset(&m, 0, sizeof(m));
  m.timing[0].median_ms = ms;
  m.timing[0].q1_ms = ms * 0.995;
  m.timing[0].q3_ms = ms * 1.005;
  m.timing[0].min_ms = ms * 0.99;
  m.timing[0].max_ms = ms * 1.01;
  m.timing[0].repetitions = 20;
  m.total_ms = ms;
  m.timed_at = at;
  memset(&s, 0, sizeof(s));
  s.sm_mhz = mhz;
  s.power_mw = reasons ? 700000 : 450000;
  s.reasons_known = 1;
  s.reasons = reasons;
  tn_clocks_add(&m.clocks, &s);
  return m;
}

/* c with its one problem's timing in *t (a space holds the per-problem
 * arrays of its candidates: candidate.h). */
static void candidate(tn_candidate *c, tn_timing *t, int id, double ms,
                      double at, unsigned mhz)
{
  tn_clock_sample s;
  memset(c, 0, sizeof(*c));
  memset(t, 0, sizeof(*t));
  c->timing = t;
  c->n_problems = 1;
  c->reason = "";
  c->id = id;
  c->status = TN_ST_OK;
  c->timing[0].median_ms = ms;
  c->timing[0].q1_ms = ms * 0.998;
  c->timing[0].q3_ms = ms * 1.002;
  c->timing[0].repetitions = 20;
  c->total_ms = ms;
  c->timed_at = at;
  memset(&s, 0, sizeof(s));
  s.sm_mhz = mhz;
  tn_clocks_add(&c->clocks, &s);
}

/* A run whose GPU slows by a half over 40 s: the baseline 1.0 ms at 0 s,
 * 1.2 at 20 s, 1.5 at 40 s; candidates at 1, 21 and 41 s, each 0.99 of
 * the baseline of its time. */
static void drifting_run(tn_run *run, tn_job *job)
{
  static tn_candidate c[3];
  static tn_timing t[3];
  tn_baseline_result *b = &run->baselines[0];
  tn_baseline_measure m;
  memset(run, 0, sizeof(*run));
  memset(job, 0, sizeof(*job));
  job->n_problems = 1;
  job->bench.min_noise = 0.01;
  run->job = job;
  run->have_device = 1;
  run->n_baselines = 1;
  b->status = TN_ST_OK;
  tn_strlcpy(b->name, "cublas", sizeof(b->name));
  m = measure(1.0, 1000.0, 1980, 0);
  CHECK_EQ_INT(tn_baselines_add(b, &m), 0);
  m = measure(1.2, 1020.0, 1600, 0x4);
  CHECK_EQ_INT(tn_baselines_add(b, &m), 0);
  m = measure(1.5, 1040.0, 1450, 0x4);
  CHECK_EQ_INT(tn_baselines_add(b, &m), 0);
  candidate(&c[0], &t[0], 0, 0.99 * 1.0, 1001.0, 1980);
  candidate(&c[1], &t[1], 1, 0.99 * 1.2, 1021.0, 1700);
  candidate(&c[2], &t[2], 2, 0.99 * 1.5, 1041.0, 1455);
  run->space.n = 3;
  run->space.c = c;
}

static void test_nearest(void)
{
  tn_run run;
  tn_job job;
  int i, j;
  drifting_run(&run, &job);
  /* the figure of the baseline is its median measurement */
  CHECK(NEAR(run.baselines[0].total_ms, 1.2));
  CHECK_EQ_INT(tn_baselines_nearest(&run.baselines[0], 0), 1);
  CHECK(NEAR(tn_baselines_spread(&run.baselines[0]), 0.5));
  for (i = 0; i < 3; i++) {
    const tn_candidate *c = &run.space.c[i];
    CHECK(tn_baselines_for(&run, c, &j) != NULL);
    CHECK_EQ_INT(j, i);
    /* each is 101% of its own time's baseline, whatever the drift; with
     * the first timing alone the last would be 67% */
    CHECK(fabs(100.0 * tn_baselines_ms(&run, c, -1) / c->total_ms -
               100.0 / 0.99) < 1e-9);
    CHECK(NEAR(tn_baselines_ms(&run, c, 0), tn_baselines_ms(&run, c, -1)));
  }
  /* the noise: the baseline moved 20% (0 -> 20 s) and 25% (20 -> 40 s)
   * around the first two; the last has no timing after it: the
   * timing's spread (1%) */
  CHECK(NEAR(tn_baselines_noise(&run, &run.space.c[0], -1, 0.01), 0.2));
  CHECK(NEAR(tn_baselines_noise(&run, &run.space.c[1], -1, 0.01), 0.25));
  CHECK(NEAR(tn_baselines_noise(&run, &run.space.c[2], -1, 0.01), 0.01));
  CHECK(strcmp(tn_baselines_verdict(&run, &run.space.c[0], -1, 0.01),
               "within noise") == 0);
  /* 1% faster than a steady baseline: within the 1% minimum it is not */
  CHECK(strcmp(tn_baselines_verdict(&run, &run.space.c[2], -1, 0.001),
               "faster") == 0);
  /* a candidate without a time (a journal before them): the median
   * timing, and the whole spread in its noise */
  run.space.c[1].timed_at = 0;
  CHECK(tn_baselines_for(&run, &run.space.c[1], &j) != NULL);
  CHECK_EQ_INT(j, 1);
  CHECK(NEAR(tn_baselines_noise(&run, &run.space.c[1], -1, 0.01), 0.5));
  /* no reference baseline: nothing to compare with */
  run.baselines[0].status = TN_ST_FAILED;
  CHECK(tn_baselines_for(&run, &run.space.c[0], &j) == NULL);
  CHECK_EQ_INT(j, -1);
  CHECK(tn_baselines_ms(&run, &run.space.c[0], -1) == 0.0);
  run.baselines[0].status = TN_ST_OK;
  free(run.baselines[0].meas);
}

static void test_throttle(void)
{
  tn_run run;
  tn_job job;
  tn_throttle t;
  char line[512];
  drifting_run(&run, &job);
  tn_throttle_judge(&run, &t);
  CHECK(t.known);
  CHECK(t.throttled);
  CHECK_EQ_INT(t.start_mhz, 1980);
  CHECK_EQ_INT(t.min_mhz, 1450);
  CHECK_EQ_INT(t.baselines, 3);
  CHECK_EQ_INT(t.baselines_throttled, 2);    /* sw_power_cap */
  CHECK_EQ_INT(t.candidates, 3);
  CHECK_EQ_INT(t.candidates_throttled, 2);   /* 1700 and 1455 < 1782 */
  CHECK(t.reasons == TN_CLOCKS_SW_POWER_CAP);
  tn_throttle_line(&run, &t, line, sizeof(line));
  CHECK(strstr(line, "THROTTLED: 2 of 3 candidates and 2 of 3 baseline") ==
        line);
  CHECK(strstr(line, "sw_power_cap") != NULL);
  CHECK(strstr(line, "1980 MHz at the start, down to 1450 MHz") != NULL);
  /* steady: every clock within 10% of the start, no reason */
  run.baselines[0].meas[1] = measure(1.0, 1020.0, 1950, 0);
  run.baselines[0].meas[2] = measure(1.0, 1040.0, 1790, 0);
  run.space.c[1].clocks.sm_mhz_min = 1900;
  run.space.c[2].clocks.sm_mhz_min = 1800;
  tn_throttle_judge(&run, &t);
  CHECK(!t.throttled);
  tn_throttle_line(&run, &t, line, sizeof(line));
  CHECK(strstr(line, "clocks steady: SM clock 1980 MHz at the start") ==
        line);
  /* no readings at all: unknown, with the worker's reason */
  run.baselines[0].n_meas = 0;
  run.space.n = 0;
  tn_strlcpy(run.device.clocks_why, "no NVML: cannot load x",
             sizeof(run.device.clocks_why));
  tn_throttle_judge(&run, &t);
  CHECK(!t.known && !t.throttled);
  tn_throttle_line(&run, &t, line, sizeof(line));
  CHECK(strcmp(line, "clocks unknown: no NVML: cannot load x") == 0);
  free(run.baselines[0].meas);
}

static void test_clocks(void)
{
  tn_clocks a, b, back;
  tn_clock_sample s;
  char names[256], why[200];
  json_t *o;
  memset(&a, 0, sizeof(a));
  memset(&b, 0, sizeof(b));
  memset(&s, 0, sizeof(s));
  s.sm_mhz = 1980;
  s.power_mw = 500000;
  tn_clocks_add(&a, &s); /* reasons unknown in this reading */
  s.sm_mhz = 1500;
  s.power_mw = 700000;
  s.reasons_known = 1;
  s.reasons = TN_CLOCKS_SW_POWER_CAP | TN_CLOCKS_GPU_IDLE | (1ULL << 40);
  tn_clocks_add(&b, &s);
  tn_clocks_merge(&a, &b);
  CHECK_EQ_INT(a.samples, 2);
  CHECK_EQ_INT(a.sm_mhz_first, 1980);
  CHECK_EQ_INT(a.sm_mhz_min, 1500);
  CHECK_EQ_INT(a.power_mw_max, 700000);
  CHECK(NEAR(tn_clocks_power_mean_mw(&a), 600000));
  CHECK(tn_clocks_throttled(&a, 0, 0.1));
  tn_clocks_reason_names(a.reasons, names, sizeof(names));
  CHECK(strcmp(names, "gpu_idle,sw_power_cap,bit_40") == 0);
  CHECK_EQ_INT(tn_clocks_reason_bit("hw_thermal"), 6);
  CHECK_EQ_INT(tn_clocks_reason_bit("bit_40"), 40);
  CHECK_EQ_INT(tn_clocks_reason_bit("bit_3"), -1); /* that one is named */
  CHECK_EQ_INT(tn_clocks_reason_bit("<b>"), -1);
  /* idle alone is no throttling; a clock 10% down is */
  a.reasons = TN_CLOCKS_GPU_IDLE;
  CHECK(!tn_clocks_throttled(&a, 1600, 0.1));
  CHECK(tn_clocks_throttled(&a, 1700, 0.1));
  /* a name list cut at a whole name */
  tn_clocks_reason_names(TN_CLOCKS_SW_POWER_CAP | TN_CLOCKS_HW_THERMAL,
                         names, 16);
  CHECK(strcmp(names, "sw_power_cap") == 0);
  /* JSON there and back; bad input refused with the key named */
  a.reasons = TN_CLOCKS_SW_THERMAL;
  o = tn_results_clocks(&a, NULL);
  CHECK(o != NULL);
  CHECK_EQ_INT(tn_results_clocks_parse(o, &back, why, sizeof(why)), 0);
  CHECK_EQ_INT(back.sm_mhz_min, 1500);
  CHECK_EQ_INT(back.power_mw_max, 700000);
  CHECK(back.reasons == TN_CLOCKS_SW_THERMAL && back.reasons_known);
  json_object_set_new(o, "sm_mhz_min", json_integer(2000));
  CHECK_EQ_INT(tn_results_clocks_parse(o, &back, why, sizeof(why)), -1);
  CHECK(strstr(why, "sm_mhz_first 1980 outside") != NULL);
  json_object_set_new(o, "sm_mhz_min", json_integer(1500));
  json_object_set_new(o, "power_w_max", json_real(-700));
  CHECK_EQ_INT(tn_results_clocks_parse(o, &back, why, sizeof(why)), -1);
  json_object_set_new(o, "power_w_max", json_real(700));
  json_object_set_new(o, "reasons", json_pack("[s]", "<script>"));
  CHECK_EQ_INT(tn_results_clocks_parse(o, &back, why, sizeof(why)), -1);
  CHECK(strstr(why, ".reasons[0]: not a reason's name") == why);
  json_decref(o);
  memset(&a, 0, sizeof(a));
  CHECK(tn_results_clocks(&a, NULL) == NULL); /* nothing read */
}

int main(void)
{
  test_nearest();
  test_throttle();
  test_clocks();
  TEST_DONE();
}

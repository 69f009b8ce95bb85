/* fake_worker.c -- a worker process with a scripted backend, to test the
 * supervisor and whole runs on a machine without a GPU.  Run as
 * "fake_worker __worker N" like the tuner's own worker (the tuner starts it
 * when TUNER_WORKER names it).
 *
 * What a candidate's job does is looked up by its id in FAKE_WORKER_SCRIPT,
 * "ID:ACTION[,ID:ACTION...]", where ACTION is ok, fast (0.5 ms), slow (3 ms),
 * wrong, crash (abort), hang, lost (the context is lost), segv or exit
 * (leaves without answering), or fastR: fast on a problem of R rows (its
 * first dimension) and ok on the others (a winner of one size only).  Ids
 * not in the script are ok, with a median of 1 + id/100 ms.  Timed launches are scripted one by one (the median
 * times 1 + 0.001 * (5i mod 7 - 3), i the launch), in the chunks and with
 * the early stops of gpu/race.h, as the GPU worker takes them: racing and
 * adaptive repetitions are deterministic here.  Without FAKE_WORKER_SCRIPT the supervisor test's script
 * applies: 0 ok, 1 wrong, 2 crash, 3 hang, 4 lost, 5 segv, 6 exit.
 * FAKE_WORKER_DEVICES is the number of GPUs it reports (default 1);
 * FAKE_WORKER_DELAY_MS delays every job; FAKE_WORKER_LOG appends one line
 * per job ("candidate ID" or "baseline NAME") before it runs;
 * FAKE_WORKER_STARTED appends "started N" each time a worker opens its
 * device; FAKE_WORKER_NAME and FAKE_WORKER_PCI are the device's name and PCI
 * bus id it reports (default "Fake GPU N", 0000:01:00.0).
 * FAKE_WORKER_DRIFT=F makes the GPU drift: every job's times (baselines'
 * and candidates') are multiplied by 1 + F * (the jobs this worker ran
 * before it).  Like the GPU worker it reads the clocks with NVML while it
 * "times" (gpu/nvml.h: TUNER_NVML names the library, the tests' scripted
 * one is tests/fake_nvml.c). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "pipeline/space.h"
#include "gpu/nvml.h"
#include "gpu/race.h"
#include "gpu/worker.h"

/* This worker's NVML, NULL when it has none; the jobs it ran. */
static tn_nvml *nvml;
static int jobs_run;

static const char *action_of(int id)
{
  static const char *defaults[] = {"ok",   "wrong", "crash", "hang",
                                   "lost", "segv",  "exit"};
  static char action[32];
  const char *script = getenv("FAKE_WORKER_SCRIPT"), *p;
  if (script == NULL)
    return id >= 0 && id < 7 ? defaults[id] : "ok";
  for (p = script; p && *p;) {
    int sid, used = 0;
    if (sscanf(p, "%d:%31[a-z0-9]%n", &sid, action, &used) == 2 && sid == id)
      return action;
    p = strchr(p, ',');
    if (p)
      p++;
  }
  return "ok";
}

static int fake_open(int ordinal, void **state, tn_device_info *info,
                     tn_err *err)
{
  (void)err;
  *state = NULL;
  const char *marker = getenv("FAKE_WORKER_STARTED");
  if (marker) {
    FILE *f = fopen(marker, "a");
    if (f) {
      fprintf(f, "started %d\n", ordinal);
      fclose(f);
    }
  }
  if (getenv("FAKE_WORKER_NAME"))
    snprintf(info->name, sizeof(info->name), "%s", getenv("FAKE_WORKER_NAME"));
  else
    snprintf(info->name, sizeof(info->name), "Fake GPU %d", ordinal);
  snprintf(info->pci_bus_id, sizeof(info->pci_bus_id), "%s",
           getenv("FAKE_WORKER_PCI") ? getenv("FAKE_WORKER_PCI")
                                     : "0000:01:00.0");
  snprintf(info->arch, sizeof(info->arch), "sm_90");
  info->cc_major = 9;
  info->ordinal = ordinal;
  info->driver_version = 13000;
  info->device_count = getenv("FAKE_WORKER_DEVICES")
                           ? atoi(getenv("FAKE_WORKER_DEVICES"))
                           : 1;
  /* as the GPU worker (gpu/bench.c): the clocks are a record, not a need */
  info->clocks_known = tn_nvml_open(info->pci_bus_id, &nvml, info->clocks_why,
                                    sizeof(info->clocks_why)) == 0;
  info->power_limit_mw = tn_nvml_power_limit_mw(nvml);
  info->sm_max_mhz = tn_nvml_max_sm_mhz(nvml);
  return 0;
}

static void ok(tn_bench_result *res, const tn_bench_job *job, double ms)
{
  const tn_bench_settings *bs = &job->bench;
  const char *drift = getenv("FAKE_WORKER_DRIFT");
  const double t0 = tn_now();
  tn_nvml_sampler clocks;
  int n = 0, chunk, i;
  double spent;
  double *x = calloc((size_t)bs->repetitions, sizeof(double));
  double *sorted = calloc((size_t)bs->repetitions, sizeof(double));
  if (x == NULL || sorted == NULL) {
    free(x);
    free(sorted);
    res->status = TN_BENCH_FAILED;
    snprintf(res->reason, sizeof(res->reason), "out of memory");
    return;
  }
  if (drift)
    ms *= 1.0 + atof(drift) * (jobs_run - 1);
  tn_nvml_sampler_start(&clocks, nvml);
  while ((chunk = tn_race_next_chunk(bs, job->full, n)) > 0) {
    tn_race_verdict v;
    for (i = n; i < n + chunk; i++)
      x[i] = ms * (1.0 + 0.001 * ((5 * i) % 7 - 3));
    n += chunk;
    memcpy(sorted, x, sizeof(double) * (size_t)n);
    v = tn_race_check(bs, job->race && !job->full, job->stop_ms, !job->full,
                      sorted, n);
    if (v == TN_RACE_OUT)
      res->raced_out = 1;
    if (v != TN_RACE_GO_ON)
      break;
  }
  tn_nvml_sampler_stop(&clocks, &res->clocks);
  res->status = TN_BENCH_OK;
  tn_timing_from_samples(x, n, &res->timing);
  /* steps, so that the run's cost split has something to add: shares of
   * the time this job really took, as a worker's steps lie inside the
   * supervisor's round trip (invented figures could sum past the run's
   * wall time and leave its remainder below zero) */
  spent = tn_now() - t0;
  res->steps.inputs_s = 0.1 * spent;
  res->steps.check_s = 0.1 * spent;
  res->steps.verify_s = 0.2 * spent;
  res->steps.timed_s = 0.5 * spent;
  res->steps.total_s = spent;
  free(x);
  free(sorted);
}

static void fake_run(void *state, const tn_bench_job *job, const void *cubin,
                     const void *ref_cubin,
                     tn_bench_result *res)
{
  const char *log = getenv("FAKE_WORKER_LOG"), *delay = getenv(
                                                    "FAKE_WORKER_DELAY_MS");
  const char *action;
  (void)state;
  (void)cubin;
  memset(res, 0, sizeof(*res));
  jobs_run++;
  if (log) {
    FILE *f = fopen(log, "a");
    if (f) {
      if (job->kind == TN_JOB_BASELINE)
        fprintf(f, "baseline %s\n", job->baseline);
      else
        fprintf(f, "candidate %d\n", job->candidate_id);
      fclose(f);
    }
  }
  if (delay) {
    struct timespec ts = {0, atol(delay) * 1000000L};
    nanosleep(&ts, NULL);
  }
  if (job->kind == TN_JOB_BASELINE) {
    ok(res, job, 0.9);
    return;
  }
  action = action_of(job->candidate_id);
  if (strncmp(action, "fast", 4) == 0 && action[4] != '\0')
    action = atoll(action + 4) == job->problem.size.dims[0] ? "fast" : "ok";
  if (strcmp(action, "ok") == 0) {
    ok(res, job, 1.0 + job->candidate_id / 100.0);
  } else if (strcmp(action, "fast") == 0) {
    ok(res, job, 0.5);
  } else if (strcmp(action, "slow") == 0) {
    ok(res, job, 3.0);
  } else if (strcmp(action, "wrong") == 0) {
    res->status = TN_BENCH_WRONG;
    snprintf(res->reason, sizeof(res->reason), "3 of 9 elements differ");
  } else if (strcmp(action, "crash") == 0) {
    abort();
  } else if (strcmp(action, "hang") == 0) {
    for (;;)
      pause();
  } else if (strcmp(action, "lost") == 0) {
    res->status = TN_BENCH_FAILED;
    res->fatal = 1;
    snprintf(res->reason, sizeof(res->reason),
             "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access");
  } else if (strcmp(action, "segv") == 0) {
    raise(SIGSEGV);
  } else {
    _exit(0);
  }
}

static void fake_close(void *state)
{
  (void)state;
  tn_nvml_close(nvml);
  nvml = NULL;
}

/* A described kernel's config: taken as it is (the script decides the
 * results), but the run must have sent it. */
static int fake_define(void *state, const char *path, const char *text,
                       char *why, size_t n)
{
  (void)state;
  if (path[0] == '\0' || strstr(text, "kernel") == NULL) {
    snprintf(why, n, "fake worker: no described kernel in %s", path);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  static const tn_worker_backend fake = {fake_open, fake_define, fake_run,
                                         fake_close};
  if (argc < 3 || strcmp(argv[1], "__worker") != 0)
    return 2;
  return tn_worker_serve(&fake, atoi(argv[2]));
}

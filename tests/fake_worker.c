/* fake_worker.c -- a worker process with a scripted backend, to test the
 * supervisor and whole runs on a machine without a GPU.  Run as
 * "fake_worker __worker N" like the tuner's own worker (the tuner starts it
 * when TUNER_WORKER names it).
 *
 * What a candidate's job does is looked up by its id in FAKE_WORKER_SCRIPT,
 * "ID:ACTION[,ID:ACTION...]", where ACTION is ok, fast (0.5 ms), wrong,
 * crash (abort), hang, lost (the context is lost), segv or exit (leaves
 * without answering).  Ids not in the script are ok, with a median of
 * 1 + id/100 ms.  Without FAKE_WORKER_SCRIPT the supervisor test's script
 * applies: 0 ok, 1 wrong, 2 crash, 3 hang, 4 lost, 5 segv, 6 exit.
 * FAKE_WORKER_DEVICES is the number of GPUs it reports (default 1);
 * FAKE_WORKER_DELAY_MS delays every job; FAKE_WORKER_LOG appends one line
 * per job ("candidate ID" or "baseline NAME") before it runs;
 * FAKE_WORKER_STARTED appends "started N" each time a worker opens its
 * device; FAKE_WORKER_NAME and FAKE_WORKER_PCI are the device's name and PCI
 * bus id it reports (default "Fake GPU N", 0000:01:00.0). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipeline/space.h"
#include "gpu/worker.h"

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
    if (sscanf(p, "%d:%31[a-z]%n", &sid, action, &used) == 2 && sid == id)
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
  return 0;
}

static void ok(tn_bench_result *res, const tn_bench_job *job, double ms)
{
  res->status = TN_ST_OK;
  res->timing.median_ms = ms;
  res->timing.min_ms = ms * 0.99;
  res->timing.max_ms = ms * 1.02;
  res->timing.q1_ms = ms * 0.999;
  res->timing.q3_ms = ms * 1.001;
  res->timing.repetitions = job->bench.repetitions;
}

static void fake_run(void *state, const tn_bench_job *job, const void *cubin,
                     tn_bench_result *res)
{
  const char *log = getenv("FAKE_WORKER_LOG"), *delay = getenv(
                                                    "FAKE_WORKER_DELAY_MS");
  const char *action;
  (void)state;
  (void)cubin;
  memset(res, 0, sizeof(*res));
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
  if (strcmp(action, "ok") == 0) {
    ok(res, job, 1.0 + job->candidate_id / 100.0);
  } else if (strcmp(action, "fast") == 0) {
    ok(res, job, 0.5);
  } else if (strcmp(action, "wrong") == 0) {
    res->status = TN_ST_WRONG;
    snprintf(res->reason, sizeof(res->reason), "3 of 9 elements differ");
  } else if (strcmp(action, "crash") == 0) {
    abort();
  } else if (strcmp(action, "hang") == 0) {
    for (;;)
      pause();
  } else if (strcmp(action, "lost") == 0) {
    res->status = TN_ST_FAILED;
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
}

int main(int argc, char **argv)
{
  static const tn_worker_backend fake = {fake_open, fake_run, fake_close};
  if (argc < 3 || strcmp(argv[1], "__worker") != 0)
    return 2;
  return tn_worker_serve(&fake, atoi(argv[2]));
}

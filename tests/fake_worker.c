/* fake_worker.c -- a worker process with a scripted backend, to test the
 * supervisor on a machine without a GPU.  What a job does depends on its
 * candidate id:
 *   0 ok, 1 wrong result, 2 abort() (a crash), 3 hangs, 4 the context is
 *   lost (a result with fatal set, then the process exits), 5 SIGSEGV,
 *   6 exits without answering.
 * Run as "fake_worker __worker N" like the tuner's own worker. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker.h"

static int fake_open(int ordinal, void **state, tn_device_info *info,
                     tn_err *err)
{
  (void)err;
  *state = NULL;
  snprintf(info->name, sizeof(info->name), "Fake GPU %d", ordinal);
  snprintf(info->arch, sizeof(info->arch), "sm_90");
  info->cc_major = 9;
  info->ordinal = ordinal;
  return 0;
}

static void fake_run(void *state, const tn_bench_job *job, const void *cubin,
                     tn_bench_result *res)
{
  (void)state;
  (void)cubin;
  memset(res, 0, sizeof(*res));
  switch (job->candidate_id) {
  case 0:
    res->status = 4; /* TN_ST_OK */
    res->timing.median_ms = 1.0 + (double)job->cubin_len;
    res->timing.repetitions = job->bench.repetitions;
    break;
  case 1:
    res->status = 5; /* TN_ST_WRONG */
    snprintf(res->reason, sizeof(res->reason), "3 of 9 elements differ");
    break;
  case 2:
    abort();
  case 3:
    for (;;)
      pause();
  case 4:
    res->status = 6; /* TN_ST_FAILED */
    res->fatal = 1;
    snprintf(res->reason, sizeof(res->reason),
             "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access");
    break;
  case 5:
    raise(SIGSEGV);
    break;
  default:
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

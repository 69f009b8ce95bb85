/* test_supervisor.c -- the supervisor's side of the worker protocol, on
 * the CPU, against tests/fake_worker: crashes, hangs, lost contexts and
 * silent exits each cost one job, are reported with the reason, and the
 * next job runs on a fresh worker.  Usage: test_supervisor FAKE_WORKER */
#include <string.h>

#include "pipeline/space.h"
#include "test_util.h"
#include "base/util.h"
#include "gpu/worker.h"

static tn_bench_result run(tn_worker *w, int id, double timeout)
{
  tn_bench_job job;
  tn_bench_result res;
  tn_err err = {{0}};
  int rc;
  memset(&job, 0, sizeof(job));
  job.kind = TN_JOB_CANDIDATE;
  job.candidate_id = id;
  job.bench.repetitions = 7;
  rc = tn_worker_run(w, &job, NULL, NULL, timeout, &res, &err);
  if (rc != 0) {
    fprintf(stderr, "tn_worker_run: %s\n", err.msg);
    res.status = -1;
  }
  return res;
}

int main(int argc, char **argv)
{
  tn_worker w;
  tn_err err = {{0}};
  tn_bench_result r;
  double t0;

  if (argc != 2)
    return 2;
  memset(&w, 0, sizeof(w));
  tn_strlcpy(w.exe, argv[1], sizeof(w.exe));
  CHECK(tn_worker_start(&w, 3, &err) == 0);
  CHECK(strcmp(w.info.name, "Fake GPU 3") == 0);
  CHECK_EQ_INT(w.starts, 1);

  r = run(&w, 0, 5.0);
  CHECK_EQ_INT(r.status, TN_BENCH_OK);
  CHECK_EQ_INT(r.timing.repetitions, 7);
  r = run(&w, 1, 5.0);
  CHECK_EQ_INT(r.status, TN_BENCH_WRONG);
  CHECK_EQ_INT(w.starts, 1); /* a wrong result is not the worker's end */

  r = run(&w, 2, 5.0); /* abort() */
  CHECK_EQ_INT(r.status, TN_BENCH_FAILED);
  CHECK(strstr(r.reason, "crash") != NULL);
  CHECK(strstr(r.reason, "signal 6") != NULL);
  r = run(&w, 0, 5.0); /* the next job gets a fresh worker */
  CHECK_EQ_INT(r.status, TN_BENCH_OK);
  CHECK_EQ_INT(w.starts, 2);

  t0 = tn_now();
  r = run(&w, 3, 0.5); /* hangs: killed at the timeout */
  CHECK_EQ_INT(r.status, TN_BENCH_FAILED);
  CHECK(strstr(r.reason, "timeout") != NULL);
  CHECK(tn_now() - t0 < 4.0);
  r = run(&w, 0, 5.0);
  CHECK_EQ_INT(r.status, TN_BENCH_OK);
  CHECK_EQ_INT(w.starts, 3);

  r = run(&w, 4, 5.0); /* the context is lost: reported, then a new one */
  CHECK_EQ_INT(r.status, TN_BENCH_FAILED);
  CHECK(strstr(r.reason, "ILLEGAL_ADDRESS") != NULL);
  CHECK(r.fatal);
  r = run(&w, 0, 5.0);
  CHECK_EQ_INT(r.status, TN_BENCH_OK);
  CHECK_EQ_INT(w.starts, 4);

  r = run(&w, 5, 5.0); /* SIGSEGV (under ASan: an exit with status 1) */
  CHECK_EQ_INT(r.status, TN_BENCH_FAILED);
  CHECK(strstr(r.reason, "crash: the worker ") != NULL);
  r = run(&w, 6, 5.0); /* exits without a word */
  CHECK_EQ_INT(r.status, TN_BENCH_FAILED);
  CHECK(strstr(r.reason, "exited with status 0") != NULL);
  r = run(&w, 0, 5.0);
  CHECK_EQ_INT(r.status, TN_BENCH_OK);
  CHECK_EQ_INT(w.starts, 6);

  tn_worker_stop(&w);
  CHECK_EQ_INT(w.pid, 0);

  /* a program that is not a worker cannot be started, with a message */
  memset(&w, 0, sizeof(w));
  tn_strlcpy(w.exe, "/bin/false", sizeof(w.exe));
  err.msg[0] = '\0';
  CHECK(tn_worker_start(&w, 0, &err) != 0);
  CHECK(err.msg[0] != '\0');
  TEST_DONE();
}

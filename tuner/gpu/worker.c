/* worker.c -- one benchmark process per GPU, supervised.
 *
 * Messages are a fixed header (type, payload length) and a payload of
 * plain structs: both ends are the same binary. */
#define _GNU_SOURCE
#include "gpu/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"

enum {
  MSG_HELLO = 1,
  MSG_JOB = 2,
  MSG_RESULT = 3,
  MSG_ERROR = 4,
  MSG_FAMILY = 5, /* a described family: path, NUL, the config's text */
  MSG_FAMILY_OK = 6
};

#define WORKER_IN 3
#define WORKER_OUT 4
#define MAX_PAYLOAD (1u << 30)

typedef struct {
  unsigned type;
  unsigned len;
} msg_header;

/* The pipes' whole writes and reads (base/proc.h). */
static int write_all(int fd, const void *data, size_t len)
{
  return tn_proc_write_all(fd, data, len);
}

static int read_all(int fd, void *data, size_t len, double deadline)
{
  return tn_proc_read_all(fd, data, len, deadline);
}

static int send_msg3(int fd, unsigned type, const void *a, size_t alen,
                     const void *b, size_t blen, const void *c, size_t clen)
{
  msg_header h = {type, (unsigned)(alen + blen + clen)};
  if (write_all(fd, &h, sizeof(h)) || (alen && write_all(fd, a, alen)) ||
      (blen && write_all(fd, b, blen)) || (clen && write_all(fd, c, clen)))
    return -1;
  return 0;
}

static int send_msg(int fd, unsigned type, const void *a, size_t alen,
                    const void *b, size_t blen)
{
  return send_msg3(fd, type, a, alen, b, blen, NULL, 0);
}

/* Gives a started worker the run's described family; 0, or TN_ETOOL. */
static int send_family(tn_worker *w, tn_err *err)
{
  msg_header h;
  char why[1024];
  size_t lp = strlen(w->family_path) + 1, lt = strlen(w->family_text);
  int rc;
  if (lp + lt > MAX_PAYLOAD ||
      send_msg(w->to_fd, MSG_FAMILY, w->family_path, lp, w->family_text,
               lt) != 0)
    return tn_errf(err, TN_ETOOL, "GPU %d: the worker did not take the "
                                  "kernel's description",
                   w->ordinal);
  rc = read_all(w->from_fd, &h, sizeof(h), tn_now() + 60.0);
  if (rc == 0 && h.type == MSG_FAMILY_OK && h.len == 0)
    return 0;
  why[0] = '\0';
  if (rc == 0 && h.type == MSG_ERROR && h.len < sizeof(why) &&
      read_all(w->from_fd, why, h.len, tn_now() + 10.0) == 0)
    why[h.len] = '\0';
  return tn_errf(err, TN_ETOOL, "GPU %d: the worker could not read the "
                                "kernel's description: %s",
                 w->ordinal, why[0] ? why : "it did not answer");
}

/* ---- the supervisor's side ---- */

/* Reaps the worker after it closed its pipe or was killed. */
static void reap(tn_worker *w, int kill_it, char *why, size_t n)
{
  int status;
  if (w->pid <= 0)
    return;
  status = tn_proc_reap(w->pid, kill_it);
  if (why)
    tn_proc_describe_exit(status, "worker", why, n);
  close(w->to_fd);
  close(w->from_fd);
  w->pid = 0;
  w->to_fd = w->from_fd = -1;
}

static void find_exe(char *out, size_t n)
{
  ssize_t len = readlink("/proc/self/exe", out, n - 1);
  if (len <= 0)
    len = 0;
  out[len] = '\0';
}

int tn_worker_start(tn_worker *w, int ordinal, tn_err *err)
{
  int to[2], from[2];
  char dev[16];
  msg_header h;
  pid_t pid;
  int rc;
  double t0 = tn_now();

  if (w->exe[0] == '\0') {
    /* TUNER_WORKER names another worker program: the tests use it to put
     * a scripted worker behind a whole tuning run on a machine without a
     * GPU.  Normally the worker is this same program. */
    const char *other = getenv("TUNER_WORKER");
    if (other && *other)
      tn_strlcpy(w->exe, other, sizeof(w->exe));
    else
      find_exe(w->exe, sizeof(w->exe));
  }
  w->ordinal = ordinal;
  if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0)
    return tn_errf(err, TN_ETOOL, "pipe: %s", strerror(errno));
  snprintf(dev, sizeof(dev), "%d", ordinal);
  pid = fork();
  if (pid < 0)
    return tn_errf(err, TN_ETOOL, "fork: %s", strerror(errno));
  if (pid == 0) {
    /* Not in the terminal's process group: Ctrl-C reaches the supervisor,
     * which stops the worker itself.  Dies with the supervisor. */
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int in = fcntl(to[0], F_DUPFD, 10), out = fcntl(from[1], F_DUPFD, 10);
    /* via fds above 10, so neither dup2 below clobbers the other's source */
    if (in < 0 || out < 0 || dup2(in, WORKER_IN) < 0 ||
        dup2(out, WORKER_OUT) < 0)
      _exit(127);
    /* dup2 onto the same number keeps O_CLOEXEC: clear it explicitly */
    if (fcntl(WORKER_IN, F_SETFD, 0) != 0 ||
        fcntl(WORKER_OUT, F_SETFD, 0) != 0)
      _exit(127);
    dup2(STDERR_FILENO, STDOUT_FILENO); /* stray prints go to stderr */
    execl(w->exe, w->exe, "__worker", dev, (char *)NULL);
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  w->pid = pid;
  w->to_fd = to[1];
  w->from_fd = from[0];
  w->starts++;
  signal(SIGPIPE, SIG_IGN); /* a dead worker shows as a write error */

  rc = read_all(w->from_fd, &h, sizeof(h), tn_now() + 120.0);
  if (rc == 0 && h.type == MSG_HELLO && h.len == sizeof(w->info))
    rc = read_all(w->from_fd, &w->info, sizeof(w->info), tn_now() + 10.0);
  else if (rc == 0 && h.type == MSG_ERROR && h.len < 4096) {
    char msg[4096];
    int code = TN_ENODEV;
    if (read_all(w->from_fd, msg, h.len, tn_now() + 10.0) == 0) {
      msg[h.len] = '\0';
      tn_errf(err, code, "%s", msg);
    }
    reap(w, 1, NULL, 0);
    return tn_errf(err, code, "GPU %d: the worker could not open it",
                   ordinal);
  } else if (rc == 0) {
    rc = -1;
  }
  if (rc != 0) {
    char why[256];
    reap(w, 1, why, sizeof(why));
    return tn_errf(err, TN_ETOOL, "GPU %d: the worker did not start: %s",
                   ordinal, why);
  }
  if (w->family_text && send_family(w, err) != 0) {
    reap(w, 1, NULL, 0);
    return TN_ETOOL;
  }
  w->start_s += tn_now() - t0;
  return 0;
}

int tn_worker_run(tn_worker *w, const tn_bench_job *job, const void *cubin,
                  const void *ref_cubin, double timeout_s,
                  tn_bench_result *res, tn_err *err)
{
  msg_header h;
  int rc;

  memset(res, 0, sizeof(*res));
  if (w->pid <= 0) {
    rc = tn_worker_start(w, w->ordinal, err);
    if (rc)
      return rc;
  }
  if (send_msg3(w->to_fd, MSG_JOB, job, sizeof(*job), cubin, job->cubin_len,
                ref_cubin, job->ref.cubin_len) != 0) {
    char why[256];
    reap(w, 1, why, sizeof(why));
    res->status = TN_BENCH_FAILED;
    snprintf(res->reason, sizeof(res->reason),
             "the job could not be sent: %s", why);
    return 0;
  }
  for (;;) {
    rc = read_all(w->from_fd, &h, sizeof(h), tn_now() + timeout_s);
    if (rc != -3)
      break;
    /* a signal (Ctrl-C): the caller's handler set a flag; stop now */
    if (tn_interrupted()) {
      reap(w, 1, NULL, 0);
      return tn_errf(err, TN_EINTR, "interrupted");
    }
  }
  if (rc == 0 && h.type == MSG_RESULT && h.len == sizeof(*res))
    rc = read_all(w->from_fd, res, sizeof(*res), tn_now() + 10.0);
  else if (rc == 0)
    rc = -1;
  if (rc == -2) {
    reap(w, 1, NULL, 0);
    res->status = TN_BENCH_FAILED;
    res->fatal = 1;
    snprintf(res->reason, sizeof(res->reason),
             "timeout: no result after %.1f s; the worker was killed",
             timeout_s);
    return 0;
  }
  if (rc != 0) {
    char why[256];
    reap(w, 0, why, sizeof(why));
    res->status = TN_BENCH_FAILED;
    res->fatal = 1;
    snprintf(res->reason, sizeof(res->reason), "crash: %s", why);
    return 0;
  }
  if (res->fatal) /* the worker exits after a lost context */
    reap(w, 0, NULL, 0);
  return 0;
}

void tn_worker_stop(tn_worker *w)
{
  if (w->pid <= 0)
    return;
  close(w->to_fd); /* EOF: the worker leaves its loop */
  w->to_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  reap(w, 0, NULL, 0);
}

/* ---- the worker's side ---- */

/* Reads a described family's config (len bytes: path, NUL, text) and
 * gives it to the backend; answers MSG_FAMILY_OK or MSG_ERROR.  0, or -1
 * when the pipe is broken. */
static int serve_family(const tn_worker_backend *backend, void *state,
                        unsigned len)
{
  char *buf, why[1024] = "";
  size_t lp;
  int rc = -1;
  if (len == 0 || len > MAX_PAYLOAD || (buf = malloc((size_t)len + 1)) == NULL)
    return -1;
  if (read_all(WORKER_IN, buf, len, 0) != 0)
    goto done;
  buf[len] = '\0';
  lp = strnlen(buf, len);
  if (lp == len)
    snprintf(why, sizeof(why), "a malformed description");
  else if (backend->define == NULL)
    snprintf(why, sizeof(why), "this worker takes no described kernels");
  else
    backend->define(state, buf, buf + lp + 1, why, sizeof(why));
  rc = why[0] ? send_msg(WORKER_OUT, MSG_ERROR, why, strlen(why), NULL, 0)
              : send_msg(WORKER_OUT, MSG_FAMILY_OK, NULL, 0, NULL, 0);
done:
  free(buf);
  return rc;
}

int tn_worker_serve(const tn_worker_backend *backend, int ordinal)
{
  void *state = NULL, *cubin = NULL;
  tn_device_info info;
  tn_err err = {{0}};
  size_t cap = 0;
  int rc;

  memset(&info, 0, sizeof(info));
  rc = backend->open(ordinal, &state, &info, &err);
  if (rc != 0) {
    send_msg(WORKER_OUT, MSG_ERROR, err.msg, strlen(err.msg), NULL, 0);
    return 3;
  }
  if (send_msg(WORKER_OUT, MSG_HELLO, &info, sizeof(info), NULL, 0) != 0)
    return 1;
  for (;;) {
    msg_header h;
    tn_bench_job job;
    tn_bench_result res;
    size_t total;
    if (read_all(WORKER_IN, &h, sizeof(h), 0) != 0)
      break; /* EOF: the supervisor is done */
    if (h.type == MSG_FAMILY) {
      if (serve_family(backend, state, h.len) != 0)
        return 1;
      continue;
    }
    if (h.type != MSG_JOB || h.len < sizeof(job) || h.len > MAX_PAYLOAD ||
        read_all(WORKER_IN, &job, sizeof(job), 0) != 0 ||
        job.cubin_len > h.len - sizeof(job) ||
        job.ref.cubin_len != h.len - sizeof(job) - job.cubin_len)
      return 1;
    total = job.cubin_len + job.ref.cubin_len;
    if (total > cap) {
      free(cubin);
      cap = total;
      cubin = malloc(cap);
      if (cubin == NULL)
        return 1;
    }
    if (total && read_all(WORKER_IN, cubin, total, 0) != 0)
      return 1;
    backend->run(state, &job, cubin, (char *)cubin + job.cubin_len, &res);
    if (send_msg(WORKER_OUT, MSG_RESULT, &res, sizeof(res), NULL, 0) != 0)
      return 1;
    if (res.fatal)
      return 4; /* the context is lost: a fresh process gets a fresh one */
  }
  free(cubin);
  backend->close(state);
  return 0;
}

static int bench_open(int ordinal, void **state, tn_device_info *info,
                      tn_err *err)
{
  return tn_bench_open(ordinal, (tn_bench **)state, info, err);
}

static tn_family_loader bench_loader;

/* The backend's define: the program's loader makes the family, which the
 * registry then finds by name for the jobs. */
static int bench_define(void *state, const char *path, const char *text,
                        char *why, size_t n)
{
  const tn_family *f = NULL;
  (void)state;
  if (bench_loader == NULL) {
    snprintf(why, n, "this program reads no described kernels");
    return -1;
  }
  if (bench_loader(path, text, &f, why, n) != 0)
    return -1;
  if (tn_family_register(f) != 0) {
    snprintf(why, n, "too many described families in one worker");
    return -1;
  }
  return 0;
}

static void bench_run(void *state, const tn_bench_job *job,
                      const void *cubin, const void *ref_cubin,
                      tn_bench_result *res)
{
  tn_bench_run(state, job, cubin, ref_cubin, res);
}

static void bench_close(void *state)
{
  tn_bench_close(state);
}

int tn_worker_main(int argc, char **argv, tn_family_loader load)
{
  static const tn_worker_backend gpu = {bench_open, bench_define, bench_run,
                                        bench_close};
  if (argc < 3)
    return 2;
  bench_loader = load;
  return tn_worker_serve(&gpu, atoi(argv[2]));
}

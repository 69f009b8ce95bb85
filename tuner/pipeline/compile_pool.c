/* compile_pool.c -- NVRTC in worker processes: the tuner's side. */
#define _GNU_SOURCE
#include "pipeline/compile_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "pipeline/compile_serve.h"
#include "pipeline/compile_wire.h"

/* Pipes this large hold a queued source (GEMM's is 26 KB) beside the one
 * being read, and a whole answer (log and CUBIN), so that a worker goes
 * on to its next source without waiting for the tuner to read; Linux
 * grants up to 1 MiB unprivileged (/proc/sys/fs/pipe-max-size). */
#define PIPE_WANT (1 << 20)

static int serves_self;

void tn_compile_pool_serve_self(void)
{
  serves_self = 1;
}

int tn_compile_pool_exe(char *out, size_t n)
{
  const char *other = getenv("TUNER_COMPILER");
  ssize_t len;
  if (other && *other) {
    if (strcmp(other, "none") == 0)
      return -1;
    return tn_strlcpy(out, other, n) == 0 ? 0 : -1;
  }
  if (!serves_self || n < 2)
    return -1;
  len = readlink("/proc/self/exe", out, n - 1);
  if (len <= 0)
    return -1;
  out[len] = '\0';
  return 0;
}

int tn_compile_pool_cores(void)
{
  cpu_set_t set;
  long n;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

void tn_compile_pool_init(tn_compile_pool *p, const char *exe, int n)
{
  memset(p, 0, sizeof(*p));
  tn_strlcpy(p->exe, exe, sizeof(p->exe));
  p->n = n < 1 ? 1 : n > TN_COMPILE_POOL_MAX ? TN_COMPILE_POOL_MAX : n;
}

/* Reaps a worker that closed its pipe (or kills it); why: how it ended. */
static void reap(tn_compile_pool_worker *w, int kill_it, char *why, size_t n)
{
  int status;
  if (w->pid <= 0)
    return;
  status = tn_proc_reap(w->pid, kill_it);
  if (why)
    tn_proc_describe_exit(status, "compile worker", why, n);
  if (w->to_fd >= 0)
    close(w->to_fd);
  close(w->from_fd);
  memset(w, 0, sizeof(*w));
  w->to_fd = w->from_fd = -1;
}

static int send_warm(tn_compile_pool_worker *w, const tn_arch *arch)
{
  tn_wire_warm m;
  const void *part[1] = {&m};
  size_t len[1] = {sizeof(m)};
  memset(&m, 0, sizeof(m));
  tn_strlcpy(m.arch, arch->name, sizeof(m.arch));
  if (tn_wire_send(w->to_fd, TN_WIRE_WARM, part, len, 1) != 0)
    return -1;
  w->warming = 1;
  return 0;
}

static int send_setup(tn_compile_pool *p, tn_compile_pool_worker *w)
{
  if (p->setup_gen == 0 || w->setup_gen == p->setup_gen)
    return 0;
  if (tn_wire_send_setup(w->to_fd, p->t, p->arch->name, p->cache_dir,
                         p->keyed ? &p->mac : NULL) != 0)
    return -1;
  w->setup_gen = p->setup_gen;
  return 0;
}

/* Starts a worker in slot w; warm: the architecture of its warm-up, NULL
 * for none (a request is waiting: its compile pays the one-time costs). */
static int start_worker(tn_compile_pool *p, tn_compile_pool_worker *w,
                        const tn_arch *warm, tn_err *err)
{
  int to[2], from[2], cap;
  char why[256];
  pid_t pid;

  if (pipe2(to, O_CLOEXEC) != 0)
    return tn_errf(err, TN_ETOOL, "pipe: %s", strerror(errno));
  if (pipe2(from, O_CLOEXEC) != 0) {
    close(to[0]);
    close(to[1]);
    return tn_errf(err, TN_ETOOL, "pipe: %s", strerror(errno));
  }
  (void)fcntl(to[1], F_SETPIPE_SZ, PIPE_WANT); /* best effort */
  (void)fcntl(from[1], F_SETPIPE_SZ, PIPE_WANT);
  cap = fcntl(to[1], F_GETPIPE_SZ);
  signal(SIGPIPE, SIG_IGN); /* a dead worker shows as a write error */
  memset(w, 0, sizeof(*w));
  w->t_fork = tn_now();
  pid = fork();
  if (pid < 0) {
    close(to[0]);
    close(to[1]);
    close(from[0]);
    close(from[1]);
    return tn_errf(err, TN_ETOOL, "fork: %s", strerror(errno));
  }
  if (pid == 0) {
    /* Ctrl-C reaches the tuner, not its compilers.  No parent-death
     * signal: it would come when the thread that forked ends, and the
     * pool outlives the thread of a compile phase; a worker leaves at
     * EOF on its pipe instead, however the tuner ended. */
    setpgid(0, 0);
    int in = fcntl(to[0], F_DUPFD, 10), out = fcntl(from[1], F_DUPFD, 10);
    if (in < 0 || out < 0 || dup2(in, TN_COMPILE_SERVE_IN) < 0 ||
        dup2(out, TN_COMPILE_SERVE_OUT) < 0 ||
        fcntl(TN_COMPILE_SERVE_IN, F_SETFD, 0) != 0 ||
        fcntl(TN_COMPILE_SERVE_OUT, F_SETFD, 0) != 0)
      _exit(127);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    execl(p->exe, p->exe, "__compile", (char *)NULL);
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  w->pid = pid;
  w->to_fd = to[1];
  w->from_fd = from[0];
  w->pipe_cap = cap > 0 ? (size_t)cap : 4096;
  p->starts++;
  if (p->t_first_fork == 0)
    p->t_first_fork = w->t_fork;
  /* its hello is read before its first answer: starting is not waited
   * for */
  if ((warm == NULL || send_warm(w, warm) == 0) && send_setup(p, w) == 0)
    return 0;
  reap(w, 1, why, sizeof(why));
  return tn_errf(err, TN_ETOOL, "%s __compile did not start: %s", p->exe,
                 why);
}

int tn_compile_pool_warm(tn_compile_pool *p, const tn_arch *arch,
                         tn_err *err)
{
  int i, rc;
  if (p->t_warm == 0)
    p->t_warm = tn_now();
  for (i = 0; i < p->n; i++)
    if (p->w[i].pid <= 0 && (rc = start_worker(p, &p->w[i], arch, err)) != 0)
      return rc;
  return 0;
}

int tn_compile_pool_setup(tn_compile_pool *p, const tn_template *t,
                          const tn_arch *arch, const char *cache_dir,
                          const tn_mac_key *mac, tn_err *err)
{
  int i;
  if (p->setup_gen == 0 || p->t != t || p->arch != arch ||
      strcmp(p->cache_dir, cache_dir) != 0 || p->keyed != (mac != NULL) ||
      (mac && memcmp(&p->mac, mac, sizeof(*mac)) != 0)) {
    p->t = t;
    p->arch = arch;
    tn_strlcpy(p->cache_dir, cache_dir, sizeof(p->cache_dir));
    p->keyed = mac != NULL;
    if (mac)
      p->mac = *mac;
    p->setup_bytes = tn_wire_setup_size(t, cache_dir, mac);
    p->setup_gen++;
  }
  for (i = 0; i < p->n; i++)
    if (p->w[i].pid > 0 && send_setup(p, &p->w[i]) != 0) {
      /* dead already: its next request finds out and restarts it */
      char why[256];
      reap(&p->w[i], 1, why, sizeof(why));
    }
  (void)err;
  return 0;
}

int tn_compile_pool_outstanding(const tn_compile_pool *p)
{
  int i, n = 0;
  for (i = 0; i < p->n; i++)
    n += p->w[i].pid > 0 ? p->w[i].depth : 0;
  return n;
}

int tn_compile_pool_room(const tn_compile_pool *p, int depth)
{
  int i;
  for (i = 0; i < p->n; i++) {
    const tn_compile_pool_worker *w = &p->w[i];
    if (w->pid <= 0 || w->depth < depth)
      return 1;
  }
  return 0;
}

/* The worker for a request of msg bytes, or NULL: an idle one (a warm or
 * unwarmed one before one still warming), else a free slot (*start set),
 * else the busy (or warming) one whose oldest request went out first, if
 * the request fits in its pipe beside another not read yet and a SETUP. */
static tn_compile_pool_worker *choose(tn_compile_pool *p, int depth,
                                      size_t msg, int *start)
{
  tn_compile_pool_worker *warming = NULL, *free_slot = NULL, *busy = NULL;
  int i;
  *start = 0;
  for (i = 0; i < p->n; i++) {
    tn_compile_pool_worker *w = &p->w[i];
    if (w->pid <= 0) {
      if (free_slot == NULL)
        free_slot = w;
    } else if (w->depth == 0) {
      if (!w->warming)
        return w;
      if (warming == NULL)
        warming = w;
    } else if (w->depth < depth &&
               2 * msg + p->setup_bytes <= w->pipe_cap &&
               (busy == NULL || w->q[0].sent < busy->q[0].sent)) {
      busy = w;
    }
  }
  if (warming)
    return warming;
  if (free_slot) {
    *start = 1;
    return free_slot;
  }
  return busy;
}

int tn_compile_pool_submit(tn_compile_pool *p, int depth, int index, int id,
                           const char *name, const char *source,
                           const char *key, tn_err *err)
{
  tn_compile_pool_worker *w;
  tn_wire_job j;
  const void *part[4];
  size_t len[4];
  int start, rc;

  if (p->setup_gen == 0)
    return tn_errf(err, TN_ETOOL, "compile pool: a request before its setup");
  j.index = index;
  j.id = id;
  j.name_len = (unsigned)strlen(name);
  j.src_len = (unsigned)strlen(source);
  j.key_len = (unsigned)strlen(key);
  w = choose(p, depth, sizeof(tn_wire_header) + sizeof(j) + j.name_len +
                           j.src_len + j.key_len,
             &start);
  if (w == NULL)
    return 1;
  if (start && (rc = start_worker(p, w, NULL, err)) != 0)
    return rc;
  part[0] = &j;
  len[0] = sizeof(j);
  part[1] = name;
  len[1] = j.name_len;
  part[2] = source;
  len[2] = j.src_len;
  part[3] = key;
  len[3] = j.key_len;
  w->q[w->depth].index = index;
  w->q[w->depth].sent = tn_now(); /* before: the worker may start at once */
  /* a worker dead before the job shows when its answer is read */
  (void)tn_wire_send(w->to_fd, TN_WIRE_JOB, part, len, 4);
  w->depth++;
  w->jobs++;
  return 0;
}

/* Reads one message of worker k: 0 a HELLO or READY, 1 an answer (res
 * filled), TN_ETOOL (NVRTC failed), -1 the worker is gone, -2 it never
 * started. */
static int read_one(tn_compile_pool *p, int k, tn_compile_pool_result *res,
                    tn_err *err)
{
  tn_compile_pool_worker *w = &p->w[k];
  tn_wire_header h;
  tn_wire_result r;
  char *msg = NULL;

  if (tn_wire_read(w->from_fd, &h, sizeof(h)) != 0)
    return w->hello ? -1 : -2;
  if (!w->hello) {
    tn_wire_hello hello;
    if (h.len != sizeof(hello) ||
        tn_wire_read_fixed(w->from_fd, &h, TN_WIRE_HELLO, &hello,
                           sizeof(hello)) != 0)
      return -2;
    w->hello = 1;
    w->t_main = hello.t_main;
    return 0;
  }
  if (h.type == TN_WIRE_READY && w->warming) {
    tn_wire_ready ready;
    if (h.len != sizeof(ready) ||
        tn_wire_read_fixed(w->from_fd, &h, TN_WIRE_READY, &ready,
                           sizeof(ready)) != 0)
      return -1;
    w->warming = 0;
    w->t_ready = ready.t1;
    w->warm_s = ready.t1 - ready.t0;
    p->warmed++;
    if (p->t_first_ready == 0 || ready.t1 < p->t_first_ready)
      p->t_first_ready = ready.t1;
    if (ready.t1 > p->t_last_ready)
      p->t_last_ready = ready.t1;
    return 0;
  }
  if (w->depth == 0 ||
      tn_wire_read_fixed(w->from_fd, &h, TN_WIRE_RESULT, &r, sizeof(r)) != 0 ||
      h.len - sizeof(r) != (size_t)r.log_len + r.cubin_len + r.err_len ||
      r.index != w->q[0].index)
    return -1;
  res->index = r.index;
  if ((r.log_len && tn_wire_read_text(w->from_fd, r.log_len, &res->log)) ||
      (r.cubin_len &&
       tn_wire_read_text(w->from_fd, r.cubin_len, (char **)&res->cubin)) ||
      tn_wire_read_text(w->from_fd, r.err_len, &msg) != 0)
    return -1;
  res->cubin_len = r.cubin_len;
  res->rc = r.rc;
  res->times.worker = k;
  res->times.sent = w->q[0].sent;
  res->times.received = r.t_recv;
  res->times.started = r.t0;
  res->times.finished = r.t1;
  res->times.answered = r.t_sent;
  res->times.read = tn_now();
  w->depth--;
  memmove(&w->q[0], &w->q[1], sizeof(w->q[0]) * (size_t)w->depth);
  if (r.rc < 0) {
    tn_errf(err, TN_ETOOL, "%s", msg);
    free(msg);
    return TN_ETOOL;
  }
  free(msg);
  return 1;
}

/* Worker k died: the request it was compiling fails (not when it died
 * warming up: it had begun none), the ones behind it go back. */
static void died(tn_compile_pool *p, int k, tn_compile_pool_result *res)
{
  tn_compile_pool_worker *w = &p->w[k];
  int i, blame = w->depth > 0 && !w->warming;
  free(res->log);
  free(res->cubin);
  res->log = NULL;
  res->cubin = NULL;
  res->cubin_len = 0;
  if (blame) {
    res->index = w->q[0].index;
    res->rc = 2;
    res->times.worker = k;
    res->times.sent = w->q[0].sent;
    res->times.read = tn_now();
  }
  for (i = blame; i < w->depth; i++)
    res->requeue[res->n_requeue++] = w->q[i].index;
  reap(w, 1, res->why, sizeof(res->why));
}

int tn_compile_pool_collect(tn_compile_pool *p, int wake_fd,
                            tn_compile_pool_result *res, tn_err *err)
{
  struct pollfd pfd[TN_COMPILE_POOL_MAX + 1];
  int map[TN_COMPILE_POOL_MAX + 1];

  memset(res, 0, sizeof(*res));
  res->index = -1;
  res->times.worker = -1;
  for (;;) {
    int n = 0, i, pr, rc, waiting = 0;
    if (wake_fd >= 0) {
      pfd[n].fd = wake_fd;
      pfd[n].events = POLLIN;
      map[n++] = -1;
    }
    for (i = 0; i < p->n; i++)
      if (p->w[i].pid > 0 && (p->w[i].depth > 0 || p->w[i].warming)) {
        pfd[n].fd = p->w[i].from_fd;
        pfd[n].events = POLLIN;
        map[n++] = i;
        waiting += p->w[i].depth;
      }
    if (waiting == 0)
      return 1; /* nothing out: only warm-ups, which nobody waits for */
    do
      pr = poll(pfd, (nfds_t)n, -1);
    while (pr < 0 && errno == EINTR);
    if (pr < 0)
      return tn_errf(err, TN_ETOOL, "poll: %s", strerror(errno));
    for (i = 0; i < n; i++) {
      if (pfd[i].revents == 0)
        continue;
      if (map[i] < 0)
        return 1;
      if (p->w[map[i]].pid <= 0)
        continue; /* reaped in this round */
      rc = read_one(p, map[i], res, err);
      if (rc == 1 || rc == TN_ETOOL)
        return rc == 1 ? 0 : rc;
      if (rc == -2) {
        char why[256];
        reap(&p->w[map[i]], 1, why, sizeof(why));
        return tn_errf(err, TN_ETOOL, "%s __compile did not start: %s",
                       p->exe, why);
      }
      if (rc == -1) {
        died(p, map[i], res);
        if (res->index >= 0 || res->n_requeue > 0)
          return 0;
      }
    }
  }
}

void tn_compile_pool_drain(tn_compile_pool *p)
{
  tn_compile_pool_result res;
  tn_err ignore = {{0}};
  int i;
  for (i = 0; i < p->n; i++) {
    tn_compile_pool_worker *w = &p->w[i];
    while (w->pid > 0 && w->depth == 0 && w->warming) {
      struct pollfd pfd = {w->from_fd, POLLIN, 0};
      memset(&res, 0, sizeof(res));
      if (poll(&pfd, 1, 0) != 1)
        break;
      if (read_one(p, i, &res, &ignore) != 0)
        reap(w, 1, NULL, 0);
    }
  }
}

void tn_compile_pool_close(tn_compile_pool *p)
{
  int i, leaving[TN_COMPILE_POOL_MAX];
  for (i = 0; i < p->n; i++) {
    tn_compile_pool_worker *w = &p->w[i];
    leaving[i] = 0;
    if (w->pid <= 0)
      continue;
    if (w->depth > 0 || w->jobs == 0) {
      reap(w, 1, NULL, 0); /* busy, or nothing of it to store */
      continue;
    }
    close(w->to_fd); /* EOF: it stores its last entry and leaves */
    w->to_fd = -1;
    leaving[i] = 1;
  }
  /* all told first, so that they leave together */
  for (i = 0; i < p->n; i++)
    if (leaving[i])
      reap(&p->w[i], 0, NULL, 0);
}

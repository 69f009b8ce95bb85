/* compile_pool.c -- NVRTC in worker processes ("tuner __compile").
 *
 * Messages are a fixed header (type, payload length), a struct and the
 * strings it sizes: both ends are the same binary. */
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
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "pipeline/compile_cache.h"
#include "pipeline/compile_nvrtc.h"

enum { MSG_HELLO = 1, MSG_SETUP = 2, MSG_JOB = 3, MSG_RESULT = 4 };

#define POOL_IN 3
#define POOL_OUT 4
#define MAX_PAYLOAD (1u << 30)

typedef struct {
  unsigned type;
  unsigned len;
} msg_header;

typedef struct {
  char arch[32];
  int n_headers;
  unsigned name_len[TN_MAX_HEADERS], text_len[TN_MAX_HEADERS];
  unsigned cache_len;
} msg_setup;

typedef struct {
  int index, id;
  unsigned name_len, src_len, key_len;
} msg_job;

typedef struct {
  int index, rc; /* rc: 0, 1 compile error, -1 NVRTC failed (err) */
  unsigned log_len, cubin_len, err_len;
} msg_result;

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

/* A whole read without a deadline (the workers' answers are waited for
 * with poll, in tn_compile_pool_collect). */
static int read_all(int fd, void *data, size_t len)
{
  return tn_proc_read_all(fd, data, len, 0);
}

/* A header and up to four pieces, in one message. */
static int send_msg(int fd, unsigned type, const void *const *part,
                    const size_t *len, int n)
{
  msg_header h = {type, 0};
  size_t total = 0;
  int i;
  for (i = 0; i < n; i++)
    total += len[i];
  if (total > MAX_PAYLOAD)
    return -1;
  h.len = (unsigned)total;
  if (tn_proc_write_all(fd, &h, sizeof(h)) != 0)
    return -1;
  for (i = 0; i < n; i++)
    if (len[i] && tn_proc_write_all(fd, part[i], len[i]) != 0)
      return -1;
  return 0;
}

/* len bytes into a malloc'd, NUL-terminated buffer; 0 or -1. */
static int read_text(int fd, size_t len, char **out)
{
  *out = malloc(len + 1);
  if (*out == NULL || read_all(fd, *out, len) != 0) {
    free(*out);
    *out = NULL;
    return -1;
  }
  (*out)[len] = '\0';
  return 0;
}

/* ---- the parent's side ---- */

void tn_compile_pool_init(tn_compile_pool *p, const char *exe, int n,
                          const tn_template *t,
                          const tn_arch *arch, const char *cache_dir)
{
  memset(p, 0, sizeof(*p));
  tn_strlcpy(p->exe, exe, sizeof(p->exe));
  p->n = n < 1 ? 1 : n > TN_COMPILE_POOL_MAX ? TN_COMPILE_POOL_MAX : n;
  p->t = t;
  p->arch = arch;
  tn_strlcpy(p->cache_dir, cache_dir, sizeof(p->cache_dir));
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
  close(w->to_fd);
  close(w->from_fd);
  w->pid = 0;
  w->to_fd = w->from_fd = -1;
  w->index = -1;
}

static int send_setup(tn_compile_pool *p, int fd)
{
  const void *part[1 + 2 * TN_MAX_HEADERS + 1];
  size_t len[1 + 2 * TN_MAX_HEADERS + 1];
  msg_setup s;
  msg_header h;
  int i, n = 0;
  char *buf;
  size_t total = sizeof(s), off;

  memset(&s, 0, sizeof(s));
  tn_strlcpy(s.arch, p->arch->name, sizeof(s.arch));
  s.n_headers = p->t ? p->t->n_headers : 0;
  part[n] = &s;
  len[n++] = sizeof(s);
  for (i = 0; i < s.n_headers; i++) {
    s.name_len[i] = (unsigned)strlen(p->t->header_names[i]);
    s.text_len[i] = (unsigned)strlen(p->t->header_texts[i]);
    part[n] = p->t->header_names[i];
    len[n++] = s.name_len[i];
    part[n] = p->t->header_texts[i];
    len[n++] = s.text_len[i];
  }
  s.cache_len = (unsigned)strlen(p->cache_dir);
  part[n] = p->cache_dir;
  len[n++] = s.cache_len;
  for (i = 1; i < n; i++)
    total += len[i];
  if (total > MAX_PAYLOAD)
    return -1;
  /* one buffer: send_msg takes four pieces at most */
  buf = malloc(total);
  if (buf == NULL)
    return -1;
  for (i = 0, off = 0; i < n; i++) {
    memcpy(buf + off, part[i], len[i]);
    off += len[i];
  }
  h.type = MSG_SETUP;
  h.len = (unsigned)total;
  i = tn_proc_write_all(fd, &h, sizeof(h)) || tn_proc_write_all(fd, buf, total);
  free(buf);
  return i ? -1 : 0;
}

static int start_worker(tn_compile_pool *p, tn_compile_pool_worker *w,
                        tn_err *err)
{
  int to[2], from[2];
  char why[256];
  pid_t pid;

  if (pipe2(to, O_CLOEXEC) != 0)
    return tn_errf(err, TN_ETOOL, "pipe: %s", strerror(errno));
  if (pipe2(from, O_CLOEXEC) != 0) {
    close(to[0]);
    close(to[1]);
    return tn_errf(err, TN_ETOOL, "pipe: %s", strerror(errno));
  }
  signal(SIGPIPE, SIG_IGN); /* a dead worker shows as a write error */
  pid = fork();
  if (pid < 0)
    return tn_errf(err, TN_ETOOL, "fork: %s", strerror(errno));
  if (pid == 0) {
    /* Ctrl-C reaches the tuner, not its compilers; dies with its thread */
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int in = fcntl(to[0], F_DUPFD, 10), out = fcntl(from[1], F_DUPFD, 10);
    if (in < 0 || out < 0 || dup2(in, POOL_IN) < 0 ||
        dup2(out, POOL_OUT) < 0 || fcntl(POOL_IN, F_SETFD, 0) != 0 ||
        fcntl(POOL_OUT, F_SETFD, 0) != 0)
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
  w->index = -1;
  w->hello = 0; /* read before its first answer: starting is not waited for */
  p->starts++;
  if (send_setup(p, w->to_fd) == 0)
    return 0;
  reap(w, 1, why, sizeof(why));
  return tn_errf(err, TN_ETOOL, "%s __compile did not start: %s", p->exe,
                 why);
}

int tn_compile_pool_busy(const tn_compile_pool *p)
{
  int i, n = 0;
  for (i = 0; p->w && i < p->n; i++)
    n += p->w[i].pid > 0 && p->w[i].index >= 0;
  return n;
}

int tn_compile_pool_submit(tn_compile_pool *p, int index, int id,
                           const char *name,
                           const char *source, const char *key, tn_err *err)
{
  tn_compile_pool_worker *w = NULL;
  msg_job j;
  const void *part[4];
  size_t len[4];
  int i, rc;

  if (p->w == NULL) {
    p->w = calloc((size_t)p->n, sizeof(*p->w));
    if (p->w == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory");
    for (i = 0; i < p->n; i++)
      p->w[i].index = -1;
  }
  for (i = 0; i < p->n && w == NULL; i++)
    if (p->w[i].pid > 0 && p->w[i].index < 0)
      w = &p->w[i];
  for (i = 0; i < p->n && w == NULL; i++)
    if (p->w[i].pid <= 0) {
      rc = start_worker(p, &p->w[i], err);
      if (rc != 0)
        return rc;
      w = &p->w[i];
    }
  if (w == NULL)
    return 1;
  j.index = index;
  j.id = id;
  j.name_len = (unsigned)strlen(name);
  j.src_len = (unsigned)strlen(source);
  j.key_len = (unsigned)strlen(key);
  part[0] = &j;
  len[0] = sizeof(j);
  part[1] = name;
  len[1] = j.name_len;
  part[2] = source;
  len[2] = j.src_len;
  part[3] = key;
  len[3] = j.key_len;
  /* a worker dead before the job shows when its answer is read */
  (void)send_msg(w->to_fd, MSG_JOB, part, len, 4);
  w->index = index;
  return 0;
}

/* Reads one worker's answer; 0, TN_ETOOL (NVRTC failed), -1 (the
 * worker is gone) or -2 (it never started). */
static int read_result(tn_compile_pool_worker *w, tn_compile_pool_result *res,
                       tn_err *err)
{
  msg_header h;
  msg_result r;
  char *msg = NULL;
  if (!w->hello) {
    if (read_all(w->from_fd, &h, sizeof(h)) != 0 || h.type != MSG_HELLO ||
        h.len != 0)
      return -2;
    w->hello = 1;
  }
  if (read_all(w->from_fd, &h, sizeof(h)) != 0 || h.type != MSG_RESULT ||
      h.len < sizeof(r) || read_all(w->from_fd, &r, sizeof(r)) != 0 ||
      h.len - sizeof(r) != (size_t)r.log_len + r.cubin_len + r.err_len ||
      r.index != w->index)
    return -1;
  if ((r.log_len && read_text(w->from_fd, r.log_len, &res->log) != 0) ||
      (r.cubin_len &&
       read_text(w->from_fd, r.cubin_len, (char **)&res->cubin) != 0) ||
      read_text(w->from_fd, r.err_len, &msg) != 0)
    return -1;
  res->cubin_len = r.cubin_len;
  res->rc = r.rc;
  w->index = -1;
  if (r.rc < 0) {
    tn_errf(err, TN_ETOOL, "%s", msg);
    free(msg);
    return TN_ETOOL;
  }
  free(msg);
  return 0;
}

int tn_compile_pool_collect(tn_compile_pool *p, int wake_fd,
                            tn_compile_pool_result *res,
                            tn_err *err)
{
  struct pollfd pfd[TN_COMPILE_POOL_MAX + 1];
  int map[TN_COMPILE_POOL_MAX + 1], n = 0, i, pr, rc;

  memset(res, 0, sizeof(*res));
  res->index = -1;
  if (wake_fd >= 0) {
    pfd[n].fd = wake_fd;
    pfd[n].events = POLLIN;
    map[n++] = -1;
  }
  for (i = 0; p->w && i < p->n; i++)
    if (p->w[i].pid > 0 && p->w[i].index >= 0) {
      pfd[n].fd = p->w[i].from_fd;
      pfd[n].events = POLLIN;
      map[n++] = i;
    }
  for (;;) {
    pr = poll(pfd, (nfds_t)n, -1);
    if (pr >= 0 || errno != EINTR)
      break;
  }
  if (pr < 0)
    return tn_errf(err, TN_ETOOL, "poll: %s", strerror(errno));
  for (i = 0; i < n; i++) {
    tn_compile_pool_worker *w;
    if (pfd[i].revents == 0)
      continue;
    if (map[i] < 0)
      return 1;
    w = &p->w[map[i]];
    res->index = w->index;
    rc = read_result(w, res, err);
    if (rc >= 0 || rc == TN_ETOOL)
      return rc == TN_ETOOL ? rc : 0;
    if (rc == -2) {
      char why[256];
      reap(w, 1, why, sizeof(why));
      return tn_errf(err, TN_ETOOL, "%s __compile did not start: %s",
                     p->exe, why);
    }
    /* the worker died: it costs this one candidate */
    free(res->log);
    free(res->cubin);
    res->log = NULL;
    res->cubin = NULL;
    res->cubin_len = 0;
    res->rc = 2;
    reap(w, 1, res->why, sizeof(res->why));
    return 0;
  }
  return 1;
}

void tn_compile_pool_close(tn_compile_pool *p)
{
  int i;
  for (i = 0; p->w && i < p->n; i++) {
    tn_compile_pool_worker *w = &p->w[i];
    if (w->pid <= 0)
      continue;
    if (w->index >= 0) {
      reap(w, 1, NULL, 0);
      continue;
    }
    close(w->to_fd); /* EOF: it stores its last entry and leaves */
    w->to_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    reap(w, 0, NULL, 0);
  }
  free(p->w);
  p->w = NULL;
}

/* ---- the worker's side ---- */

static int serve_one(const tn_template *t, const tn_arch *arch,
                     const char *cache, const msg_job *j, char *name,
                     char *source, char *key, void (*before)(int id))
{
  const void *part[4];
  size_t len[4];
  void *cubin = NULL;
  size_t cubin_len = 0;
  char *log = NULL;
  tn_err e = {{0}};
  msg_result r;
  int rc;

  if (before)
    before(j->id);
  rc = tn_compile_source(source, name, t, arch, &cubin, &cubin_len, &log, &e);
  memset(&r, 0, sizeof(r));
  r.index = j->index;
  r.rc = rc < 0 ? -1 : rc;
  r.log_len = log ? (unsigned)strlen(log) : 0;
  r.cubin_len = rc == 0 ? (unsigned)cubin_len : 0;
  r.err_len = rc < 0 ? (unsigned)strlen(e.msg) : 0;
  part[0] = &r;
  len[0] = sizeof(r);
  part[1] = log;
  len[1] = r.log_len;
  part[2] = cubin;
  len[2] = r.cubin_len;
  part[3] = e.msg;
  len[3] = r.err_len;
  if (send_msg(POOL_OUT, MSG_RESULT, part, len, 4) != 0)
    rc = -2;
  else if (rc >= 0 && cache[0] && key[0])
    /* after the answer: the store's fsync delays no one */
    tn_compile_cache_put(cache, key, rc != 0, log, cubin, cubin_len);
  free(cubin);
  free(log);
  return rc == -2 ? -1 : 0;
}

int tn_compile_pool_serve(void (*before)(int id))
{
  msg_header h;
  msg_setup s;
  tn_template t;
  const tn_arch *arch;
  char *cache = NULL;
  int i, rc = 1;

  memset(&t, 0, sizeof(t));
  if (send_msg(POOL_OUT, MSG_HELLO, NULL, NULL, 0) != 0 ||
      read_all(POOL_IN, &h, sizeof(h)) != 0 || h.type != MSG_SETUP ||
      h.len < sizeof(s) || read_all(POOL_IN, &s, sizeof(s)) != 0 ||
      s.n_headers < 0 || s.n_headers > TN_MAX_HEADERS)
    return 1;
  s.arch[sizeof(s.arch) - 1] = '\0';
  arch = tn_arch_find(s.arch);
  for (i = 0; i < s.n_headers; i++) {
    if (read_text(POOL_IN, s.name_len[i], &t.header_names[i]) != 0 ||
        read_text(POOL_IN, s.text_len[i], &t.header_texts[i]) != 0)
      goto done;
    t.n_headers = i + 1;
  }
  if (arch == NULL || read_text(POOL_IN, s.cache_len, &cache) != 0)
    goto done;
  for (;;) {
    msg_job j;
    char *name = NULL, *source = NULL, *key = NULL;
    int bad;
    if (read_all(POOL_IN, &h, sizeof(h)) != 0) {
      rc = 0; /* EOF: the tuner is done */
      break;
    }
    if (h.type != MSG_JOB || h.len < sizeof(j) ||
        read_all(POOL_IN, &j, sizeof(j)) != 0 ||
        h.len - sizeof(j) != (size_t)j.name_len + j.src_len + j.key_len)
      break;
    bad = read_text(POOL_IN, j.name_len, &name) != 0 ||
          read_text(POOL_IN, j.src_len, &source) != 0 ||
          read_text(POOL_IN, j.key_len, &key) != 0 ||
          serve_one(&t, arch, cache, &j, name, source, key, before) != 0;
    free(name);
    free(source);
    free(key);
    if (bad)
      break;
  }
done:
  for (i = 0; i < t.n_headers; i++) {
    free(t.header_names[i]);
    free(t.header_texts[i]);
  }
  free(cache);
  return rc;
}

int tn_compile_pool_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  return tn_compile_pool_serve(NULL);
}

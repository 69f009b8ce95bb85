/* compile.c -- NVRTC, in parallel (worker processes fed by a thread),
 * with an on-disk cache. */
#define _GNU_SOURCE
#include "pipeline/compile.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/progress.h"
#include "pipeline/cache_dir.h"
#include "pipeline/compile_pool.h"

/* 1 if the CUBIN's ELF symbol table has a function named name, 0 if it
 * has none, -1 if the CUBIN is not an ELF64 file this can read.  An
 * extern "C" kernel keeps its name; a C++ one is mangled and not found. */
static int cubin_has_function(const void *cubin, size_t len,
                              const char *name)
{
  const unsigned char *b = cubin;
  const Elf64_Ehdr *eh = cubin;
  size_t i, nlen = strlen(name);

  if (cubin == NULL || len < sizeof(*eh) || memcmp(b, ELFMAG, SELFMAG) != 0 ||
      b[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
      eh->e_shoff > len ||
      (size_t)eh->e_shnum > (len - eh->e_shoff) / sizeof(Elf64_Shdr))
    return -1;
  for (i = 0; i < eh->e_shnum; i++) {
    Elf64_Shdr sh, str;
    size_t k;
    memcpy(&sh, b + eh->e_shoff + i * sizeof(sh), sizeof(sh));
    if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= eh->e_shnum ||
        sh.sh_offset > len || sh.sh_size > len - sh.sh_offset)
      continue;
    memcpy(&str, b + eh->e_shoff + sh.sh_link * sizeof(str), sizeof(str));
    if (str.sh_offset > len || str.sh_size > len - str.sh_offset)
      return -1;
    for (k = 0; k + sizeof(Elf64_Sym) <= sh.sh_size; k += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      memcpy(&sym, b + sh.sh_offset + k, sizeof(sym));
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC ||
          sym.st_name >= str.sh_size || str.sh_size - sym.st_name <= nlen)
        continue;
      if (memcmp(b + str.sh_offset + sym.st_name, name, nlen + 1) == 0)
        return 1;
    }
  }
  return 0;
}

/* ---- compiling a space: a thread that feeds the workers ---- */

enum { S_NONE, S_QUEUED, S_BUSY, S_DONE, S_APPLIED };

typedef struct {
  int state;
  tn_status status;
  int cache_hit;
  char *log;
  void *cubin;
  size_t cubin_len;
  double c0, compile_s;
  char why[256];  /* how a worker died compiling it */
  char *source;   /* rendered, a miss, waiting for room in the pool */
  char key[33];
  tn_compile_pool_times times;
} slot;

/* The feeder owns the slots' results until they are DONE; the caller's
 * thread moves them into the space (tn_compile_wait), so only it writes
 * the candidates.  The pool is the feeder's while it runs. */
struct tn_compile_run {
  const tn_job *job;
  const tn_template *t;
  const tn_arch *arch;
  tn_space *space;
  int use_cache, use_pool, background;
  char cache_dir[4096];
  const tn_mac_key *mac; /* the cache's key, or NULL */
  tn_compile_pool own, *pool; /* pool: opts->pool, or &own */
  slot *s;
  int *order, *pos; /* the compile order, and each index's place in it */
  int next, want, cancel, done, fatal, started; /* next: a place */
  int queued;  /* slots S_QUEUED */
  int stalled; /* a miss found no room: collect before the next */
  double warm_start, warm_ready; /* the pool's, copied under mu */
  tn_err err;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
  int wake[2];
  tn_progress bar;
  double t0, t_end;
  double wait_warm_s;
};

/* The next request: the one the caller waits for, else in r->order. */
static int pick(tn_compile_run *r)
{
  if (r->want >= 0 && r->s[r->want].state == S_QUEUED)
    return r->want;
  while (r->next < r->space->n && r->s[r->order[r->next]].state != S_QUEUED)
    r->next++;
  return r->next < r->space->n ? r->order[r->next] : -1;
}

/* With the lock held: slot i goes back in the queue. */
static void requeue(tn_compile_run *r, int i)
{
  r->s[i].state = S_QUEUED;
  r->queued++;
  if (r->pos[i] < r->next)
    r->next = r->pos[i];
}

/* With the lock held: slot i is compiled. */
static void mark_done(tn_compile_run *r, int i)
{
  slot *s = &r->s[i];
  s->state = S_DONE;
  if (s->times.started > 0) /* the NVRTC call's own time */
    s->compile_s = s->times.finished - s->times.started;
  else
    s->compile_s = tn_now() - s->c0;
  r->t_end = tn_now();
  tn_progress_step(&r->bar, NULL);
  pthread_cond_broadcast(&r->cv);
}

/* Renders candidate i and serves it from the cache, compiles it here, or
 * hands it to a worker (depth: see tn_compile_pool_submit).  Returns 1
 * if it is done, 0 if a worker has it, 2 if the pool has no room for it
 * now (kept rendered), or TN_ETOOL. */
static int begin(tn_compile_run *r, int i, int depth, tn_err *err)
{
  const tn_candidate *c = &r->space->c[i];
  slot *s = &r->s[i];
  char name[64];
  tn_candidate got;
  int rc;

  snprintf(name, sizeof(name), "%s_%d.cu", r->job->family->name, c->id);
  if (s->source == NULL) {
    s->c0 = tn_now();
    rc = tn_render(r->job->family, &c->params, &r->job->problems[0], r->t,
                   &s->source, err);
    if (rc != 0)
      return TN_ETOOL;
    tn_compile_cache_key(s->source, r->t, r->arch, s->key);
    memset(&got, 0, sizeof(got));
    if (r->use_cache &&
        tn_compile_cache_get(r->cache_dir, r->mac, s->key, &got)) {
      s->status = got.status;
      s->log = got.log;
      s->cubin = got.cubin;
      s->cubin_len = got.cubin_len;
      s->cache_hit = 1;
      free(s->source);
      s->source = NULL;
      return 1;
    }
  }
  if (r->use_pool) {
    rc = tn_compile_pool_submit(r->pool, depth, i, c->id, name, s->source,
                                r->use_cache ? s->key : "", err);
    if (rc == 1)
      return 2;
  } else {
    s->times.worker = -1;
    s->times.started = tn_now();
    rc = tn_compile_source(s->source, name, r->t, r->arch, &s->cubin,
                           &s->cubin_len, &s->log, err);
    s->times.finished = tn_now();
    if (rc >= 0) {
      s->status = rc == 0 ? TN_ST_COMPILED : TN_ST_COMPILE_ERROR;
      if (r->use_cache)
        tn_compile_cache_put(r->cache_dir, r->mac, s->key, rc != 0, s->log,
                             s->cubin, s->cubin_len);
      rc = 1;
    }
  }
  free(s->source);
  s->source = NULL;
  return rc;
}

/* With the lock held: an answer (or a dead worker's requests) arrived. */
static void took(tn_compile_run *r, tn_compile_pool_result *res)
{
  int k;
  for (k = 0; k < res->n_requeue; k++)
    requeue(r, res->requeue[k]);
  if (res->index >= 0) {
    slot *s = &r->s[res->index];
    s->log = res->log;
    s->cubin = res->cubin;
    s->cubin_len = res->cubin_len;
    s->times = res->times;
    s->status = res->rc == 0 ? TN_ST_COMPILED : TN_ST_COMPILE_ERROR;
    if (res->rc == 2)
      snprintf(s->why, sizeof(s->why), "%.200s while compiling it",
               res->why);
    mark_done(r, res->index);
  }
}

static void *feed(void *arg)
{
  tn_compile_run *r = arg;
  tn_err e = {{0}};
  pthread_mutex_lock(&r->mu);
  while (!r->cancel && !r->fatal) {
    int out = r->use_pool ? tn_compile_pool_outstanding(r->pool) : 0;
    /* a second source per worker only while more are left than there
     * are workers: at the end it could wait behind a long compile while
     * another worker idles */
    int depth = r->use_pool && r->queued > r->pool->n ? TN_COMPILE_POOL_DEPTH
                                                       : 1;
    int i = -1, rc;
    tn_compile_pool_result res;
    if (!r->stalled &&
        (r->use_pool ? tn_compile_pool_room(r->pool, depth) : 1))
      i = pick(r);
    if (i >= 0) {
      r->s[i].state = S_BUSY;
      r->queued--;
      pthread_mutex_unlock(&r->mu);
      rc = begin(r, i, depth, &e);
      pthread_mutex_lock(&r->mu);
      if (r->use_pool)
        r->warm_start = r->pool->t_warm;
      if (rc < 0) {
        r->fatal = rc;
        r->err = e;
      } else if (rc == 1) {
        mark_done(r, i);
      } else if (rc == 2) {
        requeue(r, i);
        r->stalled = 1;
      }
      continue;
    }
    if (out == 0)
      break; /* nothing left to give, nothing out */
    pthread_mutex_unlock(&r->mu);
    rc = tn_compile_pool_collect(r->pool, r->wake[0], &res, &e);
    pthread_mutex_lock(&r->mu);
    r->stalled = 0;
    r->warm_ready = r->pool->t_first_ready;
    if (rc == 1) {
      char drain[16];
      while (read(r->wake[0], drain, sizeof(drain)) > 0)
        ;
      continue;
    }
    if (rc < 0) {
      r->fatal = rc;
      r->err = e;
      continue;
    }
    took(r, &res);
  }
  pthread_mutex_unlock(&r->mu);
  /* a pool of its own dies with the compile (the run's lives on) */
  if (r->use_pool && r->pool == &r->own)
    tn_compile_pool_close(&r->own);
  else if (r->use_pool && (r->cancel || r->fatal))
    tn_compile_pool_close(r->pool); /* requests out: their workers go */
  pthread_mutex_lock(&r->mu);
  r->done = 1;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
  return NULL;
}

/* qsort's context, one a thread (each GPU's job compiles from its own) */
static _Thread_local const tn_family *weigh_family;
static _Thread_local const tn_space *weigh_space;

/* Heaviest first (the family's compile_weight), then by index. */
static int cmp_weight(const void *pa, const void *pb)
{
  int a = *(const int *)pa, b = *(const int *)pb;
  double wa =
      weigh_family->compile_weight(weigh_family, &weigh_space->c[a].params);
  double wb =
      weigh_family->compile_weight(weigh_family, &weigh_space->c[b].params);
  if (wa != wb)
    return wa > wb ? -1 : 1;
  return (a > b) - (a < b);
}

int tn_compile_order(const tn_family *f, const tn_space *space,
                     const int *given, int *order)
{
  int i, ok = 1;
  int *seen = calloc((size_t)(space->n > 0 ? space->n : 1), sizeof(int));
  if (seen == NULL)
    return -1;
  for (i = 0; i < space->n; i++)
    order[i] = given ? given[i] : i;
  if (given == NULL && f->compile_weight) {
    /* one thread sorts at a time: the comparison reads these two */
    static pthread_mutex_t sort_mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&sort_mu);
    weigh_family = f;
    weigh_space = space;
    qsort(order, (size_t)space->n, sizeof(int), cmp_weight);
    pthread_mutex_unlock(&sort_mu);
  }
  for (i = 0; ok && i < space->n; i++) {
    ok = order[i] >= 0 && order[i] < space->n && !seen[order[i]];
    if (ok)
      seen[order[i]] = 1;
  }
  free(seen);
  return ok ? 0 : -1;
}

/* r->order (tn_compile_order) and r->pos, its inverse.  0, or -1. */
static int make_order(tn_compile_run *r, const tn_compile_opts *opts)
{
  int i, n = r->space->n > 0 ? r->space->n : 1;
  r->order = malloc(sizeof(int) * (size_t)n);
  r->pos = malloc(sizeof(int) * (size_t)n);
  if (r->order == NULL || r->pos == NULL ||
      tn_compile_order(r->job->family, r->space, opts->order, r->order) != 0)
    return -1;
  for (i = 0; i < r->space->n; i++)
    r->pos[r->order[i]] = i;
  return 0;
}

static void free_run(tn_compile_run *r)
{
  free(r->order);
  free(r->pos);
  free(r->s);
  free(r);
}

int tn_compile_start(const tn_job *job, const tn_template *t,
                     const tn_arch *arch, tn_space *space,
                     const tn_compile_opts *opts, int background,
                     tn_compile_run **out, tn_err *err)
{
  tn_compile_run *r = calloc(1, sizeof(*r));
  char exe[4096];
  int i, rc;

  *out = NULL;
  if (r == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory");
  r->job = job;
  r->space = space;
  r->s = calloc((size_t)(space->n > 0 ? space->n : 1), sizeof(slot));
  if (r->s == NULL || make_order(r, opts) != 0) {
    free_run(r);
    return tn_errf(err, TN_ETOOL, "out of memory, or a compile order that "
                                  "is not one of the candidates");
  }
  if (pipe2(r->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    free_run(r);
    return tn_errf(err, TN_ETOOL, "pipe: %s", strerror(errno));
  }
  r->t0 = tn_now();
  r->t = t;
  r->arch = arch;
  r->want = -1;
  r->background = background;
  r->use_cache = opts->cache_dir[0] != '\0';
  tn_strlcpy(r->cache_dir, opts->cache_dir, sizeof(r->cache_dir));
  r->mac = opts->cache_mac;
  if (r->use_cache &&
      tn_cache_dir_make(r->cache_dir, r->mac != NULL, err) != 0) {
    /* a cache we cannot create is not worth stopping for; one that became
     * shared since the precheck is not used */
    fprintf(stderr, "tuner: warning: no compile cache: %s\n", err->msg);
    err->msg[0] = '\0';
    r->use_cache = 0;
  }
  for (i = 0; i < space->n; i++) {
    r->s[i].times.worker = -1;
    if (space->c[i].status == TN_ST_PENDING) {
      r->s[i].state = S_QUEUED;
      r->queued++;
    }
  }
  if (opts->pool) {
    r->pool = opts->pool;
    r->use_pool = 1;
  } else if (tn_compile_pool_exe(exe, sizeof(exe)) == 0) {
    tn_compile_pool_init(&r->own, exe,
                         opts->jobs > 0 ? opts->jobs
                                        : tn_compile_pool_cores());
    r->pool = &r->own;
    r->use_pool = 1;
  }
  if (r->use_pool) {
    rc = tn_compile_pool_setup(r->pool, t, arch,
                               r->use_cache ? r->cache_dir : "", r->mac,
                               err);
    r->warm_start = r->pool->t_warm;
    r->warm_ready = r->pool->t_first_ready;
  } else {
    rc = 0;
  }
  /* in the background the bench bar has the terminal */
  tn_progress_start(&r->bar, "compile", r->queued, opts->quiet || background);
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
  if (rc != 0 || pthread_create(&r->thread, NULL, feed, r) != 0) {
    close(r->wake[0]);
    close(r->wake[1]);
    free_run(r);
    return rc ? rc : tn_errf(err, TN_ETOOL, "pthread_create failed");
  }
  r->started = 1;
  *out = r;
  return 0;
}

/* The reason of kernel's compile error: NVRTC's first line that says
 * "error" (ptxas's info lines come first in its log), then the log. */
static void error_reason(const char *log, const char *kernel, char *out,
                         size_t n)
{
  const char *line = log, *e;
  tn_candidate t;
  while (line && *line) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    e = strstr(line, "error");
    if (e && (size_t)(e - line) < len) {
      snprintf(out, n, "NVRTC: %.*s\n%.800s", (int)(len < 300 ? len : 300),
               line, log);
      return;
    }
    line = end ? end + 1 : NULL;
  }
  /* ptxas refuses more than 48 KiB of static shared memory with nothing
   * in the log but its info lines (NVRTC 13.0) */
  memset(&t, 0, sizeof(t));
  if (log && tn_compile_parse_resources(log, kernel, &t) == 0 &&
      t.smem_bytes > 48 * 1024) {
    snprintf(out, n, "NVRTC failed: ptxas gives %s %d bytes of static "
                     "shared memory, above the 48 KiB a kernel may declare "
                     "(a plan's arrays prune such points before "
                     "compiling)\n%.700s",
             kernel, t.smem_bytes, log);
    return;
  }
  snprintf(out, n, "NVRTC: %.900s", log ? log : "compile error without a log");
}

/* Moves slot i into its candidate.  Returns 0 or TN_EINPUT: a CUBIN
 * without the family's kernel. */
static int apply(tn_compile_run *r, int i, tn_err *err)
{
  tn_candidate *c = &r->space->c[i];
  slot *s = &r->s[i];
  const char *kernel = r->job->family->kernel;
  /* measured already (restored by --resume while the rest compile): the
   * compile adds what it tells (registers), not a state */
  int measured = c->status == TN_ST_OK || c->status == TN_ST_WRONG ||
                 c->status == TN_ST_FAILED;

  if (!measured)
    c->status = s->status;
  c->log = s->log;
  c->cubin = s->cubin;
  c->cubin_len = s->cubin_len;
  c->cache_hit = s->cache_hit;
  c->compile_s = s->compile_s;
  s->log = NULL;
  s->cubin = NULL;
  s->state = S_APPLIED;
  if (measured)
    tn_compile_parse_resources(c->log, kernel, c);
  else if (s->why[0])
    tn_candidate_set_reason(c, "%s", s->why);
  else if (c->status == TN_ST_COMPILE_ERROR) {
    char why[1024];
    error_reason(c->log, kernel, why, sizeof(why));
    tn_candidate_set_reason(c, "%s", why);
  } else
    tn_compile_parse_resources(c->log, kernel, c);
  if (c->status != TN_ST_COMPILED ||
      cubin_has_function(c->cubin, c->cubin_len, kernel) != 0)
    return 0;
  return tn_errf(err, TN_EINPUT,
                 "%s: defines no kernel %s: the %s family launches "
                 "extern \"C\" __global__ void %s(...) (candidate %d "
                 "compiled without it)",
                 r->job->template_path, kernel, r->job->family->name, kernel,
                 c->id);
}

/* With the lock held: of a wait from w0 to now, the part before a worker
 * was warm, when the pool was warming (a pool that was not started
 * early has no warm-up: its first compiles pay for their start). */
static void count_warm_wait(tn_compile_run *r, double w0)
{
  double w1 = tn_now(), end = r->warm_ready > 0 ? r->warm_ready : w1;
  double from = w0 > r->warm_start ? w0 : r->warm_start;
  if (r->warm_start > 0 && end > w1)
    end = w1;
  if (r->warm_start > 0 && end > from)
    r->wait_warm_s += end - from;
}

int tn_compile_wait(tn_compile_run *r, int index, tn_err *err)
{
  int rc = 0;
  double w0 = tn_now();
  if (r == NULL || index < 0 || index >= r->space->n)
    return 0;
  pthread_mutex_lock(&r->mu);
  if (r->s[index].state != S_NONE && r->s[index].state != S_APPLIED) {
    r->want = index;
    while (r->s[index].state != S_DONE && !r->fatal && !r->done)
      pthread_cond_wait(&r->cv, &r->mu);
    count_warm_wait(r, w0);
    if (r->s[index].state == S_DONE)
      rc = apply(r, index, err);
    else if (r->fatal) {
      rc = r->fatal;
      *err = r->err;
    }
  }
  pthread_mutex_unlock(&r->mu);
  return rc;
}

void tn_compile_finish(tn_compile_run *r, int cancel, tn_compile_stats *stats)
{
  tn_err ignore = {{0}};
  tn_compile_pool_times *times;
  int i;

  memset(stats, 0, sizeof(*stats));
  if (r == NULL)
    return;
  pthread_mutex_lock(&r->mu);
  if (cancel) {
    r->cancel = 1;
    if (write(r->wake[1], "x", 1) < 0) {
      /* the pipe is full: the feeder is awake already */
    }
  }
  while (!r->done)
    pthread_cond_wait(&r->cv, &r->mu);
  pthread_mutex_unlock(&r->mu);
  pthread_join(r->thread, NULL);
  tn_progress_end(&r->bar);
  for (i = 0; i < r->space->n; i++) {
    const tn_candidate *c = &r->space->c[i];
    if (r->s[i].state == S_DONE)
      apply(r, i, &ignore);
    free(r->s[i].log);
    free(r->s[i].cubin);
    free(r->s[i].source);
    if (r->s[i].state != S_APPLIED)
      continue; /* not pending, or cancelled */
    if (c->cache_hit)
      stats->cached++;
    else {
      stats->compiled++;
      stats->cpu_s += c->compile_s;
    }
    stats->failed += c->status == TN_ST_COMPILE_ERROR;
  }
  stats->threads = r->use_pool ? r->pool->n : 1;
  stats->wall_s = (r->t_end > 0 ? r->t_end : tn_now()) - r->t0;
  stats->trace.wait_warm_s = r->wait_warm_s;
  if (r->use_pool && r->pool != &r->own)
    tn_compile_pool_drain(r->pool); /* the warm-ups nobody waited for */
  times = malloc(sizeof(*times) * (size_t)(r->space->n + 1));
  for (i = 0; times && i < r->space->n; i++)
    times[i] = r->s[i].times;
  tn_compile_trace_fill(&stats->trace, r->use_pool ? r->pool : NULL, times,
                        times ? r->space->n : 0);
  free(times);
  close(r->wake[0]);
  close(r->wake[1]);
  pthread_mutex_destroy(&r->mu);
  pthread_cond_destroy(&r->cv);
  free_run(r);
}

int tn_compile_space(const tn_job *job, const tn_template *t,
                     const tn_arch *arch, tn_space *space,
                     const tn_compile_opts *opts, tn_compile_stats *stats,
                     tn_err *err)
{
  tn_compile_run *r;
  int i, rc = tn_compile_start(job, t, arch, space, opts, 0, &r, err);
  if (rc != 0) {
    memset(stats, 0, sizeof(*stats));
    return rc;
  }
  for (i = 0; i < space->n && rc == 0; i++)
    rc = tn_compile_wait(r, i, err);
  tn_compile_finish(r, rc != 0, stats);
  return rc;
}

/* compile.c -- NVRTC, in parallel (worker processes fed by a thread),
 * with an on-disk cache. */
#define _GNU_SOURCE
#include "pipeline/compile.h"

#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/progress.h"
#include "pipeline/compile_pool.h"

void tn_compile_default_cache(char *out, size_t n)
{
  const char *d = getenv("TUNER_CACHE_DIR");
  if (d && *d) {
    snprintf(out, n, "%s", d);
    return;
  }
  d = getenv("XDG_CACHE_HOME");
  if (d && *d) {
    snprintf(out, n, "%s/tuner", d);
    return;
  }
  d = getenv("HOME");
  snprintf(out, n, "%s/.cache/tuner", d && *d ? d : "/tmp");
}

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
  char why[256]; /* how a worker died compiling it */
} slot;

/* The feeder owns the slots' results until they are DONE; the caller's
 * thread moves them into the space (tn_compile_wait), so only it writes
 * the candidates. */
struct tn_compile_run {
  const tn_job *job;
  const tn_template *t;
  const tn_arch *arch;
  tn_space *space;
  int use_cache, use_pool, background;
  char cache_dir[4096];
  tn_compile_pool pool;
  slot *s;
  int next, want, cancel, done, fatal, started;
  tn_err err;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
  int wake[2];
  tn_progress bar;
  double t0, t_end;
};

/* The next request: the one the caller waits for, else in order. */
static int pick(tn_compile_run *r)
{
  if (r->want >= 0 && r->s[r->want].state == S_QUEUED)
    return r->want;
  while (r->next < r->space->n && r->s[r->next].state != S_QUEUED)
    r->next++;
  return r->next < r->space->n ? r->next : -1;
}

/* With the lock held: slot i is compiled. */
static void mark_done(tn_compile_run *r, int i)
{
  slot *s = &r->s[i];
  s->state = S_DONE;
  s->compile_s = tn_now() - s->c0;
  r->t_end = tn_now();
  tn_progress_step(&r->bar, NULL);
  pthread_cond_broadcast(&r->cv);
}

/* Renders candidate i and serves it from the cache, compiles it here, or
 * hands it to a worker.  Returns 1 if it is done, 0 if a worker has it,
 * or TN_ETOOL. */
static int begin(tn_compile_run *r, int i, tn_err *err)
{
  const tn_candidate *c = &r->space->c[i];
  slot *s = &r->s[i];
  char *source = NULL, key[33], name[64];
  tn_candidate got;
  int rc;

  s->c0 = tn_now();
  snprintf(name, sizeof(name), "%s_%d.cu", r->job->family->name, c->id);
  rc = tn_render(r->job->family, &c->params, &r->job->problems[0], r->t,
                 &source, err);
  if (rc != 0)
    return TN_ETOOL;
  tn_compile_cache_key(source, r->t, r->arch, key);
  memset(&got, 0, sizeof(got));
  if (r->use_cache && tn_compile_cache_get(r->cache_dir, key, &got)) {
    s->status = got.status;
    s->log = got.log;
    s->cubin = got.cubin;
    s->cubin_len = got.cubin_len;
    s->cache_hit = 1;
    rc = 1;
  } else if (r->use_pool) {
    rc = tn_compile_pool_submit(&r->pool, i, c->id, name, source,
                                r->use_cache ? key : "", err);
    if (rc == 1)
      rc = tn_errf(err, TN_ETOOL, "no idle compile worker");
  } else {
    rc = tn_compile_source(source, name, r->t, r->arch, &s->cubin,
                           &s->cubin_len, &s->log, err);
    if (rc >= 0) {
      s->status = rc == 0 ? TN_ST_COMPILED : TN_ST_COMPILE_ERROR;
      if (r->use_cache)
        tn_compile_cache_put(r->cache_dir, key, rc != 0, s->log, s->cubin,
                             s->cubin_len);
      rc = 1;
    }
  }
  free(source);
  return rc;
}

static void *feed(void *arg)
{
  tn_compile_run *r = arg;
  tn_err e = {{0}};
  pthread_mutex_lock(&r->mu);
  while (!r->cancel && !r->fatal) {
    int busy = r->use_pool ? tn_compile_pool_busy(&r->pool) : 0;
    int i = -1, rc;
    tn_compile_pool_result res;
    if (busy < (r->use_pool ? r->pool.n : 1))
      i = pick(r);
    if (i >= 0) {
      r->s[i].state = S_BUSY;
      pthread_mutex_unlock(&r->mu);
      rc = begin(r, i, &e);
      pthread_mutex_lock(&r->mu);
      if (rc < 0) {
        r->fatal = rc;
        r->err = e;
      } else if (rc == 1) {
        mark_done(r, i);
      }
      continue;
    }
    if (busy == 0)
      break; /* nothing left to give, nothing out */
    pthread_mutex_unlock(&r->mu);
    rc = tn_compile_pool_collect(&r->pool, r->wake[0], &res, &e);
    pthread_mutex_lock(&r->mu);
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
    r->s[res.index].log = res.log;
    r->s[res.index].cubin = res.cubin;
    r->s[res.index].cubin_len = res.cubin_len;
    r->s[res.index].status =
        res.rc == 0 ? TN_ST_COMPILED : TN_ST_COMPILE_ERROR;
    if (res.rc == 2)
      snprintf(r->s[res.index].why, sizeof(r->s[res.index].why),
               "%.200s while compiling it", res.why);
    mark_done(r, res.index);
  }
  pthread_mutex_unlock(&r->mu);
  /* here: the workers die with the thread that started them */
  if (r->use_pool)
    tn_compile_pool_close(&r->pool);
  pthread_mutex_lock(&r->mu);
  r->done = 1;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
  return NULL;
}

int tn_compile_start(const tn_job *job, const tn_template *t,
                     const tn_arch *arch, tn_space *space,
                     const tn_compile_opts *opts, int background,
                     tn_compile_run **out, tn_err *err)
{
  tn_compile_run *r = calloc(1, sizeof(*r));
  char exe[4096];
  int i, todo = 0;

  *out = NULL;
  if (r == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory");
  r->s = calloc((size_t)(space->n > 0 ? space->n : 1), sizeof(slot));
  if (r->s == NULL || pipe2(r->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    free(r->s);
    free(r);
    return tn_errf(err, TN_ETOOL, "out of memory");
  }
  r->t0 = tn_now();
  r->job = job;
  r->t = t;
  r->arch = arch;
  r->space = space;
  r->want = -1;
  r->background = background;
  r->use_cache = opts->cache_dir[0] != '\0';
  tn_strlcpy(r->cache_dir, opts->cache_dir, sizeof(r->cache_dir));
  if (r->use_cache && tn_mkdirs(r->cache_dir, err) != 0) {
    /* a cache we cannot create is not worth stopping for */
    fprintf(stderr, "tuner: warning: no compile cache: %s\n", err->msg);
    err->msg[0] = '\0';
    r->use_cache = 0;
  }
  for (i = 0; i < space->n; i++)
    if (space->c[i].status == TN_ST_PENDING) {
      r->s[i].state = S_QUEUED;
      todo++;
    }
  r->use_pool = tn_compile_pool_exe(exe, sizeof(exe)) == 0;
  if (r->use_pool)
    tn_compile_pool_init(&r->pool, exe,
                         opts->jobs > 0 ? opts->jobs
                                        : tn_compile_pool_cores(),
                         t, arch, r->use_cache ? r->cache_dir : "");
  /* in the background the bench bar has the terminal */
  tn_progress_start(&r->bar, "compile", todo, opts->quiet || background);
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
  if (pthread_create(&r->thread, NULL, feed, r) != 0) {
    close(r->wake[0]);
    close(r->wake[1]);
    free(r->s);
    free(r);
    return tn_errf(err, TN_ETOOL, "pthread_create failed");
  }
  r->started = 1;
  *out = r;
  return 0;
}

/* Moves slot i into its candidate.  Returns 0 or TN_EINPUT: a CUBIN
 * without the family's kernel. */
static int apply(tn_compile_run *r, int i, tn_err *err)
{
  tn_candidate *c = &r->space->c[i];
  slot *s = &r->s[i];
  const char *kernel = r->job->family->kernel;

  c->status = s->status;
  c->log = s->log;
  c->cubin = s->cubin;
  c->cubin_len = s->cubin_len;
  c->cache_hit = s->cache_hit;
  c->compile_s = s->compile_s;
  s->log = NULL;
  s->cubin = NULL;
  s->state = S_APPLIED;
  if (s->why[0])
    snprintf(c->reason, sizeof(c->reason), "%s", s->why);
  else if (c->status == TN_ST_COMPILE_ERROR)
    snprintf(c->reason, sizeof(c->reason), "NVRTC: %.900s",
             c->log ? c->log : "compile error without a log");
  else
    tn_compile_parse_resources(c->log, c);
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

int tn_compile_wait(tn_compile_run *r, int index, tn_err *err)
{
  int rc = 0;
  if (r == NULL || index < 0 || index >= r->space->n)
    return 0;
  pthread_mutex_lock(&r->mu);
  if (r->s[index].state != S_NONE && r->s[index].state != S_APPLIED) {
    r->want = index;
    while (r->s[index].state != S_DONE && !r->fatal && !r->done)
      pthread_cond_wait(&r->cv, &r->mu);
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
  stats->threads = r->use_pool ? r->pool.n : 1;
  stats->wall_s = (r->t_end > 0 ? r->t_end : tn_now()) - r->t0;
  close(r->wake[0]);
  close(r->wake[1]);
  pthread_mutex_destroy(&r->mu);
  pthread_cond_destroy(&r->cv);
  free(r->s);
  free(r);
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

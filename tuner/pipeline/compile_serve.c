/* compile_serve.c -- a compile worker: "tuner __compile". */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/compile_serve.h"

#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "base/util.h"
#include "pipeline/compile_cache.h"
#include "pipeline/compile_nvrtc.h"
#include "pipeline/compile_wire.h"

#define IN TN_COMPILE_SERVE_IN
#define OUT TN_COMPILE_SERVE_OUT

/* What the jobs compile with: the last SETUP. */
typedef struct {
  tn_template t;
  const tn_arch *arch;
  char *cache;
  int keyed; /* entries stored with a MAC by mac */
  tn_mac_key mac;
} setup_state;

static void setup_free(setup_state *s)
{
  int i;
  for (i = 0; i < s->t.n_headers; i++) {
    free(s->t.header_names[i]);
    free(s->t.header_texts[i]);
  }
  free(s->cache);
  memset(s, 0, sizeof(*s));
}

/* Reads a SETUP whose header h was read into s (replacing it).  0 or -1. */
static int read_setup(const tn_wire_header *h, setup_state *s)
{
  tn_wire_setup w;
  size_t want;
  int i;
  if (tn_wire_read_fixed(IN, h, TN_WIRE_SETUP, &w, sizeof(w)) != 0 ||
      w.n_headers < 0 || w.n_headers > TN_MAX_HEADERS)
    return -1;
  if (w.mac_len != 0 && w.mac_len != sizeof(s->mac))
    return -1;
  want = (size_t)w.cache_len + w.mac_len;
  for (i = 0; i < w.n_headers; i++)
    want += (size_t)w.name_len[i] + w.text_len[i];
  if (h->len - sizeof(w) != want)
    return -1;
  setup_free(s);
  w.arch[sizeof(w.arch) - 1] = '\0';
  s->arch = tn_arch_find(w.arch);
  for (i = 0; i < w.n_headers; i++) {
    if (tn_wire_read_text(IN, w.name_len[i], &s->t.header_names[i]) != 0 ||
        tn_wire_read_text(IN, w.text_len[i], &s->t.header_texts[i]) != 0)
      return -1;
    s->t.n_headers = i + 1;
  }
  if (tn_wire_read_text(IN, w.cache_len, &s->cache) != 0)
    return -1;
  s->keyed = w.mac_len != 0;
  if (s->keyed && tn_wire_read(IN, &s->mac, sizeof(s->mac)) != 0)
    return -1;
  return s->arch ? 0 : -1;
}

/* NVRTC's one-time costs, paid before the first candidate: the library's
 * pages, its builtins, its start-up (NVRTC 12.9+ also loads the driver
 * for its own cache), ptxas.  A tiny program with the candidates'
 * options suffices: the headers are parsed again for every program, so
 * there is nothing of them to warm. */
static int warm_up(const tn_wire_header *h)
{
  static const char src[] =
      "extern \"C\" __global__ void tn_warm(float *p)\n"
      "{ p[threadIdx.x] = 1.0f; }\n";
  tn_wire_warm w;
  tn_wire_ready r;
  const tn_arch *arch;
  void *cubin = NULL;
  size_t cubin_len = 0;
  char *log = NULL;
  tn_err e = {{0}};
  const void *part[1];
  size_t len[1];

  if (tn_wire_read_fixed(IN, h, TN_WIRE_WARM, &w, sizeof(w)) != 0 ||
      h->len != sizeof(w))
    return -1;
  w.arch[sizeof(w.arch) - 1] = '\0';
  arch = tn_arch_find(w.arch);
  memset(&r, 0, sizeof(r));
  r.t0 = tn_now();
  r.rc = arch ? tn_compile_source(src, "tn_warm.cu", NULL, arch, &cubin,
                                  &cubin_len, &log, &e)
              : TN_EINPUT;
  r.t1 = tn_now();
  free(cubin);
  free(log);
  part[0] = &r;
  len[0] = sizeof(r);
  return tn_wire_send(OUT, TN_WIRE_READY, part, len, 1);
}

/* Compiles one job and answers; then stores the cache entry. */
static int serve_one(const setup_state *s, const tn_wire_job *j, double t_recv,
                     const char *name, const char *source, const char *key,
                     void (*before)(int id))
{
  const void *part[4];
  size_t len[4];
  void *cubin = NULL;
  size_t cubin_len = 0;
  char *log = NULL;
  tn_err e = {{0}};
  tn_wire_result r;
  int rc;

  if (before)
    before(j->id);
  memset(&r, 0, sizeof(r));
  r.t_recv = t_recv;
  r.t0 = tn_now();
  rc = tn_compile_source(source, name, &s->t, s->arch, &cubin, &cubin_len,
                         &log, &e);
  r.t1 = tn_now();
  r.index = j->index;
  r.rc = rc < 0 ? -1 : rc;
  r.log_len = log ? (unsigned)strlen(log) : 0;
  r.cubin_len = rc == 0 ? (unsigned)cubin_len : 0;
  r.err_len = rc < 0 ? (unsigned)strlen(e.msg) : 0;
  r.t_sent = tn_now();
  part[0] = &r;
  len[0] = sizeof(r);
  part[1] = log;
  len[1] = r.log_len;
  part[2] = cubin;
  len[2] = r.cubin_len;
  part[3] = e.msg;
  len[3] = r.err_len;
  if (tn_wire_send(OUT, TN_WIRE_RESULT, part, len, 4) != 0)
    rc = -2;
  else if (rc >= 0 && s->cache && s->cache[0] && key[0])
    /* after the answer: the store's fsync delays no one */
    tn_compile_cache_put(s->cache, s->keyed ? &s->mac : NULL, key, rc != 0,
                         log, cubin, cubin_len);
  free(cubin);
  free(log);
  return rc == -2 ? -1 : 0;
}

/* Reads a JOB whose header h was read and serves it.  0 or -1. */
static int read_job(const tn_wire_header *h, const setup_state *s,
                    void (*before)(int id))
{
  tn_wire_job j;
  char *name = NULL, *source = NULL, *key = NULL;
  double t_recv;
  int bad;
  if (tn_wire_read_fixed(IN, h, TN_WIRE_JOB, &j, sizeof(j)) != 0 ||
      h->len - sizeof(j) != (size_t)j.name_len + j.src_len + j.key_len ||
      s->arch == NULL)
    return -1;
  bad = tn_wire_read_text(IN, j.name_len, &name) != 0 ||
        tn_wire_read_text(IN, j.src_len, &source) != 0 ||
        tn_wire_read_text(IN, j.key_len, &key) != 0;
  t_recv = tn_now();
  bad = bad || serve_one(s, &j, t_recv, name, source, key, before) != 0;
  free(name);
  free(source);
  free(key);
  return bad ? -1 : 0;
}

int tn_compile_serve(void (*before)(int id))
{
  tn_wire_hello hello;
  tn_wire_header h;
  setup_state s;
  const void *part[1] = {&hello};
  size_t len[1] = {sizeof(hello)};
  int rc = 1, warmed = 0;

  memset(&s, 0, sizeof(s));
  hello.t_main = tn_now();
  if (tn_wire_send(OUT, TN_WIRE_HELLO, part, len, 1) != 0)
    return 1;
  for (;;) {
    int bad;
    if (tn_wire_read(IN, &h, sizeof(h)) != 0) {
      rc = 0; /* EOF: the tuner is done, or gone */
      break;
    }
    if (h.type == TN_WIRE_WARM && !warmed) {
      warmed = 1;
      bad = warm_up(&h) != 0;
    } else if (h.type == TN_WIRE_SETUP)
      bad = read_setup(&h, &s) != 0;
    else if (h.type == TN_WIRE_JOB)
      bad = read_job(&h, &s, before) != 0;
    else
      bad = 1;
    if (bad)
      break;
  }
  setup_free(&s);
  return rc;
}

int tn_compile_serve_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  return tn_compile_serve(NULL);
}

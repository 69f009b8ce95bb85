/* compile.c -- NVRTC, in parallel, with an on-disk cache. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/compile.h"

#include <elf.h>
#include <nvrtc.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/progress.h"

#define MAX_OPTS 8

/* Options for arch; the same list feeds the cache key. */
static int build_options(const tn_arch *arch, char opts[MAX_OPTS][64])
{
  int n = 0;
  snprintf(opts[n++], 64, "-arch=%s", arch->name);
  snprintf(opts[n++], 64, "-std=c++17");
  /* ptxas -v puts registers, spills and shared memory into the log */
  snprintf(opts[n++], 64, "--ptxas-options=-v");
  snprintf(opts[n++], 64, "-lineinfo");
  return n;
}

void tn_compile_nvrtc_version(char *out, size_t n)
{
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    snprintf(out, n, "unknown");
  else
    snprintf(out, n, "%d.%d", major, minor);
}

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

/* The integer just before marker in line (ptxas writes "N bytes smem",
 * "N bytes stack frame, N bytes spill stores, ..."), or -1. */
static int number_before(const char *line, const char *marker)
{
  const char *m = strstr(line, marker), *q;
  if (m == NULL)
    return -1;
  q = m;
  while (q > line && q[-1] == ' ')
    q--;
  while (q > line && q[-1] >= '0' && q[-1] <= '9')
    q--;
  return (q[0] >= '0' && q[0] <= '9') ? atoi(q) : -1;
}

int tn_compile_parse_resources(const char *log, tn_candidate *c)
{
  const char *p;
  int found = 0;
  c->regs = c->spill_stores = c->spill_loads = c->stack_bytes = 0;
  if (log == NULL)
    return -1;
  for (p = log; p && *p;) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    char line[512];
    const char *u;
    int v;
    if (len >= sizeof(line))
      len = sizeof(line) - 1;
    memcpy(line, p, len);
    line[len] = '\0';
    u = strstr(line, "Used ");
    if (u != NULL && sscanf(u, "Used %d registers", &v) == 1) {
      c->regs = v;
      found = 1;
      v = number_before(line, "bytes smem");
      if (v >= 0)
        c->smem_bytes = v;
    }
    v = number_before(line, "bytes stack frame");
    if (v >= 0)
      c->stack_bytes = v;
    v = number_before(line, "bytes spill stores");
    if (v >= 0)
      c->spill_stores = v;
    v = number_before(line, "bytes spill loads");
    if (v >= 0)
      c->spill_loads = v;
    p = eol ? eol + 1 : NULL;
  }
  return found ? 0 : -1;
}

/* Copies a compiled program's CUBIN out.  Returns 0 or TN_ETOOL. */
static int take_cubin(nvrtcProgram prog, void **cubin, size_t *cubin_len,
                      tn_err *err)
{
  size_t len = 0;
  nvrtcResult r = nvrtcGetCUBINSize(prog, &len);
  if (r != NVRTC_SUCCESS)
    return tn_errf(err, TN_ETOOL, "nvrtcGetCUBINSize: %s",
                   nvrtcGetErrorString(r));
  *cubin = malloc(len);
  if (*cubin == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory for a %zu-byte CUBIN", len);
  r = nvrtcGetCUBIN(prog, *cubin);
  if (r != NVRTC_SUCCESS) {
    free(*cubin);
    *cubin = NULL;
    return tn_errf(err, TN_ETOOL, "nvrtcGetCUBIN: %s", nvrtcGetErrorString(r));
  }
  *cubin_len = len;
  return 0;
}

int tn_compile_source(const char *source, const char *name,
                      const tn_template *t, const tn_arch *arch,
                      void **cubin, size_t *cubin_len, char **log,
                      tn_err *err)
{
  char opts[MAX_OPTS][64];
  const char *optp[MAX_OPTS];
  nvrtcProgram prog;
  nvrtcResult r;
  size_t len = 0;
  int i, n = build_options(arch, opts), rc = 0;

  *cubin = NULL;
  *cubin_len = 0;
  *log = NULL;
  for (i = 0; i < n; i++)
    optp[i] = opts[i];
  r = nvrtcCreateProgram(&prog, source, name, t ? t->n_headers : 0,
                         t ? (const char *const *)t->header_texts : NULL,
                         t ? (const char *const *)t->header_names : NULL);
  if (r != NVRTC_SUCCESS)
    return tn_errf(err, TN_ETOOL, "nvrtcCreateProgram: %s",
                   nvrtcGetErrorString(r));
  r = nvrtcCompileProgram(prog, n, optp);
  if (nvrtcGetProgramLogSize(prog, &len) == NVRTC_SUCCESS && len > 1) {
    *log = malloc(len);
    if (*log && nvrtcGetProgramLog(prog, *log) != NVRTC_SUCCESS) {
      free(*log);
      *log = NULL;
    }
  }
  if (r == NVRTC_ERROR_COMPILATION) {
    rc = 1;
  } else if (r != NVRTC_SUCCESS) {
    rc = tn_errf(err, TN_ETOOL, "nvrtcCompileProgram: %s",
                 nvrtcGetErrorString(r));
  } else {
    rc = take_cubin(prog, cubin, cubin_len, err);
  }
  nvrtcDestroyProgram(&prog);
  return rc;
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

/* Every compiled candidate (fresh or from the cache) has the family's
 * kernel: a template without it is the user's to fix, found before any GPU
 * work.  Returns 0 or TN_EINPUT naming the template and the kernel. */
static int check_entry(const tn_job *job, const tn_space *space, tn_err *err)
{
  const char *kernel = job->family->kernel;
  int i;
  for (i = 0; i < space->n; i++) {
    const tn_candidate *c = &space->c[i];
    if (c->status != TN_ST_COMPILED ||
        cubin_has_function(c->cubin, c->cubin_len, kernel) != 0)
      continue;
    return tn_errf(err, TN_EINPUT,
                   "%s: defines no kernel %s: the %s family launches "
                   "extern \"C\" __global__ void %s(...) (candidate %d "
                   "compiled without it)",
                   job->template_path, kernel, job->family->name, kernel,
                   c->id);
  }
  return 0;
}

/* Cache key of a source compiled for arch. */
static void cache_key(const char *source, const tn_template *t,
                      const tn_arch *arch, char key[33])
{
  char opts[MAX_OPTS][64], ver[32], optline[MAX_OPTS * 64] = "";
  const void *parts[4 + 2 * TN_MAX_HEADERS];
  size_t lens[4 + 2 * TN_MAX_HEADERS];
  int i, n = build_options(arch, opts), np = 0;

  for (i = 0; i < n; i++) {
    strcat(optline, opts[i]);
    strcat(optline, " ");
  }
  tn_compile_nvrtc_version(ver, sizeof(ver));
  parts[np] = source;
  lens[np++] = strlen(source);
  parts[np] = optline;
  lens[np++] = strlen(optline);
  parts[np] = ver;
  lens[np++] = strlen(ver);
  for (i = 0; i < t->n_headers; i++) {
    parts[np] = t->header_names[i];
    lens[np++] = strlen(t->header_names[i]);
    parts[np] = t->header_texts[i];
    lens[np++] = strlen(t->header_texts[i]);
  }
  tn_hash_hex(parts, lens, np, key);
}

/* A cache entry is one file, <key>.tnc: the line
 *   "tuner-cache 1 ok|fail LOG_BYTES CUBIN_BYTES HASH\n"
 * then the log and the CUBIN; HASH is tn_hash_hex of the key, the log and
 * the CUBIN, so a torn or foreign entry never passes for a good one. */
#define CACHE_MAGIC "tuner-cache 1 "

static void entry_hash(const char *key, const char *log, size_t log_len,
                       const void *cubin, size_t cubin_len, char hash[33])
{
  const void *parts[3];
  size_t lens[3];
  parts[0] = key;
  lens[0] = strlen(key);
  parts[1] = log;
  lens[1] = log_len;
  parts[2] = cubin;
  lens[2] = cubin_len;
  tn_hash_hex(parts, lens, 3, hash);
}

/* Checks an entry's bytes against key (the file's name without ".tnc").
 * Fills the parts' offsets; 0, or -1 with why. */
static int entry_parse(const char *data, size_t len, const char *key,
                       int *ok, size_t *log_off, size_t *log_len,
                       size_t *cubin_off, size_t *cubin_len, char *why,
                       size_t n)
{
  char st[8], hash[40], want[33];
  unsigned long long ll, cl;
  const char *nl = memchr(data, '\n', len < 200 ? len : 200);
  int used = 0;

  if (nl == NULL || strncmp(data, CACHE_MAGIC, strlen(CACHE_MAGIC)) != 0) {
    snprintf(why, n, "no \"%s\" header line", CACHE_MAGIC "...");
    return -1;
  }
  if (sscanf(data + strlen(CACHE_MAGIC), "%7s %llu %llu %39s%n", st, &ll,
             &cl, hash, &used) != 4 ||
      data + strlen(CACHE_MAGIC) + used != nl ||
      (strcmp(st, "ok") != 0 && strcmp(st, "fail") != 0) ||
      strlen(hash) != 32) {
    snprintf(why, n, "a bad header line");
    return -1;
  }
  *log_off = (size_t)(nl + 1 - data);
  if (ll > len - *log_off || cl != len - *log_off - ll) {
    snprintf(why, n, "%zu bytes, the header says %llu", len,
             (unsigned long long)*log_off + ll + cl);
    return -1;
  }
  *ok = strcmp(st, "ok") == 0;
  if (*ok && cl == 0) {
    snprintf(why, n, "no CUBIN in an \"ok\" entry");
    return -1;
  }
  *log_len = (size_t)ll;
  *cubin_off = *log_off + *log_len;
  *cubin_len = (size_t)cl;
  entry_hash(key, data + *log_off, *log_len, data + *cubin_off, *cubin_len,
             want);
  if (strcmp(want, hash) != 0) {
    snprintf(why, n, "checksum %s, the bytes hash to %s", hash, want);
    return -1;
  }
  return 0;
}

int tn_compile_cache_check(const char *path, char *why, size_t n)
{
  char key[64];
  const char *base = strrchr(path, '/');
  size_t len = 0, lo, ll, co, cl, bl;
  char *data = NULL;
  tn_err e = {{0}};
  int ok, rc;

  base = base ? base + 1 : path;
  bl = strlen(base);
  if (bl < 5 || bl - 4 >= sizeof(key) || strcmp(base + bl - 4, ".tnc")) {
    snprintf(why, n, "not a cache entry's name (<key>.tnc)");
    return -1;
  }
  memcpy(key, base, bl - 4);
  key[bl - 4] = '\0';
  if (tn_read_file(path, &data, &len, &e) != 0) {
    snprintf(why, n, "%s", e.msg);
    return -1;
  }
  rc = entry_parse(data, len, key, &ok, &lo, &ll, &co, &cl, why, n);
  free(data);
  return rc;
}

/* Looks the key up: 1 if found (cubin or recorded failure), else 0.  A
 * bad entry (torn, truncated, foreign) is a miss, with a note. */
static int cache_get(const char *dir, const char *key, tn_candidate *c)
{
  char path[4200], why[160];
  tn_err ignore = {{0}};
  size_t len = 0, lo, ll, co, cl;
  char *data = NULL;
  int ok;

  snprintf(path, sizeof(path), "%s/%s.tnc", dir, key);
  if (tn_read_file(path, &data, &len, &ignore) != 0)
    return 0;
  if (entry_parse(data, len, key, &ok, &lo, &ll, &co, &cl, why,
                  sizeof(why)) != 0) {
    fprintf(stderr, "tuner: note: compile cache entry %s is bad (%s): "
                    "compiling again\n",
            path, why);
    free(data);
    return 0;
  }
  c->log = NULL;
  if (ll > 0) {
    c->log = malloc(ll + 1);
    if (c->log == NULL) {
      free(data);
      return 0;
    }
    memcpy(c->log, data + lo, ll);
    c->log[ll] = '\0';
  }
  if (!ok) {
    free(data);
    c->status = TN_ST_COMPILE_ERROR;
    return 1;
  }
  memmove(data, data + co, cl);
  c->cubin = data;
  c->cubin_len = cl;
  c->status = TN_ST_COMPILED;
  return 1;
}

/* Stores a result; a cache that cannot be written only costs speed. */
static void cache_put(const char *dir, const char *key, const tn_candidate *c)
{
  char path[4200], head[128], hash[33];
  tn_err ignore = {{0}};
  const char *log = c->log ? c->log : "";
  int fail = c->status == TN_ST_COMPILE_ERROR;
  size_t ll = strlen(log), cl = fail ? 0 : c->cubin_len, hl;
  char *buf;

  entry_hash(key, log, ll, fail ? "" : c->cubin, cl, hash);
  snprintf(head, sizeof(head), CACHE_MAGIC "%s %zu %zu %s\n",
           fail ? "fail" : "ok", ll, cl, hash);
  hl = strlen(head);
  buf = malloc(hl + ll + cl);
  if (buf == NULL)
    return;
  memcpy(buf, head, hl);
  memcpy(buf + hl, log, ll);
  if (cl > 0)
    memcpy(buf + hl + ll, c->cubin, cl);
  snprintf(path, sizeof(path), "%s/%s.tnc", dir, key);
  tn_write_file_atomic(path, buf, hl + ll + cl, &ignore);
  free(buf);
}

int tn_compile_space(const tn_job *job, const tn_template *t,
                     const tn_arch *arch, tn_space *space,
                     const tn_compile_opts *opts, tn_compile_stats *stats,
                     tn_err *err)
{
  tn_progress bar;
  int i, todo = tn_space_count(space, TN_ST_PENDING), fatal = 0;
  int use_cache = opts->cache_dir[0] != '\0';
  double t0 = tn_now();

  memset(stats, 0, sizeof(*stats));
  if (use_cache && tn_mkdirs(opts->cache_dir, err) != 0) {
    /* a cache we cannot create is not worth stopping for */
    fprintf(stderr, "tuner: warning: no compile cache: %s\n", err->msg);
    err->msg[0] = '\0';
    use_cache = 0;
  }
  if (opts->jobs > 0)
    omp_set_num_threads(opts->jobs);
  stats->threads = omp_get_max_threads();
  tn_progress_start(&bar, "compile", todo, opts->quiet);

#pragma omp parallel for schedule(dynamic, 1) reduction(+ : fatal)
  for (i = 0; i < space->n; i++) {
    tn_candidate *c = &space->c[i];
    tn_err local = {{0}};
    char *source = NULL, key[33], name[64];
    double c0;
    int rc;

    if (c->status != TN_ST_PENDING || fatal)
      continue;
    c0 = tn_now();
    snprintf(name, sizeof(name), "%s_%d.cu", job->family->name, c->id);
    if (tn_render(job->family, &c->params, &job->problems[0], t, &source,
                  &local) != 0) {
      fatal++;
#pragma omp critical(tn_compile_err)
      tn_errf(err, TN_ETOOL, "%s", local.msg);
      continue;
    }
    cache_key(source, t, arch, key);
    if (use_cache && cache_get(opts->cache_dir, key, c)) {
      c->cache_hit = 1;
    } else {
      rc = tn_compile_source(source, name, t, arch, &c->cubin, &c->cubin_len,
                             &c->log, &local);
      if (rc < 0) {
        fatal++;
#pragma omp critical(tn_compile_err)
        tn_errf(err, TN_ETOOL, "%s", local.msg);
        free(source);
        continue;
      }
      c->status = rc == 0 ? TN_ST_COMPILED : TN_ST_COMPILE_ERROR;
      if (use_cache)
        cache_put(opts->cache_dir, key, c);
    }
    free(source);
    if (c->status == TN_ST_COMPILE_ERROR) {
      snprintf(c->reason, sizeof(c->reason), "NVRTC: %.900s",
               c->log ? c->log : "compile error without a log");
    } else {
      tn_compile_parse_resources(c->log, c);
    }
    c->compile_s = tn_now() - c0;
    tn_progress_step(&bar, name);
  }
  tn_progress_end(&bar);

  for (i = 0; i < space->n; i++) {
    const tn_candidate *c = &space->c[i];
    if (c->status != TN_ST_COMPILED && c->status != TN_ST_COMPILE_ERROR)
      continue;
    if (c->cache_hit)
      stats->cached++;
    else {
      stats->compiled++;
      stats->cpu_s += c->compile_s;
    }
    stats->failed += c->status == TN_ST_COMPILE_ERROR;
  }
  stats->wall_s = tn_now() - t0;
  return fatal ? TN_ETOOL : check_entry(job, space, err);
}

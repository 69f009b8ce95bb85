/* util.c -- errors, files and small helpers shared by every module. */
#define _POSIX_C_SOURCE 200809L
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
/* The state on the stack needs the static-linking declarations. */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

int tn_errf(tn_err *err, int code, const char *fmt, ...)
{
  va_list ap;
  if (err == NULL || err->msg[0] != '\0')
    return code;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
  va_end(ap);
  return code;
}

int tn_exit_status(int code)
{
  switch (code) {
  case 0:
    return TN_EXIT_OK;
  case TN_EINPUT:
    return TN_EXIT_INPUT;
  case TN_ENODEV:
    return TN_EXIT_NODEV;
  default:
    return TN_EXIT_TOOL;
  }
}

int tn_read_file(const char *path, char **data, size_t *len, tn_err *err)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, used = 0;

  if (f == NULL)
    return tn_errf(err, TN_EINPUT, "%s: cannot open: %s", path,
                   strerror(errno));
  for (;;) {
    size_t got;
    if (cap - used < 4096) {
      size_t ncap = cap ? cap * 2 : 65536;
      char *nbuf = realloc(buf, ncap + 1);
      if (nbuf == NULL) {
        free(buf);
        fclose(f);
        return tn_errf(err, TN_ETOOL, "%s: out of memory reading", path);
      }
      buf = nbuf;
      cap = ncap;
    }
    got = fread(buf + used, 1, cap - used, f);
    used += got;
    if (got == 0)
      break;
  }
  if (ferror(f)) {
    free(buf);
    fclose(f);
    return tn_errf(err, TN_EINPUT, "%s: read error", path);
  }
  fclose(f);
  buf[used] = '\0';
  *data = buf;
  if (len)
    *len = used;
  return 0;
}

/* fsync of the folder that holds path, so that a rename into it lasts. */
static int sync_dir_of(const char *path, tn_err *err)
{
  char dir[4096];
  int fd, rc = 0;
  tn_dirname(dir, sizeof(dir), path);
  fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0)
    return tn_errf(err, TN_ETOOL, "open(%s): %s", dir, strerror(errno));
  if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
    rc = tn_errf(err, TN_ETOOL, "fsync(%s): %s", dir, strerror(errno));
  close(fd);
  return rc;
}

/* Writes data to a unique temporary beside path (mkstemp, 0644), fsynced;
 * its name into tmp.  Returns 0 or TN_ETOOL (nothing left behind). */
static int write_temporary(const char *path, const void *data, size_t len,
                           char *tmp, size_t tmp_size, tn_err *err)
{
  const char *p = data;
  int fd, n = snprintf(tmp, tmp_size, "%s.tmp.XXXXXX", path);

  if (n < 0 || (size_t)n >= tmp_size)
    return tn_errf(err, TN_ETOOL, "%s: path too long", path);
  /* mkstemp: a name no other process (pid 1 in another container on the
   * same volume, another thread) can have open, created with O_EXCL */
  fd = mkstemp(tmp);
  if (fd < 0)
    return tn_errf(err, TN_ETOOL, "mkstemp(%s): %s", tmp, strerror(errno));
  if (fchmod(fd, 0644) != 0) {
    int e = errno;
    close(fd);
    unlink(tmp);
    return tn_errf(err, TN_ETOOL, "fchmod(%s): %s", tmp, strerror(e));
  }
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0) {
      int e = errno;
      close(fd);
      unlink(tmp);
      return tn_errf(err, TN_ETOOL, "write(%s): %s", tmp, strerror(e));
    }
    p += w;
    len -= (size_t)w;
  }
  if (fsync(fd) != 0) {
    int e = errno;
    close(fd);
    unlink(tmp);
    return tn_errf(err, TN_ETOOL, "fsync(%s): %s", tmp, strerror(e));
  }
  if (close(fd) != 0) {
    int e = errno;
    unlink(tmp);
    return tn_errf(err, TN_ETOOL, "close(%s): %s", tmp, strerror(e));
  }
  return 0;
}

int tn_write_file_atomic(const char *path, const void *data, size_t len,
                         tn_err *err)
{
  char tmp[4096];
  int rc = write_temporary(path, data, len, tmp, sizeof(tmp), err);
  if (rc != 0)
    return rc;
  if (rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return tn_errf(err, TN_ETOOL, "rename(%s, %s): %s", tmp, path,
                   strerror(e));
  }
  return sync_dir_of(path, err);
}

int tn_write_file_new(const char *path, const void *data, size_t len,
                      tn_err *err)
{
  char tmp[4096];
  int fd, e, rc = write_temporary(path, data, len, tmp, sizeof(tmp), err);
  if (rc != 0)
    return rc;
  /* link fails with EEXIST when the name is taken: whole or not at all */
  if (link(tmp, path) == 0) {
    unlink(tmp);
    return sync_dir_of(path, err);
  }
  e = errno;
  if (e == EEXIST) {
    unlink(tmp);
    return 1;
  }
  if (e != EPERM && e != ENOTSUP && e != ENOSYS) {
    unlink(tmp);
    return tn_errf(err, TN_ETOOL, "link(%s, %s): %s", tmp, path,
                   strerror(e));
  }
  /* a file system without hard links: claim the name, then fill it */
  fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    e = errno;
    unlink(tmp);
    if (e == EEXIST)
      return 1;
    return tn_errf(err, TN_ETOOL, "open(%s): %s", path, strerror(e));
  }
  close(fd);
  if (rename(tmp, path) != 0) {
    e = errno;
    unlink(tmp);
    unlink(path);
    return tn_errf(err, TN_ETOOL, "rename(%s, %s): %s", tmp, path,
                   strerror(e));
  }
  return sync_dir_of(path, err);
}

int tn_mkdirs(const char *path, tn_err *err)
{
  char buf[4096];
  size_t i, n = strlen(path);

  if (n == 0)
    return 0;
  if (n >= sizeof(buf))
    return tn_errf(err, TN_ETOOL, "%s: path too long", path);
  memcpy(buf, path, n + 1);
  for (i = 1; i <= n; i++) {
    if (buf[i] == '/' || buf[i] == '\0') {
      char c = buf[i];
      buf[i] = '\0';
      if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return tn_errf(err, TN_ETOOL, "mkdir(%s): %s", buf, strerror(errno));
      buf[i] = c;
    }
  }
  return 0;
}

int tn_path_join(char *out, size_t n, const char *dir, const char *name)
{
  int w;
  if (name[0] == '/' || dir == NULL || dir[0] == '\0')
    w = snprintf(out, n, "%s", name);
  else
    w = snprintf(out, n, "%s/%s", dir, name);
  return (w < 0 || (size_t)w >= n) ? TN_ETOOL : 0;
}

void tn_dirname(char *out, size_t n, const char *path)
{
  const char *slash = strrchr(path, '/');
  if (slash == NULL) {
    tn_strlcpy(out, ".", n);
  } else if (slash == path) {
    tn_strlcpy(out, "/", n);
  } else {
    size_t len = (size_t)(slash - path);
    if (len >= n)
      len = n - 1;
    memcpy(out, path, len);
    out[len] = '\0';
  }
}

double tn_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double tn_wall_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tn_utc_iso(char *out, size_t n)
{
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int tn_strlcpy(char *dst, const char *src, size_t n)
{
  size_t len = strlen(src);
  if (n == 0)
    return 1;
  if (len >= n) {
    memcpy(dst, src, n - 1);
    dst[n - 1] = '\0';
    return 1;
  }
  memcpy(dst, src, len + 1);
  return 0;
}

void tn_sanitize_name(char *s)
{
  for (; *s; s++) {
    char c = *s;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
             (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok)
      *s = '_';
  }
}

void tn_hash_hex(const void *const *parts, const size_t *lens, int nparts,
                 char out[33])
{
  XXH3_state_t st;
  XXH128_hash_t h;
  int i;

  XXH3_INITSTATE(&st);
  XXH3_128bits_reset(&st);
  for (i = 0; i < nparts; i++) {
    uint64_t len = lens[i];
    /* Length-prefix each part so ("ab","c") and ("a","bc") differ. */
    XXH3_128bits_update(&st, &len, sizeof(len));
    XXH3_128bits_update(&st, parts[i], lens[i]);
  }
  h = XXH3_128bits_digest(&st);
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64,
           (unsigned long long)h.low64);
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
  (void)sig;
  interrupted = 1;
}

void tn_install_interrupt_handler(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: waits see EINTR */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int tn_interrupted(void)
{
  return interrupted != 0;
}

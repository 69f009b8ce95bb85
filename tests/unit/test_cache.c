/* test_cache.c -- the compile cache's entries, without NVRTC: what a
 * lookup serves, and that an entry changed on disk is never served as
 * something else (issue 31, part 3).
 *
 *   test_cache entry DIR   an entry's status is covered by its checksum
 *   test_cache mac DIR     a keyed cache (--cache-key): key files, and
 *                          only entries whose MAC verifies are served */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/compile_cache.h"
#include "test_util.h"

#define KEY "0123456789abcdef0123456789abcdef"

static const char cubin[] = "\177ELF not really a CUBIN, but bytes";

/* Replaces the first from in path's first line (its newline included) by
 * to (any length). */
static int edit_head(const char *path, const char *from, const char *to)
{
  tn_err e = {{0}};
  char *data = NULL, *at, *nl, *out;
  size_t len = 0, fl = strlen(from), tl = strlen(to);
  int rc = -1;

  if (tn_read_file(path, &data, &len, &e) != 0)
    return -1;
  at = strstr(data, from);
  nl = strchr(data, '\n');
  out = malloc(len + tl + 1);
  if (at != NULL && nl != NULL && at <= nl && out != NULL) {
    memcpy(out, data, (size_t)(at - data));
    memcpy(out + (at - data), to, tl);
    memcpy(out + (at - data) + tl, at + fl, len - (size_t)(at - data) - fl);
    rc = tn_write_file_atomic(path, out, len - fl + tl, &e);
  }
  free(out);
  free(data);
  return rc;
}

/* Looks KEY up in dir with mac: 1 served (c filled), 0 a miss. */
static int lookup_mac(const char *dir, const tn_mac_key *mac,
                      tn_candidate *c)
{
  memset(c, 0, sizeof(*c));
  return tn_compile_cache_get(dir, mac, KEY, c);
}

static int lookup(const char *dir, tn_candidate *c)
{
  return lookup_mac(dir, NULL, c);
}

static void clear(tn_candidate *c)
{
  free(c->cubin);
  free(c->log);
  memset(c, 0, sizeof(*c));
}

static void part_entry(const char *dir)
{
  char path[4200];
  tn_candidate c;

  snprintf(path, sizeof(path), "%s/%s.tnc", dir, KEY);

  /* a compiled entry is served as it was stored */
  tn_compile_cache_put(dir, NULL, KEY, 0, "ptxas info", cubin,
                       sizeof(cubin));
  CHECK_EQ_INT(lookup(dir, &c), 1);
  CHECK_EQ_INT(c.status, TN_ST_COMPILED);
  CHECK(c.cubin_len == sizeof(cubin) &&
        memcmp(c.cubin, cubin, sizeof(cubin)) == 0);
  clear(&c);

  /* "ok" flipped to "fail": a candidate that compiled is not dropped as a
   * compile error; the entry is a miss (compiled again) */
  CHECK_EQ_INT(edit_head(path, " ok ", " fail "), 0);
  CHECK_EQ_INT(lookup(dir, &c), 0);
  CHECK(c.status != TN_ST_COMPILE_ERROR);
  clear(&c);

  /* a recorded compile error is served as one ... */
  tn_compile_cache_put(dir, NULL, KEY, 1, "error: no such tile", NULL, 0);
  CHECK_EQ_INT(lookup(dir, &c), 1);
  CHECK_EQ_INT(c.status, TN_ST_COMPILE_ERROR);
  CHECK(c.log != NULL && strcmp(c.log, "error: no such tile") == 0);
  clear(&c);
  /* ... and "fail" flipped to "ok" is a miss too */
  CHECK_EQ_INT(edit_head(path, " fail ", " ok "), 0);
  CHECK_EQ_INT(lookup(dir, &c), 0);
  clear(&c);
}

/* Writes a key file of n bytes (byte i: seed + i) with mode. */
static void key_file(const char *path, int n, int seed, mode_t mode)
{
  unsigned char b[64];
  int i, fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  for (i = 0; i < n && i < 64; i++)
    b[i] = (unsigned char)(seed + i);
  CHECK(fd >= 0 && write(fd, b, (size_t)n) == n);
  if (fd >= 0)
    close(fd);
  CHECK(chmod(path, mode) == 0);
}

/* The MAC field of path's first line (" hmac-sha256:..."), or "". */
static void mac_field(const char *path, char *out, size_t n)
{
  tn_err e = {{0}};
  char *data = NULL, *at, *nl;
  out[0] = '\0';
  if (tn_read_file(path, &data, NULL, &e) != 0)
    return;
  at = strstr(data, " hmac-sha256:");
  nl = strchr(data, '\n');
  if (at && nl && at < nl && (size_t)(nl - at) < n) {
    memcpy(out, at, (size_t)(nl - at));
    out[nl - at] = '\0';
  }
  free(data);
}

static void part_mac(const char *dir)
{
  static const char evil[] = "\177ELF a CUBIN someone else built";
  char path[4200], kpath[4200], field[128], line_end[130];
  tn_mac_key k1, k2;
  tn_err e = {{0}};
  tn_candidate c;

  /* key files: 32 bytes or more, nobody else may read or write them */
  snprintf(kpath, sizeof(kpath), "%s/key", dir);
  key_file(kpath, 31, 1, 0600);
  CHECK_EQ_INT(tn_mac_key_read("--cache-key", kpath, &k1, &e), TN_EINPUT);
  CHECK(strstr(e.msg, "31 bytes") != NULL);
  e.msg[0] = '\0';
  key_file(kpath, 32, 1, 0644);
  CHECK_EQ_INT(tn_mac_key_read("--cache-key", kpath, &k1, &e), TN_EINPUT);
  CHECK(strstr(e.msg, "every user can read it") != NULL);
  e.msg[0] = '\0';
  key_file(kpath, 32, 1, 0640); /* a group may share it */
  CHECK_EQ_INT(tn_mac_key_read("--cache-key", kpath, &k1, &e), 0);
  key_file(kpath, 32, 2, 0600);
  CHECK_EQ_INT(tn_mac_key_read("--cache-key", kpath, &k2, &e), 0);
  CHECK(memcmp(&k1, &k2, sizeof(k1)) != 0);

  snprintf(path, sizeof(path), "%s/%s.tnc", dir, KEY);
  /* stored with k1: served with k1, and without a key (a private folder
   * does not look at MACs) */
  tn_compile_cache_put(dir, &k1, KEY, 0, "ptxas info", cubin, sizeof(cubin));
  CHECK_EQ_INT(lookup_mac(dir, &k1, &c), 1);
  CHECK(c.cubin_len == sizeof(cubin) &&
        memcmp(c.cubin, cubin, sizeof(cubin)) == 0);
  clear(&c);
  CHECK_EQ_INT(lookup(dir, &c), 1);
  clear(&c);
  /* another key: not served */
  CHECK_EQ_INT(lookup_mac(dir, &k2, &c), 0);
  clear(&c);

  /* a planted CUBIN: whoever can write the folder but lacks the key
   * makes an entry with a good checksum and keeps the old MAC, or has
   * none at all; neither is served */
  mac_field(path, field, sizeof(field));
  CHECK(field[0] != '\0');
  tn_compile_cache_put(dir, NULL, KEY, 0, "ptxas info", evil, sizeof(evil));
  CHECK_EQ_INT(lookup(dir, &c), 1); /* its checksum is good */
  clear(&c);
  CHECK_EQ_INT(lookup_mac(dir, &k1, &c), 0);
  clear(&c);
  snprintf(line_end, sizeof(line_end), "%s\n", field);
  CHECK_EQ_INT(edit_head(path, "\n", line_end), 0);
  CHECK_EQ_INT(lookup_mac(dir, &k1, &c), 0);
  CHECK(c.cubin == NULL);
  clear(&c);
  /* a recorded compile error is authenticated too */
  tn_compile_cache_put(dir, &k1, KEY, 1, "error: no such tile", NULL, 0);
  CHECK_EQ_INT(lookup_mac(dir, &k1, &c), 1);
  CHECK_EQ_INT(c.status, TN_ST_COMPILE_ERROR);
  clear(&c);
  CHECK_EQ_INT(lookup_mac(dir, &k2, &c), 0);
  clear(&c);
}

int main(int argc, char **argv)
{
  if (argc == 3 && strcmp(argv[1], "entry") == 0)
    part_entry(argv[2]);
  else if (argc == 3 && strcmp(argv[1], "mac") == 0)
    part_mac(argv[2]);
  else {
    fprintf(stderr, "usage: test_cache entry|mac DIR\n");
    return 2;
  }
  TEST_DONE();
}

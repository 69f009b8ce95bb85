/* compile_cache.c -- the on-disk compile cache: keys, entries, lookups and
 * stores. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/compile_cache.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mac.h"
#include "pipeline/compile_nvrtc.h"

/* Cache key of a source compiled for arch. */
void tn_compile_cache_key(const char *source, const tn_template *t,
                      const tn_arch *arch, char key[33])
{
  char opts[TN_NVRTC_MAX_OPTS][64], ver[32];
  char optline[TN_NVRTC_MAX_OPTS * 64] = "";
  const void *parts[4 + 2 * TN_MAX_HEADERS];
  size_t lens[4 + 2 * TN_MAX_HEADERS];
  int i, n = tn_compile_options(arch, opts), np = 0;

  for (i = 0; i < n; i++) {
    strcat(optline, opts[i]);
    strcat(optline, " ");
  }
  tn_nvrtc_version(ver, sizeof(ver));
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
 *   "tuner-cache 2 ok|fail LOG_BYTES CUBIN_BYTES HASH[ hmac-sha256:MAC]\n"
 * then the log and the CUBIN.  HASH is tn_hash_hex of the key, the status,
 * the log and the CUBIN, so a torn or foreign entry never passes for a
 * good one, nor a compiled candidate for one that failed to compile.
 * MAC, written when the cache has a key (--cache-key), is the HMAC-SHA256
 * of the same parts by that key: whoever can write a shared folder can
 * recompute HASH, but not MAC.  A lookup with a key serves only entries
 * whose MAC verifies; without one (a private folder: cache_dir.h) MAC is
 * not looked at.  Entries of format 1 (the status not hashed) are misses
 * without a note: they are what an older tuner left, not damage. */
#define CACHE_MAGIC "tuner-cache 2 "
#define CACHE_MAGIC_OLD "tuner-cache 1 "
#define CACHE_MAC " hmac-sha256:"

/* What an entry's HASH and MAC cover. */
typedef struct {
  const void *parts[4];
  size_t lens[4];
} entry_parts;

static void parts_of(entry_parts *p, const char *key, int ok,
                     const char *log, size_t log_len, const void *cubin,
                     size_t cubin_len)
{
  p->parts[0] = key;
  p->lens[0] = strlen(key);
  p->parts[1] = ok ? "ok" : "fail";
  p->lens[1] = strlen(p->parts[1]);
  p->parts[2] = log;
  p->lens[2] = log_len;
  p->parts[3] = cubin;
  p->lens[3] = cubin_len;
}

/* The MAC field of the header line's rest [rest, nl) into mac: 1 if
 * there is one, 0 if the line ends there, -1 if it is malformed. */
static int mac_field(const char *rest, const char *nl, char mac[TN_MAC_HEX])
{
  size_t n = strlen(CACHE_MAC), i;
  if (rest == nl)
    return 0;
  if ((size_t)(nl - rest) != n + TN_MAC_HEX - 1 ||
      strncmp(rest, CACHE_MAC, n) != 0)
    return -1;
  for (i = 0; i < TN_MAC_HEX - 1; i++) {
    char c = rest[n + i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return -1;
    mac[i] = c;
  }
  mac[i] = '\0';
  return 1;
}

/* Checks an entry's bytes against key (the file's name without ".tnc"),
 * and with mac, its MAC.  Fills the parts' offsets; 0, -1 with why (bad),
 * -3 with why (not authenticated), or -2 for an entry of an older format
 * (a quiet miss). */
static int entry_parse(const char *data, size_t len, const char *key,
                       const tn_mac_key *mac, int *ok, size_t *log_off,
                       size_t *log_len, size_t *cubin_off,
                       size_t *cubin_len, char *why, size_t n)
{
  char st[8], hash[40], want[33], got_mac[TN_MAC_HEX], want_mac[TN_MAC_HEX];
  unsigned long long ll, cl;
  const char *nl = memchr(data, '\n', len < 200 ? len : 200);
  entry_parts p;
  int used = 0, has_mac;

  if (len >= strlen(CACHE_MAGIC_OLD) &&
      strncmp(data, CACHE_MAGIC_OLD, strlen(CACHE_MAGIC_OLD)) == 0) {
    snprintf(why, n, "an entry of an older tuner");
    return -2;
  }
  if (nl == NULL || strncmp(data, CACHE_MAGIC, strlen(CACHE_MAGIC)) != 0) {
    snprintf(why, n, "no \"%s\" header line", CACHE_MAGIC "...");
    return -1;
  }
  if (sscanf(data + strlen(CACHE_MAGIC), "%7s %llu %llu %39s%n", st, &ll,
             &cl, hash, &used) != 4 ||
      (has_mac = mac_field(data + strlen(CACHE_MAGIC) + used, nl,
                           got_mac)) < 0 ||
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
  if (!*ok && cl != 0) {
    snprintf(why, n, "a CUBIN in a \"fail\" entry");
    return -1;
  }
  *log_len = (size_t)ll;
  *cubin_off = *log_off + *log_len;
  *cubin_len = (size_t)cl;
  parts_of(&p, key, *ok, data + *log_off, *log_len, data + *cubin_off,
           *cubin_len);
  tn_hash_hex(p.parts, p.lens, 4, want);
  if (strcmp(want, hash) != 0) {
    snprintf(why, n, "checksum %s, the bytes hash to %s", hash, want);
    return -1;
  }
  if (mac == NULL)
    return 0;
  if (!has_mac) {
    snprintf(why, n, "it has no MAC: not written with a key");
    return -3;
  }
  tn_mac_hex(mac, p.parts, p.lens, 4, want_mac);
  if (!tn_mac_equal(got_mac, want_mac)) {
    snprintf(why, n, "its MAC does not verify with the key");
    return -3;
  }
  return 0;
}

int tn_compile_cache_check(const char *path, const tn_mac_key *mac,
                           char *why, size_t n)
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
  rc = entry_parse(data, len, key, mac, &ok, &lo, &ll, &co, &cl, why, n);
  free(data);
  return rc == 0 ? 0 : -1;
}

int tn_compile_cache_get(const char *dir, const tn_mac_key *mac,
                         const char *key, tn_candidate *c)
{
  char path[4200], why[160];
  tn_err ignore = {{0}};
  size_t len = 0, lo, ll, co, cl;
  char *data = NULL;
  int ok, rc;

  snprintf(path, sizeof(path), "%s/%s.tnc", dir, key);
  if (tn_read_file(path, &data, &len, &ignore) != 0)
    return 0;
  rc = entry_parse(data, len, key, mac, &ok, &lo, &ll, &co, &cl, why,
                   sizeof(why));
  if (rc == -2) {
    free(data);
    return 0;
  }
  if (rc != 0) {
    fprintf(stderr, "tuner: note: compile cache entry %s %s (%s): "
                    "compiling again\n",
            path, rc == -3 ? "fails authentication" : "is bad", why);
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

void tn_compile_cache_put(const char *dir, const tn_mac_key *mac,
                          const char *key, int failed, const char *log,
                          const void *cubin, size_t cubin_len)
{
  char path[4200], head[256], hash[33], tag[TN_MAC_HEX] = "";
  tn_err ignore = {{0}};
  size_t ll, cl = failed ? 0 : cubin_len, hl;
  entry_parts p;
  char *buf;

  if (log == NULL)
    log = "";
  ll = strlen(log);
  parts_of(&p, key, !failed, log, ll, failed ? "" : cubin, cl);
  tn_hash_hex(p.parts, p.lens, 4, hash);
  if (mac)
    tn_mac_hex(mac, p.parts, p.lens, 4, tag);
  snprintf(head, sizeof(head), CACHE_MAGIC "%s %zu %zu %s%s%s\n",
           failed ? "fail" : "ok", ll, cl, hash, mac ? CACHE_MAC : "", tag);
  hl = strlen(head);
  buf = malloc(hl + ll + cl);
  if (buf == NULL)
    return;
  memcpy(buf, head, hl);
  memcpy(buf + hl, log, ll);
  if (cl > 0)
    memcpy(buf + hl + ll, cubin, cl);
  snprintf(path, sizeof(path), "%s/%s.tnc", dir, key);
  tn_write_file_atomic(path, buf, hl + ll + cl, &ignore);
  free(buf);
}

int tn_compile_cache_has_entries(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int found = 0;
  if (d == NULL)
    return 0;
  while (!found && (e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    found = n > 4 && strcmp(e->d_name + n - 4, ".tnc") == 0;
  }
  closedir(d);
  return found;
}

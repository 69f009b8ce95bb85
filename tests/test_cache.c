/* test_cache.c -- the compile cache's entries, without NVRTC: what a
 * lookup serves, and that an entry changed on disk is never served as
 * something else (issue 31, part 3).
 *
 *   test_cache entry DIR   an entry's status is covered by its checksum */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/compile_cache.h"
#include "test_util.h"

#define KEY "0123456789abcdef0123456789abcdef"

static const char cubin[] = "\177ELF not really a CUBIN, but bytes";

/* Replaces the first from in path's first line by to (any length). */
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
  if (at != NULL && nl != NULL && at < nl && out != NULL) {
    memcpy(out, data, (size_t)(at - data));
    memcpy(out + (at - data), to, tl);
    memcpy(out + (at - data) + tl, at + fl, len - (size_t)(at - data) - fl);
    rc = tn_write_file_atomic(path, out, len - fl + tl, &e);
  }
  free(out);
  free(data);
  return rc;
}

/* Looks KEY up in dir: 1 served (c filled), 0 a miss. */
static int lookup(const char *dir, tn_candidate *c)
{
  memset(c, 0, sizeof(*c));
  return tn_compile_cache_get(dir, KEY, c);
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
  tn_compile_cache_put(dir, KEY, 0, "ptxas info", cubin, sizeof(cubin));
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
  tn_compile_cache_put(dir, KEY, 1, "error: no such tile", NULL, 0);
  CHECK_EQ_INT(lookup(dir, &c), 1);
  CHECK_EQ_INT(c.status, TN_ST_COMPILE_ERROR);
  CHECK(c.log != NULL && strcmp(c.log, "error: no such tile") == 0);
  clear(&c);
  /* ... and "fail" flipped to "ok" is a miss too */
  CHECK_EQ_INT(edit_head(path, " fail ", " ok "), 0);
  CHECK_EQ_INT(lookup(dir, &c), 0);
  clear(&c);
}

int main(int argc, char **argv)
{
  if (argc == 3 && strcmp(argv[1], "entry") == 0)
    part_entry(argv[2]);
  else {
    fprintf(stderr, "usage: test_cache entry DIR\n");
    return 2;
  }
  TEST_DONE();
}

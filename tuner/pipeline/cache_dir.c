/* cache_dir.c -- where the compile cache lives, and whether a folder may
 * hold it. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/cache_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An absolute path from the environment, or NULL. */
static const char *absolute_env(const char *name)
{
  const char *v = getenv(name);
  return v && v[0] == '/' ? v : NULL;
}

void tn_cache_dir_default(char *out, size_t n)
{
  const char *d = getenv("TUNER_CACHE_DIR");
  if (d && *d) {
    snprintf(out, n, "%s", d);
    return;
  }
  d = absolute_env("XDG_CACHE_HOME");
  if (d) {
    snprintf(out, n, "%s/tuner", d);
    return;
  }
  d = absolute_env("HOME");
  if (d) {
    snprintf(out, n, "%s/.cache/tuner", d);
    return;
  }
  /* never a folder every user shares: /tmp/.cache/tuner was one */
  d = absolute_env("TMPDIR");
  snprintf(out, n, "%s/tuner-%lu", d ? d : "/tmp", (unsigned long)geteuid());
}

/* 1 if uid may own what the cache trusts: this user or root. */
static int trusted_owner(uid_t uid)
{
  return uid == geteuid() || uid == 0;
}

/* Why dir is shared into why (NULL: it is private); ENOENT when it does
 * not exist; another errno when it cannot be looked at. */
static int shared_why(const char *dir, char *why, size_t n, int *shared)
{
  struct stat ls, st;

  *shared = 0;
  if (lstat(dir, &ls) != 0)
    return errno;
  if (S_ISLNK(ls.st_mode) && !trusted_owner(ls.st_uid)) {
    snprintf(why, n, "a link that user %lu owns", (unsigned long)ls.st_uid);
    *shared = 1;
    return 0;
  }
  if (stat(dir, &st) != 0)
    return errno;
  if (!S_ISDIR(st.st_mode))
    return 0; /* not a folder: tn_precheck_dir says so */
  if (!trusted_owner(st.st_uid)) {
    snprintf(why, n, "user %lu owns it, not you (user %lu)",
             (unsigned long)st.st_uid, (unsigned long)geteuid());
    *shared = 1;
  } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(why, n, "%s can write it (mode %04o)",
             st.st_mode & S_IWOTH ? "every user" : "its group",
             (unsigned)(st.st_mode & 07777));
    *shared = 1;
  }
  return 0;
}

int tn_cache_dir_check(const char *dir, int keyed, tn_err *err)
{
  char why[128];
  int shared, e = shared_why(dir, why, sizeof(why), &shared);

  if (e == ENOENT || e == ENOTDIR)
    return 0; /* made private when it is made; precheck_dir for the rest */
  if (e != 0)
    return tn_errf(err, TN_EINPUT, "compile cache %s: %s", dir,
                   strerror(e));
  if (!shared || keyed)
    return 0;
  return tn_errf(err, TN_EINPUT,
                 "compile cache %s is shared: %s; whoever can write it "
                 "could plant a CUBIN that this run would load.  Give a "
                 "shared cache a key (--cache-key FILE, docs/fleet.md), or "
                 "use a folder of your own (--cache-dir DIR) or "
                 "--no-cache",
                 dir, why);
}

int tn_cache_dir_make(const char *dir, int keyed, tn_err *err)
{
  char parent[4096];
  struct stat st;

  if (stat(dir, &st) != 0) {
    tn_dirname(parent, sizeof(parent), dir);
    if (tn_mkdirs(parent, err) != 0)
      return TN_ETOOL;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
      return tn_errf(err, TN_ETOOL, "mkdir(%s): %s", dir, strerror(errno));
  }
  return tn_cache_dir_check(dir, keyed, err);
}

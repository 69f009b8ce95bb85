/* lock.c -- a folder's lock (flock(2) on <dir>/.tuner.lock). */
#define _DEFAULT_SOURCE /* flock */
#include "base/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int tn_lock_dir(const char *who, const char *dir, int *fd, tn_err *err)
{
  char path[4200];
  int f, n = snprintf(path, sizeof(path), "%s/" TN_LOCK_NAME, dir);

  *fd = -1;
  if (n < 0 || (size_t)n >= sizeof(path))
    return tn_errf(err, TN_ETOOL, "%s: path too long", dir);
  /* read-only is enough for flock: a lock file another user made, in a
   * folder both may write, still serves */
  f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (f < 0 && errno == EACCES)
    f = open(path, O_RDONLY | O_CLOEXEC);
  if (f < 0)
    return tn_errf(err, TN_ETOOL, "open(%s): %s", path, strerror(errno));
  if (flock(f, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      int e = errno;
      close(f);
      return tn_errf(err, TN_ETOOL, "flock(%s): %s", path, strerror(e));
    }
    fprintf(stderr, "%s: waiting for another tuner writing into %s (%s)\n",
            who, dir, path);
    while (flock(f, LOCK_EX) != 0) {
      int e = errno;
      if (e == EINTR && !tn_interrupted())
        continue;
      close(f);
      if (e == EINTR)
        return tn_errf(err, TN_EINTR, "interrupted waiting for %s", path);
      return tn_errf(err, TN_ETOOL, "flock(%s): %s", path, strerror(e));
    }
  }
  *fd = f;
  return 0;
}

void tn_unlock_dir(int fd)
{
  if (fd >= 0)
    close(fd); /* closing the last descriptor lets the lock go */
}

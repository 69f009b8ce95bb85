/* lock.h -- a folder's lock, for processes that write a set of files into
 * one folder (a merge's headers, a run's header): flock(2) on
 * <dir>/.tuner.lock, held while the set is written, so that two sets
 * never mix.  A reader that wants a whole set takes it shared
 * (flock -s DIR/.tuner.lock cat ...).  flock works across the processes
 * of a host and, on Linux, over NFS (as a lock of the whole file). */
#ifndef TN_LOCK_H
#define TN_LOCK_H

#include "base/util.h"

#define TN_LOCK_NAME ".tuner.lock"

/* Takes dir's lock (dir must exist), waiting for another holder, with a
 * note on stderr while it waits (who: how the note names the caller).
 * *fd gets the lock for tn_unlock_dir.  Returns 0, TN_EINTR when
 * interrupted while waiting, or TN_ETOOL. */
int tn_lock_dir(const char *who, const char *dir, int *fd, tn_err *err);

/* Lets go of a lock tn_lock_dir took (fd < 0: nothing). */
void tn_unlock_dir(int fd);

#endif

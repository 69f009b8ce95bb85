/* cache_dir.h -- where the compile cache lives, and whether a folder may
 * hold it.
 *
 * The default is per user: $TUNER_CACHE_DIR, else $XDG_CACHE_HOME/tuner,
 * else $HOME/.cache/tuner, else $TMPDIR/tuner-<uid> ($TMPDIR: /tmp when
 * unset).  Only absolute paths count: a relative $XDG_CACHE_HOME, $HOME or
 * $TMPDIR is ignored, as XDG says.  A cache folder the tuner creates is
 * mode 0700.
 *
 * A folder that another user owns (root aside), that group or others may
 * write, or that is a link another user owns, is shared: whoever can
 * write it could plant a CUBIN that a run loads onto its GPU.  A shared
 * folder is used only with a key (--cache-key: every entry authenticated,
 * compile_cache.h); without one it is refused. */
#ifndef TN_CACHE_DIR_H
#define TN_CACHE_DIR_H

#include <stddef.h>

#include "base/util.h"

/* The default cache folder (above) into out. */
void tn_cache_dir_default(char *out, size_t n);

/* 0 if dir may hold the cache: it is private, or keyed; a dir that does
 * not exist yet is fine (tn_cache_dir_make makes it private).  TN_EINPUT
 * with why and what to do when dir is shared and not keyed.  Reads only. */
int tn_cache_dir_check(const char *dir, int keyed, tn_err *err);

/* Makes dir if it does not exist (its parents as mkdir -p does, dir
 * itself 0700), then checks it as tn_cache_dir_check: another process
 * may have made it first.  Returns 0, TN_EINPUT or TN_ETOOL. */
int tn_cache_dir_make(const char *dir, int keyed, tn_err *err);

#endif

/* compile_cache.h -- the on-disk compile cache: keys, entries, lookups and
 * stores.
 *
 * The key is a hash of the source, the headers, the options and NVRTC's
 * version.  An entry is one file, <dir>/<key>.tnc: a header line with the
 * sizes, a checksum and, with a key, a MAC; the log; the CUBIN.  It is
 * written atomically, so many processes (the compile workers, other runs)
 * may share a folder. */
#ifndef TN_COMPILE_CACHE_H
#define TN_COMPILE_CACHE_H

#include <stddef.h>

#include "base/arch.h"
#include "base/mac.h"
#include "pipeline/render.h"
#include "pipeline/space.h"

/* The key of source compiled for arch with t's headers (32 hex digits). */
void tn_compile_cache_key(const char *source, const tn_template *t,
                          const tn_arch *arch, char key[33]);

/* The functions below take mac: the cache's key (--cache-key), or NULL
 * for a private folder (cache_dir.h).  With a key, entries are stored
 * with their MAC, and only entries whose MAC verifies are served. */

/* Checks one cache entry.  Returns 0 if it verifies, or -1 with why; a
 * lookup treats a bad entry as a miss and the store rewrites it. */
int tn_compile_cache_check(const char *path, const tn_mac_key *mac,
                           char *why, size_t n);

/* Looks key up: 1 if found (c's status, log and CUBIN set: compiled, or
 * a recorded compile error), else 0.  A bad entry, or with mac one that
 * fails authentication, is a miss, with a note on stderr. */
int tn_compile_cache_get(const char *dir, const tn_mac_key *mac,
                         const char *key, tn_candidate *c);

/* Stores a result (failed: a compile error, no CUBIN); a cache that
 * cannot be written only costs speed. */
void tn_compile_cache_put(const char *dir, const tn_mac_key *mac,
                          const char *key, int failed, const char *log,
                          const void *cubin, size_t cubin_len);

/* 1 if dir holds at least one entry (it stops at the first): a run with
 * an empty cache will compile, so it starts its workers at once. */
int tn_compile_cache_has_entries(const char *dir);

#endif

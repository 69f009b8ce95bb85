/* mac.h -- keyed hashes (HMAC-SHA256, libsodium) for what others can
 * write: a key read from a file, and the MAC of several parts.  An xxHash
 * checksum finds damage; only a MAC finds a forgery, since whoever can
 * write a file can also recompute its checksum. */
#ifndef TN_MAC_H
#define TN_MAC_H

#include <stddef.h>

#include "base/util.h"

#define TN_MAC_KEY_MIN 32 /* bytes a key file holds at least */
#define TN_MAC_HEX 65     /* a MAC in hex, with its NUL */

typedef struct {
  unsigned char k[32];
} tn_mac_key;

/* Reads the key file path (what: how messages name it, "--cache-key"):
 * a regular file of TN_MAC_KEY_MIN to 4096 bytes that others (neither
 * its owner nor its group) can neither read nor write; the key is the
 * SHA-256 of its bytes, so any such file, text or binary, is a key.
 * Returns 0, or TN_EINPUT naming the file and why. */
int tn_mac_key_read(const char *what, const char *path, tn_mac_key *key,
                    tn_err *err);

/* HMAC-SHA256 by key of the parts, each prefixed by its length (so that
 * ("ab","c") and ("a","bc") differ), as 64 hex digits into out. */
void tn_mac_hex(const tn_mac_key *key, const void *const *parts,
                const size_t *lens, int nparts, char out[TN_MAC_HEX]);

/* 1 if the hex MACs a and b are equal, in time that does not depend on
 * where they differ; 0 otherwise (also for another length). */
int tn_mac_equal(const char *a, const char *b);

#endif

/* mac.c -- keyed hashes (HMAC-SHA256, libsodium). */
#define _POSIX_C_SOURCE 200809L
#include "base/mac.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tn_mac_key_read(const char *what, const char *path, tn_mac_key *key,
                    tn_err *err)
{
  unsigned char buf[4097];
  struct stat st;
  ssize_t got = 0;
  size_t len = 0;
  int fd;

  if (sodium_init() < 0)
    return tn_errf(err, TN_ETOOL, "libsodium cannot start");
  fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return tn_errf(err, TN_EINPUT, "%s %s: %s", what, path,
                   strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return tn_errf(err, TN_EINPUT, "%s %s: not a regular file", what, path);
  }
  if (st.st_mode & (S_IROTH | S_IWOTH)) {
    close(fd);
    return tn_errf(err, TN_EINPUT,
                   "%s %s: every user can %s it (mode %04o): a key "
                   "others can read forges entries; chmod o-rw it",
                   what, path, st.st_mode & S_IROTH ? "read" : "write",
                   (unsigned)(st.st_mode & 07777));
  }
  while (len < sizeof(buf)) {
    got = read(fd, buf + len, sizeof(buf) - len);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    len += (size_t)got;
  }
  close(fd);
  if (got < 0)
    return tn_errf(err, TN_EINPUT, "%s %s: %s", what, path,
                   strerror(errno));
  if (len < TN_MAC_KEY_MIN || len == sizeof(buf)) {
    sodium_memzero(buf, sizeof(buf));
    return tn_errf(err, TN_EINPUT,
                   "%s %s: %zu%s bytes; a key file holds %d to %zu "
                   "(e.g. head -c 32 /dev/urandom >FILE)",
                   what, path, len, len == sizeof(buf) ? " or more" : "",
                   TN_MAC_KEY_MIN, sizeof(buf) - 1);
  }
  crypto_hash_sha256(key->k, buf, len);
  sodium_memzero(buf, sizeof(buf));
  return 0;
}

void tn_mac_hex(const tn_mac_key *key, const void *const *parts,
                const size_t *lens, int nparts, char out[TN_MAC_HEX])
{
  crypto_auth_hmacsha256_state st;
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  int i;

  /* HMAC-SHA256 has one implementation: it needs nothing sodium_init
   * chooses; a process that read its key (tn_mac_key_read) ran it */
  crypto_auth_hmacsha256_init(&st, key->k, sizeof(key->k));
  for (i = 0; i < nparts; i++) {
    uint64_t len = lens[i];
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)&len,
                                  sizeof(len));
    crypto_auth_hmacsha256_update(&st, parts[i], lens[i]);
  }
  crypto_auth_hmacsha256_final(&st, mac);
  sodium_bin2hex(out, TN_MAC_HEX, mac, sizeof(mac));
}

int tn_mac_equal(const char *a, const char *b)
{
  size_t n = strlen(a);
  if (n != strlen(b) || n == 0)
    return 0;
  return sodium_memcmp(a, b, n) == 0;
}

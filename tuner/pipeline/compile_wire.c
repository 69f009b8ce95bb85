/* compile_wire.c -- the messages between the tuner and its compile
 * workers. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/compile_wire.h"

#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "base/util.h"

/* Small messages go in one write: a pipe delivers up to PIPE_BUF (4096)
 * bytes at once, so the reader, woken by poll, finds the whole of it. */
#define ONE_WRITE 4096

int tn_wire_send(int fd, unsigned type, const void *const *part,
                 const size_t *len, int n)
{
  tn_wire_header h = {type, 0};
  size_t total = 0;
  int i;
  for (i = 0; i < n; i++)
    total += len[i];
  if (total > TN_WIRE_MAX_PAYLOAD)
    return -1;
  h.len = (unsigned)total;
  if (sizeof(h) + total <= ONE_WRITE) {
    char buf[ONE_WRITE];
    size_t off = sizeof(h);
    memcpy(buf, &h, sizeof(h));
    for (i = 0; i < n; i++) {
      if (len[i])
        memcpy(buf + off, part[i], len[i]);
      off += len[i];
    }
    return tn_proc_write_all(fd, buf, off);
  }
  if (tn_proc_write_all(fd, &h, sizeof(h)) != 0)
    return -1;
  for (i = 0; i < n; i++)
    if (len[i] && tn_proc_write_all(fd, part[i], len[i]) != 0)
      return -1;
  return 0;
}

int tn_wire_read(int fd, void *data, size_t len)
{
  return tn_proc_read_all(fd, data, len, 0);
}

int tn_wire_read_text(int fd, size_t len, char **out)
{
  *out = malloc(len + 1);
  if (*out == NULL || tn_wire_read(fd, *out, len) != 0) {
    free(*out);
    *out = NULL;
    return -1;
  }
  (*out)[len] = '\0';
  return 0;
}

int tn_wire_read_fixed(int fd, const tn_wire_header *h, unsigned type,
                       void *fixed, size_t size)
{
  if (h->type != type || h->len < size)
    return -1;
  return tn_wire_read(fd, fixed, size);
}

size_t tn_wire_setup_size(const tn_template *t, const char *cache_dir,
                          const tn_mac_key *mac)
{
  size_t n = sizeof(tn_wire_header) + sizeof(tn_wire_setup) +
             strlen(cache_dir) + (mac ? sizeof(*mac) : 0);
  int i;
  for (i = 0; t && i < t->n_headers; i++)
    n += strlen(t->header_names[i]) + strlen(t->header_texts[i]);
  return n;
}

int tn_wire_send_setup(int fd, const tn_template *t, const char *arch,
                       const char *cache_dir, const tn_mac_key *mac)
{
  const void *part[1 + 2 * TN_MAX_HEADERS + 2];
  size_t len[1 + 2 * TN_MAX_HEADERS + 2];
  tn_wire_setup s;
  int i, n = 0;

  memset(&s, 0, sizeof(s));
  tn_strlcpy(s.arch, arch, sizeof(s.arch));
  s.n_headers = t ? t->n_headers : 0;
  part[n] = &s;
  len[n++] = sizeof(s);
  for (i = 0; i < s.n_headers; i++) {
    s.name_len[i] = (unsigned)strlen(t->header_names[i]);
    s.text_len[i] = (unsigned)strlen(t->header_texts[i]);
    part[n] = t->header_names[i];
    len[n++] = s.name_len[i];
    part[n] = t->header_texts[i];
    len[n++] = s.text_len[i];
  }
  s.cache_len = (unsigned)strlen(cache_dir);
  part[n] = cache_dir;
  len[n++] = s.cache_len;
  if (mac) {
    s.mac_len = (unsigned)sizeof(*mac);
    part[n] = mac;
    len[n++] = s.mac_len;
  }
  return tn_wire_send(fd, TN_WIRE_SETUP, part, len, n);
}

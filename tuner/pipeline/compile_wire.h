/* compile_wire.h -- the messages between the tuner and its compile
 * workers ("tuner __compile", compile_serve.h), and their whole reads and
 * writes.
 *
 * A message is a fixed header (type, payload length), a struct and the
 * strings it sizes: both ends are the same binary.  Times are tn_now()
 * seconds (CLOCK_MONOTONIC: one clock for every process of the machine),
 * so the tuner can place a worker's times beside its own.
 *
 * The order: the worker says HELLO; the tuner may send WARM once (the
 * worker pays NVRTC's one-time costs and answers READY), then SETUP (the
 * headers, the architecture, the cache folder; again whenever they
 * change) and JOBs, each answered by a RESULT, in order. */
#ifndef TN_COMPILE_WIRE_H
#define TN_COMPILE_WIRE_H

#include <stddef.h>

#include "base/mac.h"
#include "pipeline/render.h"

enum {
  TN_WIRE_HELLO = 1,
  TN_WIRE_SETUP = 2,
  TN_WIRE_JOB = 3,
  TN_WIRE_RESULT = 4,
  TN_WIRE_WARM = 5,
  TN_WIRE_READY = 6
};

#define TN_WIRE_MAX_PAYLOAD (1u << 30)

typedef struct {
  unsigned type;
  unsigned len; /* bytes after the header */
} tn_wire_header;

typedef struct {
  double t_main; /* the worker's main() ran: exec and loading done */
} tn_wire_hello;

typedef struct {
  char arch[32]; /* what the warm-up compiles for */
} tn_wire_warm;

typedef struct {
  double t0, t1; /* the warm-up compile */
  int rc;        /* its tn_compile_source status (not acted on) */
} tn_wire_ready;

typedef struct {
  char arch[32];
  int n_headers;
  unsigned name_len[TN_MAX_HEADERS], text_len[TN_MAX_HEADERS];
  unsigned cache_len;
  unsigned mac_len; /* 0, or sizeof(tn_mac_key): the cache's key */
} tn_wire_setup;

typedef struct {
  int index, id;
  unsigned name_len, src_len, key_len;
} tn_wire_job;

typedef struct {
  int index, rc; /* rc: 0, 1 compile error, -1 NVRTC failed (err) */
  unsigned log_len, cubin_len, err_len;
  double t_recv;      /* the job was read */
  double t0, t1;      /* the compile */
  double t_sent;      /* the answer is being written */
} tn_wire_result;

/* Sends a header and n pieces as one message (one write when it is
 * small).  Returns 0, or -1 (the peer is gone, or too large). */
int tn_wire_send(int fd, unsigned type, const void *const *part,
                 const size_t *len, int n);

/* A whole read without a deadline.  Returns 0 or -1 (EOF, error). */
int tn_wire_read(int fd, void *data, size_t len);

/* len bytes into a malloc'd, NUL-terminated buffer.  Returns 0 or -1. */
int tn_wire_read_text(int fd, size_t len, char **out);

/* Reads the fixed part of a message of type whose header h was read:
 * h->len must hold at least size bytes.  Returns 0 or -1. */
int tn_wire_read_fixed(int fd, const tn_wire_header *h, unsigned type,
                       void *fixed, size_t size);

/* The bytes a SETUP of t's headers, cache_dir and mac takes on the
 * pipe. */
size_t tn_wire_setup_size(const tn_template *t, const char *cache_dir,
                          const tn_mac_key *mac);

/* Sends a SETUP: t's headers (NULL: none), arch, cache_dir and its key
 * (NULL: none; the pipe is the tuner's own, to its child).  0 or -1. */
int tn_wire_send_setup(int fd, const tn_template *t, const char *arch,
                       const char *cache_dir, const tn_mac_key *mac);

#endif

/* compile_serve.h -- a compile worker: "tuner __compile".
 *
 * The loop on fds 3 (requests) and 4 (answers) that compile_pool.h
 * starts and feeds (the messages: compile_wire.h).  It answers each
 * compile before it stores the cache entry, so the store delays no one,
 * and leaves when the tuner closes its end (however the tuner ended). */
#ifndef TN_COMPILE_SERVE_H
#define TN_COMPILE_SERVE_H

#define TN_COMPILE_SERVE_IN 3
#define TN_COMPILE_SERVE_OUT 4

/* Serves until EOF.  before, if not NULL, runs before each compile of a
 * candidate with its id (tests use it to crash or hold a worker; the
 * warm-up compile does not call it).  Returns the exit status. */
int tn_compile_serve(void (*before)(int id));

/* "tuner __compile". */
int tn_compile_serve_main(int argc, char **argv);

#endif

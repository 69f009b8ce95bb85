/* proc.h -- the plumbing of a child process over two pipes that the GPU
 * worker (gpu/worker.c) and the compile workers (pipeline/compile_pool.c)
 * share: whole reads and writes, reaping, and saying how a child ended. */
#ifndef TN_PROC_H
#define TN_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* Writes all of data.  Returns 0, or -1 on error. */
int tn_proc_write_all(int fd, const void *data, size_t len);

/* Reads len bytes, waiting until deadline (monotonic seconds, <= 0: no
 * limit; EINTR is then retried).  Returns 0, -1 on EOF or error, -2 on
 * timeout, -3 if a signal interrupted a read with a deadline (the caller
 * must look at it). */
int tn_proc_read_all(int fd, void *data, size_t len, double deadline);

/* Waits for child pid, killing it first if kill_it, else after 2 s.
 * Returns its wait status (0 if it could not be had). */
int tn_proc_reap(pid_t pid, int kill_it);

/* "the WHO died of signal 11 (Segmentation fault)", "... exited with
 * status 1", from a wait status. */
void tn_proc_describe_exit(int status, const char *who, char *buf, size_t n);

#endif

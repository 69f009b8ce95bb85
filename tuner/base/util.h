/* util.h -- errors, files and small helpers shared by every module. */
#ifndef TN_UTIL_H
#define TN_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Error codes: functions return 0 or one of these (negative). */
enum {
  TN_EINPUT = -2, /* the user's input is wrong: exit 2, write nothing */
  TN_ETOOL = -3,  /* a system or library call failed: exit 1 */
  TN_ENODEV = -4, /* no driver, no GPU, or no such device */
  TN_EINTR = -5   /* interrupted by a signal */
};

/* Exit statuses of the program. */
enum { TN_EXIT_OK = 0, TN_EXIT_TOOL = 1, TN_EXIT_INPUT = 2, TN_EXIT_NODEV = 3 };

/* Caller-owned error text; the first error set wins over later ones. */
typedef struct {
  char msg[2048];
} tn_err;

/* Formats the message into err (if err has none yet) and returns code. */
int tn_errf(tn_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Maps an error code to the program's exit status. */
int tn_exit_status(int code);

/* Reads a whole file into a NUL-terminated buffer the caller frees.
 * Returns 0, or TN_EINPUT when it cannot be opened or read. */
int tn_read_file(const char *path, char **data, size_t *len, tn_err *err);
/* Writes a file atomically: a unique temporary beside it (mkstemp,
 * "<path>.tmp.XXXXXX"), fsync, rename, fsync of the folder.
 * Returns 0 or TN_ETOOL. */
int tn_write_file_atomic(const char *path, const void *data, size_t len,
                         tn_err *err);
/* Writes a new file: as tn_write_file_atomic, but only if path does not
 * exist (link(2) of the temporary: two processes never both take a name,
 * and nobody sees the file partly written).  Returns 0, 1 when path
 * exists (nothing written), or TN_ETOOL. */
int tn_write_file_new(const char *path, const void *data, size_t len,
                      tn_err *err);
/* Creates a directory and its parents. Returns 0 or TN_ETOOL. */
int tn_mkdirs(const char *path, tn_err *err);
/* Joins a directory and a name into out; returns 0 or TN_ETOOL if long. */
int tn_path_join(char *out, size_t n, const char *dir, const char *name);
/* Directory part of path (".” when none) into out. */
void tn_dirname(char *out, size_t n, const char *path);

/* Monotonic seconds. */
double tn_now(void);
/* Seconds since 1970 (the host's clock, CLOCK_REALTIME): when something
 * happened, in a record that other processes read (tn_now's origin is
 * the boot). */
double tn_wall_now(void);
/* UTC time as "2026-11-30T03:48:20Z" into out (at least 21 bytes). */
void tn_utc_iso(char *out, size_t n);

/* Copies at most n-1 bytes and terminates; returns 1 if truncated. */
int tn_strlcpy(char *dst, const char *src, size_t n);
/* Keeps letters, digits, '-', '_' and '.', maps the rest to '_'. */
void tn_sanitize_name(char *s);

/* Ctrl-C and SIGTERM set a flag instead of killing the program, so that
 * what was measured is written before it exits.  System calls are not
 * restarted: blocking waits return EINTR and look at the flag. */
void tn_install_interrupt_handler(void);
int tn_interrupted(void);

/* 128-bit content hash (XXH3) as 32 hex digits into out[33]. */
void tn_hash_hex(const void *const *parts, const size_t *lens, int nparts,
                 char out[33]);

#endif

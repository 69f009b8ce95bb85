/* sizes_util.h -- what the merge tests share (test_sizes.c,
 * test_sizes_merge.c, and through merge_fleet.h test_merge.c and
 * test_merge_macros.c): a scratch folder, `tuner merge` run in a child (its
 * exit status, stdout and stderr in files), files read back and searched,
 * programs written and compiled there. */
#ifndef TN_SIZES_UTIL_H
#define TN_SIZES_UTIL_H

/* (the including file defines _POSIX_C_SOURCE 200809L first) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet/merge.h"
#include "test_util.h"

static char tmp[256]; /* short: every path built from it fits */

static inline void tmp_make(const char *what)
{
  snprintf(tmp, sizeof(tmp), "%s/tuner-%s-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", what);
  if (mkdtemp(tmp) == NULL) {
    perror("mkdtemp");
    exit(1);
  }
}

static inline void tmp_remove(void)
{
  char cmd[400];
  if (tn_test_failures && getenv("TUNER_KEEP_TMP")) {
    fprintf(stderr, "kept %s\n", tmp);
    return;
  }
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", tmp);
}

/* tn_merge_main(args) in a child, stdout and stderr into tmp/merge.out
 * and merge.err.  Returns its exit status, -1 if it did not exit. */
static inline int merge(const char *const *args)
{
  char *argv[64], out[400], errp[400];
  int argc = 0, status;
  pid_t pid;
  argv[argc++] = (char *)"merge";
  while (*args && argc < 63)
    argv[argc++] = (char *)*args++;
  argv[argc] = NULL;
  snprintf(out, sizeof(out), "%s/merge.out", tmp);
  snprintf(errp, sizeof(errp), "%s/merge.err", tmp);
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    if (freopen(out, "w", stdout) == NULL ||
        freopen(errp, "w", stderr) == NULL)
      _exit(99);
    status = tn_merge_main(argc, argv);
    fflush(NULL);
    _exit(status);
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status);
}

static inline char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  if (f == NULL)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf)
    buf[n] = '\0';
  fclose(f);
  return buf;
}

static inline char *tmp_file(const char *name)
{
  char path[600];
  snprintf(path, sizeof(path), "%s/%s", tmp, name);
  return slurp(path);
}

static inline int contains(const char *name, const char *text)
{
  char *s = tmp_file(name);
  int yes = s && strstr(s, text) != NULL;
  if (!yes)
    fprintf(stderr, "%s does not contain \"%s\"%s%s\n", name, text,
            s ? ":\n" : " (no file)", s ? s : "");
  free(s);
  return yes;
}

static inline int exists(const char *name)
{
  char path[600];
  struct stat st;
  snprintf(path, sizeof(path), "%s/%s", tmp, name);
  return stat(path, &st) == 0;
}

static inline int write_text(const char *name, const char *text)
{
  char path[600];
  FILE *f;
  snprintf(path, sizeof(path), "%s/%s", tmp, name);
  f = fopen(path, "w");
  if (f == NULL)
    return -1;
  fputs(text, f);
  return fclose(f) == 0 ? 0 : -1;
}

/* Writes NAME with text under tmp and runs cmd, where every %s is tmp.
 * Returns cmd's status (0: compiled, and ran for a program). */
static inline int build(const char *name, const char *text, const char *cmd)
{
  char line[4000];
  if (write_text(name, text) != 0)
    return -1;
  snprintf(line, sizeof(line), cmd, tmp, tmp, tmp, tmp, tmp, tmp);
  return system(line);
}

/* gcc as C11, all warnings errors, pedantic; the program runs. */
static const char *const cc_run =
    "cc -std=c11 -Wall -Wextra -Werror -pedantic -I%s/out -o %s/prog "
    "%s/prog.c && %s/prog > %s/prog.out";

#endif

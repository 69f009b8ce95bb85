/* run_files.c -- a run's results file and journal under names that no
 * other run has, and its header under its folder's lock. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/run_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/lock.h"
#include "pipeline/results.h"
#include "pipeline/run_header.h"

#define MAX_TRIES 1000

/* Creates path empty if it does not exist: 0, 1 when it exists, or
 * TN_ETOOL. */
static int claim_empty(const char *path, tn_err *err)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  if (errno == EEXIST)
    return 1;
  return tn_errf(err, TN_ETOOL, "open(%s): %s", path, strerror(errno));
}

int tn_run_files_trim_journal(const char *path, tn_err *err)
{
  char buf[4096];
  off_t end, at;
  int fd = open(path, O_RDWR | O_CLOEXEC);

  if (fd < 0)
    return tn_errf(err, TN_ETOOL, "open(%s): %s", path, strerror(errno));
  end = lseek(fd, 0, SEEK_END);
  if (end < 0) {
    int e = errno;
    close(fd);
    return tn_errf(err, TN_ETOOL, "lseek(%s): %s", path, strerror(e));
  }
  /* back from the end to the last newline */
  for (at = end; at > 0;) {
    size_t n = at < (off_t)sizeof(buf) ? (size_t)at : sizeof(buf);
    ssize_t got = pread(fd, buf, n, at - (off_t)n);
    ssize_t i;
    if (got != (ssize_t)n) {
      close(fd);
      return tn_errf(err, TN_ETOOL, "read(%s): %s", path,
                     got < 0 ? strerror(errno) : "short");
    }
    for (i = got - 1; i >= 0 && buf[i] != '\n'; i--)
      ;
    if (i >= 0) {
      at = at - (off_t)n + i + 1;
      break;
    }
    at -= (off_t)n;
  }
  if (at != end && ftruncate(fd, at) != 0) {
    int e = errno;
    close(fd);
    return tn_errf(err, TN_ETOOL, "ftruncate(%s): %s", path, strerror(e));
  }
  if (at != end)
    fprintf(stderr, "tuner: note: %s ended in a line cut short (%lld "
                    "bytes): dropped\n",
            path, (long long)(end - at));
  close(fd);
  return 0;
}

int tn_run_files_create(tn_run *run, json_t *doc, int journal, tn_err *err)
{
  char stem[4400], json[4400], jsonl[4401];
  size_t n = strlen(run->results_path);
  char *text;
  int i, rc = 1;

  rc = tn_results_text(doc, &text, err);
  if (rc != 0)
    return rc;
  rc = 1;
  if (n > 5 && strcmp(run->results_path + n - 5, ".json") == 0)
    n -= 5;
  snprintf(stem, sizeof(stem), "%.*s", (int)n, run->results_path);
  for (i = 1; i <= MAX_TRIES && rc == 1; i++) {
    int w = i == 1 ? snprintf(json, sizeof(json), "%s.json", stem)
                   : snprintf(json, sizeof(json), "%s-%d.json", stem, i);
    if (w < 0 || (size_t)w + 1 >= sizeof(json)) {
      rc = tn_errf(err, TN_ETOOL, "%s: path too long", stem);
      break;
    }
    snprintf(jsonl, sizeof(jsonl), "%sl", json);
    if (journal) {
      rc = claim_empty(jsonl, err);
      if (rc != 0)
        continue; /* 1: taken, try the next; else an error */
    }
    rc = tn_write_file_new(json, text, strlen(text), err);
    if (rc != 0 && journal)
      unlink(jsonl); /* ours, and empty */
  }
  free(text);
  if (rc == 1)
    return tn_errf(err, TN_ETOOL, "%s.json and %d more names are taken",
                   stem, MAX_TRIES - 1);
  if (rc != 0)
    return rc;
  tn_strlcpy(run->results_path, json, sizeof(run->results_path));
  if (journal) {
    tn_strlcpy(run->journal_path, jsonl, sizeof(run->journal_path));
    run->files_made = 1;
  }
  return 0;
}

int tn_run_files_header(const tn_run *run, tn_err *err)
{
  char dir[4096];
  int fd, rc;
  tn_run_output_dir(run, dir, sizeof(dir));
  rc = tn_mkdirs(dir, err);
  if (rc == 0)
    rc = tn_lock_dir("tuner", dir, &fd, err);
  if (rc != 0)
    return rc;
  rc = tn_run_header_write(run, err);
  tn_unlock_dir(fd);
  return rc;
}

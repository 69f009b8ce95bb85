/* proc.c -- pipes and child processes (proc.h). */
#define _POSIX_C_SOURCE 200809L
#include "base/proc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

int tn_proc_write_all(int fd, const void *data, size_t len)
{
  const char *p = data;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

int tn_proc_read_all(int fd, void *data, size_t len, double deadline)
{
  char *p = data;
  while (len > 0) {
    ssize_t r;
    if (deadline > 0) {
      struct pollfd pfd = {fd, POLLIN, 0};
      double left = deadline - tn_now();
      int pr;
      if (left <= 0)
        return -2;
      pr = poll(&pfd, 1, (int)(left * 1000) + 1);
      if (pr < 0 && errno == EINTR)
        return -3;
      if (pr == 0)
        continue;
      if (pr < 0)
        return -1;
    }
    r = read(fd, p, len);
    if (r < 0 && errno == EINTR) {
      if (deadline > 0)
        return -3;
      continue;
    }
    if (r <= 0)
      return -1;
    p += r;
    len -= (size_t)r;
  }
  return 0;
}

int tn_proc_reap(pid_t pid, int kill_it)
{
  struct timespec tick = {0, 1000000}; /* 1 ms */
  int status = 0, i;
  if (pid <= 0)
    return 0;
  if (kill_it)
    kill(pid, SIGKILL);
  for (i = 0; i < 2000; i++) { /* 2 s to leave on its own, then killed */
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR))
      break;
    if (i == 1000)
      kill(pid, SIGKILL);
    nanosleep(&tick, NULL);
  }
  return status;
}

void tn_proc_describe_exit(int status, const char *who, char *buf, size_t n)
{
  if (WIFSIGNALED(status))
    snprintf(buf, n, "the %s died of signal %d (%s)", who, WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status))
    snprintf(buf, n, "the %s exited with status %d", who,
             WEXITSTATUS(status));
  else
    snprintf(buf, n, "the %s stopped", who);
}

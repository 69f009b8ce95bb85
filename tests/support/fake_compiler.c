/* fake_compiler.c -- the tuner's compile worker with hooks, to test the
 * pool: run as "fake_compiler __compile" when TUNER_COMPILER names it.
 *
 * FAKE_COMPILER_ABORT=ID aborts the worker when it is given candidate ID.
 * FAKE_COMPILER_GATE=ID:FILE holds candidate ID until FILE has a line
 * starting with "candidate " (the fake GPU worker's log: a candidate is
 * being benchmarked), at most 120 s.  FAKE_COMPILER_LOG appends
 * "compile ID" before each compile (after the gate).  FAKE_COMPILER_STARTS
 * appends "start PID" when the process starts. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipeline/compile_serve.h"

/* 1 if path has a line starting with "candidate ". */
static int benchmarking(const char *path)
{
  char line[256];
  int found = 0;
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return 0;
  while (!found && fgets(line, sizeof(line), f))
    found = strncmp(line, "candidate ", 10) == 0;
  fclose(f);
  return found;
}

static void before(int id)
{
  const char *abort_id = getenv("FAKE_COMPILER_ABORT");
  const char *gate = getenv("FAKE_COMPILER_GATE");
  const char *log = getenv("FAKE_COMPILER_LOG");
  int gid, used = 0, i;

  if (abort_id && atoi(abort_id) == id)
    abort();
  if (gate && sscanf(gate, "%d:%n", &gid, &used) == 1 && used > 0 &&
      gid == id) {
    struct timespec ts = {0, 10000000L};
    /* a wait for an event, bounded; not a timer */
    for (i = 0; i < 12000 && !benchmarking(gate + used); i++)
      nanosleep(&ts, NULL);
  }
  if (log) {
    FILE *f = fopen(log, "a");
    if (f) {
      fprintf(f, "compile %d\n", id);
      fclose(f);
    }
  }
}

int main(int argc, char **argv)
{
  const char *starts = getenv("FAKE_COMPILER_STARTS");
  if (argc < 2 || strcmp(argv[1], "__compile") != 0) {
    fprintf(stderr, "usage: fake_compiler __compile\n");
    return 2;
  }
  if (starts) {
    FILE *f = fopen(starts, "a");
    if (f) {
      fprintf(f, "start %ld\n", (long)getpid());
      fclose(f);
    }
  }
  return tn_compile_serve(before);
}

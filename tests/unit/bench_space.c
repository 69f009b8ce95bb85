/* bench_space.c -- the cost of a large space before anything is compiled:
 * a config loaded, its space enumerated with the constraints and limits
 * checked and every valid point priced by the model (tn_space_build), the
 * time model's prediction of each (tn_space_predict), the time model's
 * pruning (tn_space_prune) and the benchmark's order (tn_select_order).
 * Prints each step's CPU time (one core: these steps run on one thread)
 * and wall time, the best of the runs, and the peak resident memory.
 * The last line scales the enumeration, checks and pricing to 100,000
 * points, the figure issue 34 asks to stay within 2 s of one core.
 * Built, not run by ctest: a benchmark, not a timed test
 * (docs/notes/large-spaces.md has the figures and the command).
 * Usage: bench_space CONFIG [ARCH [RUNS]]   (default sm_90, 3 runs);
 * run it from the repository's root, where the device profiles are. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pipeline/config.h"
#include "pipeline/select.h"
#include "pipeline/space.h"

enum { STEP_BUILD, STEP_PREDICT, STEP_PRUNE, STEP_ORDER, N_STEPS };
static const char *const step_names[N_STEPS] = {
    "enumerate, check and price (tn_space_build)",
    "predict times (tn_space_predict)", "prune (tn_space_prune)",
    "order for the benchmark (tn_select_order)"};

static double clock_s(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  double cpu, wall;
} stamp;

static stamp now(void)
{
  stamp s;
  s.cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  s.wall = clock_s(CLOCK_MONOTONIC);
  return s;
}

static void keep_least(stamp *best, stamp t0, stamp t1, int first)
{
  double cpu = t1.cpu - t0.cpu, wall = t1.wall - t0.wall;
  if (first || cpu < best->cpu)
    best->cpu = cpu;
  if (first || wall < best->wall)
    best->wall = wall;
}

int main(int argc, char **argv)
{
  static tn_job job;
  const char *arch_name = argc > 2 ? argv[2] : "sm_90";
  const tn_arch *arch;
  int runs = argc > 3 ? atoi(argv[3]) : 3;
  stamp best[N_STEPS];
  tn_err err = {{0}};
  tn_profile profile;
  tn_space space;
  struct rusage ru;
  int r, s, pending = 0, pruned = 0, by[8] = {0}, *order = NULL, i;

  if (argc < 2 || runs < 1) {
    fprintf(stderr, "usage: bench_space CONFIG [ARCH [RUNS]]\n");
    return 2;
  }
  arch = tn_arch_find(arch_name);
  if (arch == NULL) {
    fprintf(stderr, "bench_space: unknown architecture %s\n", arch_name);
    return 2;
  }
  if (tn_config_load(argv[1], &job, &err) != 0) {
    fprintf(stderr, "bench_space: %s\n", err.msg);
    return 2;
  }
  if (tn_profile_for(NULL, TN_PROFILE_DIR, arch, &profile, &err) != 0)
    tn_profile_derive(arch, NULL, &profile);
  for (r = 0; r < runs; r++) {
    stamp t[N_STEPS + 1];
    t[0] = now();
    if (tn_space_build(&job, arch, &space, &err) != 0) {
      fprintf(stderr, "bench_space: %s\n", err.msg);
      return 2;
    }
    t[1] = now();
    tn_space_predict(&job, &profile, &space);
    t[2] = now();
    tn_space_prune(&job, &space);
    t[3] = now();
    order = malloc(sizeof(int) * (size_t)space.n);
    if (order == NULL || tn_select_order(job.family, &space, order) != 0) {
      fprintf(stderr, "bench_space: out of memory\n");
      return 1;
    }
    t[4] = now();
    for (s = 0; s < N_STEPS; s++)
      keep_least(&best[s], t[s], t[s + 1], r == 0);
    if (r + 1 < runs) {
      free(order);
      tn_space_free(&space);
    }
  }
  for (i = 0; i < space.n; i++) {
    const tn_candidate *c = &space.c[i];
    pending += c->status == TN_ST_PENDING;
    if (c->status == TN_ST_PRUNED) {
      pruned++;
      by[c->pruned_by & 7]++;
    }
  }
  getrusage(RUSAGE_SELF, &ru);
  printf("config %s, %s, %d problem%s: %d points\n", argv[1], arch->name,
         job.n_problems, job.n_problems == 1 ? "" : "s", space.n);
  printf("  excluded by the kernel's rules %d, by constraints %d, by the "
         "limits %d; priced %d\n",
         by[TN_BY_FAMILY], by[TN_BY_CONSTRAINT], by[TN_BY_LIMITS],
         space.n - by[TN_BY_FAMILY] - by[TN_BY_CONSTRAINT] -
             by[TN_BY_LIMITS]);
  printf("  pruned by the time model %d; left to compile and time %d\n",
         by[TN_BY_TIME_MODEL], pending);
  printf("  the first in the benchmark's order: candidate %d, predicted "
         "%.4g ms\n",
         order[0], space.c[order[0]].pred_total.ms);
  printf("best of %d run%s, seconds (CPU, wall):\n", runs,
         runs == 1 ? "" : "s");
  for (s = 0; s < N_STEPS; s++)
    printf("  %-46s %7.3f %7.3f\n", step_names[s], best[s].cpu,
           best[s].wall);
  printf("  %-46s %7.3f %7.3f\n", "enumerate, check, price and predict",
         best[STEP_BUILD].cpu + best[STEP_PREDICT].cpu,
         best[STEP_BUILD].wall + best[STEP_PREDICT].wall);
  printf("peak resident memory: %.0f MB\n", ru.ru_maxrss / 1024.0);
  /* scaled linearly from this space's points, valid and excluded alike */
  printf("enumerate, check and price per 100,000 points: %.3f s CPU, "
         "%.3f s wall\n",
         best[STEP_BUILD].cpu * 1e5 / space.n,
         best[STEP_BUILD].wall * 1e5 / space.n);
  free(order);
  tn_space_free(&space);
  return 0;
}

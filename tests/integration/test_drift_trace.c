/* test_drift_trace.c -- the host side of the GPU drift test, on the CPU.
 *
 * For every candidate of each config (CONFIG[:pruned]) and both of its
 * one-block problems: the plan of that block is not empty; a trace made
 * from the plan (records as the instrumented kernel writes them, lanes in
 * any order) groups and compares equal to it; a trace with one address
 * moved (to the next word, or to the next element: within a word for the
 * transposes of 1- and 2-byte elements), or one lane dropped, or one lane
 * recorded twice is caught.  Then,
 * with STRIDE above 0, the instrumented template (TN_TRACE 1) compiles with
 * NVRTC for sm_90: all candidates of the first config, every STRIDE-th of
 * the others; STRIDE 0 checks the plans only (the builds are a test of
 * their own, tests/integration/CMakeLists.txt: they take the longest),
 * through the compile cache of $TUNER_CACHE_DIR where it is set (the
 * tests' own: the builds are the same from run to run, and CI keeps it).
 *
 * Usage: test_drift_trace STRIDE CONFIG[:pruned]... */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drift.h"
#include "templates/smem_trace.h"
#include "pipeline/cache_dir.h"
#include "pipeline/compile.h"
#include "pipeline/compile_cache.h"
#include "pipeline/config.h"
#include "pipeline/precheck.h"
#include "pipeline/render.h"
#include "pipeline/space.h"
#include "test_util.h"

/* The CUBIN names the globals gpu_drift_trace sets (unmangled). */
static int has_symbols(const void *cubin, size_t len)
{
  static const char *const names[] = {"tn_trace_buf", "tn_trace_cap",
                                      "tn_trace_n", "tn_trace_seq"};
  size_t i;
  for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if (memmem(cubin, len, names[i], strlen(names[i]) + 1) == NULL)
      return 0;
  return 1;
}

/* tn_compile_source, served from and stored in the compile cache of
 * $TUNER_CACHE_DIR where it is set (a private folder: no key).  Returns tn_compile_source's status
 * (a compile error is not stored: it fails the test anyway). */
static int build(const char *src, const char *name, const tn_template *tpl,
                 const tn_arch *arch, void **cubin, size_t *len, char **log,
                 tn_err *e)
{
  const char *dir = getenv("TUNER_CACHE_DIR");
  char key[33];
  tn_candidate c;
  int rc;

  if (dir == NULL || dir[0] == '\0')
    return tn_compile_source(src, name, tpl, arch, cubin, len, log, e);
  tn_compile_cache_key(src, tpl, arch, key);
  memset(&c, 0, sizeof(c));
  if (tn_compile_cache_get(dir, NULL, key, &c) &&
      c.status == TN_ST_COMPILED) {
    *cubin = c.cubin;
    *len = c.cubin_len;
    *log = c.log;
    return 0;
  }
  free(c.log);
  rc = tn_compile_source(src, name, tpl, arch, cubin, len, log, e);
  if (rc == 0 && tn_cache_dir_make(dir, 0, e) == 0)
    tn_compile_cache_put(dir, NULL, key, 0, *log, *cubin, *len);
  return rc;
}

/* Records for every active lane of every access, lanes backwards. */
static tn_trace_rec *trace_of(const tn_block_plan *bp, long long *n)
{
  tn_trace_rec *r;
  long long k = 0;
  int i, lane;
  r = malloc(((size_t)bp->n * 32 + 1) * sizeof(*r));
  if (r == NULL)
    return NULL;
  for (i = 0; i < bp->n; i++)
    for (lane = 31; lane >= 0; lane--) {
      const tn_warp_access *a = &bp->v[i].a;
      if (!(a->active >> lane & 1u))
        continue;
      r[k].warp = (uint32_t)(i % 3);
      r[k].seq = (uint32_t)i;
      r[k].lane = (uint32_t)lane;
      r[k].addr = a->addr[lane];
      r[k].op = (uint32_t)a->op;
      r[k].width = (uint32_t)a->width;
      k++;
    }
  *n = k;
  return r;
}

/* Compares plan with a trace made from it, changed by `mutate`; returns
 * the differences, or -1 if the records could not be grouped. */
static long long check_trace(const tn_block_plan *plan, int mutate)
{
  tn_block_plan trace;
  tn_trace_rec *r;
  long long n, bad;
  char why[256];

  r = trace_of(plan, &n);
  if (r == NULL || n == 0) {
    free(r);
    return -2;
  }
  if (mutate == 1)
    r[n / 2].addr += 4; /* one lane reads the next word */
  else if (mutate == 4)
    r[n / 2].addr += r[n / 2].width; /* the next element: for 1- and
                                        2-byte ones, in the same word */
  else if (mutate == 2) {
    r[n / 2] = r[n - 1]; /* a lane missing */
    n--;
  }
  else if (mutate == 3) {
    r[n] = r[n / 2]; /* a lane recorded twice */
    n++;
  }
  if (tn_drift_trace_group(r, n, &trace, why, sizeof(why)) != 0) {
    free(r);
    return -1;
  }
  bad = tn_drift_compare(plan, &trace, "synthetic", mutate ? 0 : 4);
  tn_block_plan_free(&trace);
  free(r);
  return bad;
}

static int run_config(const char *arg, int stride, const tn_arch *arch)
{
  static tn_job job;
  char path[4096], *colon;
  tn_template tpl;
  tn_space space;
  tn_err err = {{0}};
  int i, pruned = 0, blocks = 0, built = 0, failed = 0, todo = 0;

  snprintf(path, sizeof(path), "%s", arg);
  colon = strrchr(path, ':');
  if (colon != NULL && strcmp(colon, ":pruned") == 0) {
    *colon = '\0';
    pruned = 1;
  }
  if (tn_config_load(path, &job, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  /* what a run compiles for: sm_90a where the family needs it */
  arch = tn_precheck_target(&job, arch);
  if (tn_template_load(job.template_path, &tpl, &err) != 0 ||
      tn_space_build(&job, arch, &space, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  if (pruned)
    tn_space_prune(&job, &space);
  for (i = 0; i < space.n; i++) {
    tn_candidate *c = &space.c[i];
    int ragged;
    if (c->status != TN_ST_PENDING)
      continue;
    for (ragged = 0; ragged < 2; ragged++) {
      tn_problem prob;
      tn_block_plan plan;
      char why[256];
      long long d0, d1, d2, d3, d4;
      int ob = tn_drift_one_block(job.family, &c->params,
                                  &job.problems[0], ragged, &prob, why,
                                  sizeof(why));
      if (ob == 1) {
        printf("%s candidate %d: skipped: %s\n", path, c->id, why);
        break;
      }
      if (ob != 0 || tn_drift_block_plan(job.family, &c->params, &prob,
                                         &plan, why, sizeof(why)) != 0) {
        fprintf(stderr, "%s candidate %d: %s\n", path, c->id, why);
        tn_test_failures++;
        continue;
      }
      blocks++;
      if (plan.n == 0 && c->launch.arch_features) {
        /* no warp instruction touches shared memory (the wgmma GEMM's
         * direct epilogue: TMA and wgmma are not warp accesses); the GPU
         * test checks that the trace is empty too */
        tn_block_plan_free(&plan);
        continue;
      }
      d0 = check_trace(&plan, 0);
      d1 = check_trace(&plan, 1);
      d2 = check_trace(&plan, 2);
      d3 = check_trace(&plan, 3);
      d4 = check_trace(&plan, 4);
      if (plan.n == 0 || d0 != 0 || d1 != 2 || d2 != 2 || d3 != -1 ||
          d4 != 2) {
        fprintf(stderr,
                "%s candidate %d %s: %d accesses; differences: as planned "
                "%lld (want 0), an address moved %lld (2), a lane dropped "
                "%lld (2), a lane twice %lld (-1: refused), a lane on the "
                "next element %lld (2)\n",
                path, c->id, ragged ? "ragged" : "full", plan.n, d0, d1, d2,
                d3, d4);
        tn_test_failures++;
      }
      tn_block_plan_free(&plan);
    }
  }
  /* The instrumented builds compile. */
  if (stride == 0) {
    printf("%s: %d one-block plans checked against synthetic traces\n", path,
           blocks);
    CHECK(blocks > 0);
    tn_space_free(&space);
    tn_template_free(&tpl);
    return 0;
  }
  for (i = 0; i < space.n; i++)
    if (space.c[i].status == TN_ST_PENDING && todo++ % stride != 0)
      space.c[i].status = TN_ST_PRUNED;
#pragma omp parallel for schedule(dynamic) reduction(+ : built, failed)
  for (i = 0; i < space.n; i++) {
    tn_candidate *c = &space.c[i];
    tn_err e = {{0}};
    char *src = NULL, *log = NULL, name[64];
    void *cubin = NULL;
    size_t len = 0;
    if (c->status != TN_ST_PENDING)
      continue;
    snprintf(name, sizeof(name), "%s_%d_trace.cu", job.family->name, c->id);
    if (tn_drift_render_traced(job.family, &c->params, &job.problems[0],
                               &tpl, &src, &e) != 0 ||
        build(src, name, &tpl, arch, &cubin, &len, &log, &e) != 0 ||
        len == 0 || !has_symbols(cubin, len)) {
#pragma omp critical
      fprintf(stderr, "%s candidate %d: the instrumented build fails (or "
                      "lacks the tn_trace_* globals): %s\n%s\n",
              path, c->id, e.msg, log ? log : "");
      failed++;
    } else {
      built++;
    }
    free(cubin);
    free(src);
    free(log);
  }
  printf("%s: %d one-block plans checked against synthetic traces; %d "
         "instrumented builds for %s, %d failed\n",
         path, blocks, built, arch->name, failed);
  CHECK(blocks > 0);
  CHECK(built > 0);
  CHECK_EQ_INT(failed, 0);
  tn_space_free(&space);
  tn_template_free(&tpl);
  return 0;
}

int main(int argc, char **argv)
{
  const tn_arch *arch = tn_arch_find("sm_90");
  int i, stride;

  CHECK_EQ_INT(TN_TRACE_OP_LD, TN_OP_LD);
  CHECK_EQ_INT(TN_TRACE_OP_ST, TN_OP_ST);
  CHECK_EQ_INT(TN_TRACE_OP_LDMATRIX, TN_OP_LDMATRIX);
  CHECK_EQ_INT(TN_TRACE_OP_STMATRIX, TN_OP_STMATRIX);
  CHECK_EQ_INT(TN_TRACE_OP_CP_ASYNC_CG, TN_OP_CP_ASYNC_CG);
  if (argc < 3 || arch == NULL) {
    fprintf(stderr, "usage: test_drift_trace STRIDE CONFIG[:pruned]...\n");
    return 2;
  }
  stride = atoi(argv[1]);
  if (stride < 0) {
    fprintf(stderr, "test_drift_trace: STRIDE %s: 0 or more\n", argv[1]);
    return 2;
  }
  for (i = 2; i < argc; i++)
    run_config(argv[i], i == 2 && stride > 0 ? 1 : stride, arch);
  TEST_DONE();
}

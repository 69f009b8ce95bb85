/* emulate_util.h -- what the emulation tests share (test_transpose_emulate.c,
 * test_gemm_emulate.c): a point of a family rendered and compiled by the
 * host's C++ compiler twice, under AddressSanitizer and UndefinedBehavior-
 * Sanitizer with the template's trace hooks' host form (TN_TRACE_HOST),
 * and with the thread sanitizer's instrumentation taken by the host
 * program (TN_TRACE_TOUCH: the hooks against the accesses); one run of
 * both, its trace compared with the family's plan of the whole grid.
 * tests/support/host_trace.h is the host side. */
#ifndef TN_EMULATE_UTIL_H
#define TN_EMULATE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "drift.h"
#include "family/family.h"
#include "pipeline/render.h"

/* the host program writes six 32-bit words a record */
_Static_assert(sizeof(tn_trace_rec) == 24, "host_trace.h's records");

/* system()'s status as the program's exit code (-1: a signal or no
 * shell). */
static int tn_emulate_status(int rc)
{
  return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Where the programs are made: the compiler, tests/support, a folder. */
typedef struct {
  const char *cxx, *support, *work;
} tn_emulate_env;

/* Renders p on prob with f's template t and compiles it, prelude before
 * the template (after cuda_host.h) and the host program main_header
 * after it, into WORK/NAME (sanitized) and WORK/NAME-touch.  0, or -1
 * (said why). */
static int tn_emulate_build(const tn_emulate_env *env, const tn_family *f,
                            const tn_params *p, const tn_problem *prob,
                            const tn_template *t, const char *prelude,
                            const char *main_header, const char *name)
{
  char src[4096], exe[4096], cmd[32768], dir[4096];
  char *text = NULL;
  tn_err err;
  FILE *out;
  int rc;

  if (tn_render(f, p, prob, t, &text, &err) != 0) {
    fprintf(stderr, "%s: render: %s\n", name, err.msg);
    return -1;
  }
  snprintf(src, sizeof(src), "%s/%s.cpp", env->work, name);
  snprintf(exe, sizeof(exe), "%s/%s", env->work, name);
  out = fopen(src, "w");
  if (out == NULL) {
    fprintf(stderr, "%s: cannot write %s\n", name, src);
    free(text);
    return -1;
  }
  fprintf(out, "#include \"cuda_host.h\"\n%s\n%s\n#include \"%s\"\n",
          prelude, text, main_header);
  free(text);
  if (fclose(out) != 0) {
    fprintf(stderr, "%s: cannot write %s\n", name, src);
    return -1;
  }
  /* the template's folder: its headers */
  snprintf(dir, sizeof(dir), "%s", t->path);
  if (strrchr(dir, '/'))
    *strrchr(dir, '/') = '\0';
  snprintf(cmd, sizeof(cmd),
           "'%s' -std=c++17 -O1 -fno-strict-aliasing -pthread -w "
           "-DTN_TRACE_HOST=1 "
           "-fsanitize=address,undefined -fno-sanitize-recover=all "
           "-I'%s' -I'%s' -o '%s' '%s' 2>&1",
           env->cxx, env->support, dir, exe, src);
  rc = system(cmd);
  if (rc == 0) {
    /* the hooks against the accesses: instrumented as for the thread
     * sanitizer, the host program taking its calls (no run-time library) */
    snprintf(cmd, sizeof(cmd),
             "'%s' -std=c++17 -O1 -fno-strict-aliasing -pthread -w "
             "-DTN_TRACE_HOST=1 -DTN_TRACE_TOUCH=1 -fsanitize=thread "
             "-I'%s' -I'%s' -c -o '%s-touch.o' '%s' 2>&1 && "
             "'%s' -pthread -o '%s-touch' '%s-touch.o' 2>&1",
             env->cxx, env->support, dir, exe, src, env->cxx, exe, exe);
    rc = system(cmd);
  }
  if (rc != 0) {
    fprintf(stderr, "%s: %s: exit %d\n", name, cmd, tn_emulate_status(rc));
    return -1;
  }
  return 0;
}

/* Reads the trace at path and compares it with f's plan of p on prob; the
 * accesses in one and not the other (0 equal), or -1 (said why). */
static long long tn_emulate_compare(const char *path, const tn_family *f,
                                    const tn_params *p,
                                    const tn_problem *prob, const char *label)
{
  tn_block_plan plan, trace;
  tn_trace_rec *recs = NULL;
  char why[TN_REASON_LEN] = "";
  long long n = 0, bad;
  size_t cap = 0;
  FILE *in = fopen(path, "rb");

  if (in == NULL) {
    fprintf(stderr, "%s: no trace %s\n", label, path);
    return -1;
  }
  for (;;) {
    if ((size_t)n == cap) {
      size_t c = cap ? 2 * cap : 4096;
      tn_trace_rec *r = realloc(recs, c * sizeof(*r));
      if (r == NULL) {
        fprintf(stderr, "%s: out of memory reading %s\n", label, path);
        fclose(in);
        free(recs);
        return -1;
      }
      recs = r;
      cap = c;
    }
    if (fread(&recs[n], sizeof(*recs), 1, in) != 1)
      break;
    n++;
  }
  fclose(in);
  if (tn_drift_trace_group(recs, n, &trace, why, sizeof(why)) != 0 ||
      tn_drift_grid_plan(f, p, prob, &plan, why, sizeof(why)) != 0) {
    fprintf(stderr, "%s: %s\n", label, why);
    free(recs);
    return -1;
  }
  free(recs);
  bad = tn_drift_compare(&plan, &trace, label, 4);
  if (plan.n == 0)
    bad = -1; /* a point whose accesses are not hooked compares nothing */
  tn_block_plan_free(&plan);
  tn_block_plan_free(&trace);
  return bad;
}

/* Runs WORK/NAME with args (its output checked by the program) and its
 * trace compared with f's plan of p on prob, then WORK/NAME-touch with
 * args; 0, or 1 (said why under label). */
static int tn_emulate_run(const tn_emulate_env *env, const char *name,
                          const char *args, const tn_family *f,
                          const tn_params *p, const tn_problem *prob,
                          const char *label)
{
  char cmd[16384], trace[4200];
  long long bad;
  int rc;

  snprintf(trace, sizeof(trace), "%s/%s.trace", env->work, name);
  snprintf(cmd, sizeof(cmd), "'%s/%s' %s '%s'", env->work, name, args,
           trace);
  rc = system(cmd);
  if (rc != 0) {
    fprintf(stderr, "%s: exit %d\n", label, tn_emulate_status(rc));
    remove(trace);
    return 1;
  }
  bad = tn_emulate_compare(trace, f, p, prob, label);
  remove(trace);
  if (bad > 0)
    fprintf(stderr, "%s: the trace and the plan differ in %lld accesses\n",
            label, bad);
  snprintf(cmd, sizeof(cmd), "'%s/%s-touch' %s", env->work, name, args);
  rc = system(cmd);
  if (rc != 0)
    fprintf(stderr, "%s: the hooks are not the accesses: exit %d\n", label,
            tn_emulate_status(rc));
  return bad != 0 || rc != 0;
}

#endif

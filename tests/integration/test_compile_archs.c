/* test_compile_archs.c -- every valid candidate of a shipped config (or,
 * with "pruned", every candidate a tuning run compiles: the model's pruning
 * applied) renders and compiles with NVRTC for an architecture, with its
 * resources read from the ptxas report; and the family's reference
 * kernels (the verification's) compile for it too.
 * Usage: test_compile_archs CONFIG sm_XX[a] [pruned] [--cache DIR]
 * (sm_90a: sm_90 with its architecture-specific features; --cache: the
 * tuner's compile cache, which the tests that compile shipped spaces
 * share, so that a source is compiled once however many tests take it;
 * a hit keeps ptxas's report, read as a fresh compile's is) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/compile.h"
#include "pipeline/compile_nvrtc.h"
#include "pipeline/config.h"
#include "pipeline/render.h"
#include "pipeline/space.h"
#include "test_util.h"

int main(int argc, char **argv)
{
  static tn_job job;
  tn_template tpl;
  tn_space space;
  tn_compile_opts opts;
  tn_compile_stats stats;
  tn_err err = {{0}};
  const tn_arch *arch;
  static tn_arch feat; /* sm_XXa: sm_XX's limits, its features' name */
  static char base[16];
  size_t alen = argc >= 3 ? strlen(argv[2]) : 0;
  const char *cache = NULL;
  int i, a, pruned = 0, compiled = 0, usage = argc < 3;

  /* sm_90a, sm_100a: the architecture-specific features (wgmma,
   * setmaxnreg; the copy engine needs none), which NVRTC takes as
   * -arch=sm_90a; the tuner's table knows the plain architecture */
  arch = argc >= 3 ? tn_arch_find(argv[2]) : NULL;
  if (arch == NULL && alen > 1 && alen < sizeof(base) &&
      argv[2][alen - 1] == 'a') {
    memcpy(base, argv[2], alen - 1);
    arch = tn_arch_find(base);
    if (arch != NULL) {
      feat = *arch;
      feat.name = argv[2];
      arch = &feat;
    }
  }
  for (a = 3; a < argc; a++) {
    if (strcmp(argv[a], "pruned") == 0)
      pruned = 1;
    else if (strcmp(argv[a], "--cache") == 0 && a + 1 < argc)
      cache = argv[++a];
    else
      usage = 1;
  }
  if (usage || arch == NULL) {
    fprintf(stderr, "usage: test_compile_archs CONFIG sm_XX[a] [pruned] "
                    "[--cache DIR]\n");
    return 2;
  }
  if (tn_config_load(argv[1], &job, &err) != 0 ||
      tn_template_load(job.template_path, &tpl, &err) != 0 ||
      tn_space_build(&job, arch, &space, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  if (pruned)
    tn_space_prune(&job, &space);
  memset(&opts, 0, sizeof(opts)); /* no cache unless --cache */
  opts.quiet = 1;
  if (cache != NULL)
    snprintf(opts.cache_dir, sizeof(opts.cache_dir), "%s", cache);
  CHECK(tn_compile_space(&job, &tpl, arch, &space, &opts, &stats, &err) == 0);
  for (i = 0; i < space.n; i++) {
    tn_candidate *c = &space.c[i];
    if (c->status == TN_ST_PRUNED)
      continue;
    if (c->status != TN_ST_COMPILED) {
      fprintf(stderr, "candidate %d: %s\n%s\n", c->id,
              tn_status_name(c->status), c->log ? c->log : "");
      tn_test_failures++;
      continue;
    }
    compiled++;
    CHECK(c->cubin_len > 0);
    CHECK(c->regs > 0);
    /* spills are a property of the candidate, recorded, not an error */
    if (c->smem_bytes != tn_launch_smem(&c->launch) &&
        c->launch.smem_dynamic == 0) {
      fprintf(stderr, "candidate %d: ptxas reports %d bytes of shared "
                      "memory, the family %d\n",
              c->id, c->smem_bytes, tn_launch_smem(&c->launch));
      tn_test_failures++;
    }
  }
  CHECK(compiled > 0);
  CHECK_EQ_INT(stats.failed, 0);
  if (job.family->reference_source) {
    void *cubin = NULL;
    size_t len = 0;
    char *log = NULL;
    int rc = tn_nvrtc_helper(job.family->reference_source, "reference.cu",
                             arch, &cubin, &len, &log, &err);
    if (rc != 0)
      fprintf(stderr, "the reference kernels: %s\n%s\n", err.msg,
              log ? log : "");
    CHECK(rc == 0 && len > 0);
    free(cubin);
    free(log);
  }
  printf("%s %s: %d candidates compiled (%d by NVRTC here, %d from the "
         "cache) in %.1f s on %d threads\n",
         argv[1], arch->name, compiled, stats.compiled, stats.cached,
         stats.wall_s, stats.threads);
  tn_space_free(&space);
  tn_template_free(&tpl);
  TEST_DONE();
}

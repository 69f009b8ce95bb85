/* test_wgmma_archs.c -- where NVRTC takes wgmma: a kernel of wgmma and
 * setmaxnreg in inline PTX (no guard of ours) compiles for sm_90a and is
 * refused for sm_90, sm_100a and sm_120a (ptxas: not supported on that
 * target), as PTX ISA 8.x says: wgmma is sm_90a's alone.  And the first
 * point of configs/gemm-wg-bf16.cfg compiles for sm_90a and not for
 * sm_100a (its template's guard).  If a later NVRTC takes wgmma on
 * Blackwell, this test fails and says so: then the family may run there.
 * Usage: test_wgmma_archs CONFIG */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/compile_nvrtc.h"
#include "pipeline/config.h"
#include "pipeline/precheck.h"
#include "pipeline/render.h"
#include "pipeline/space.h"
#include "test_util.h"

static const char probe[] =
    "extern \"C\" __global__ void probe(float *o, unsigned long long a,\n"
    "                                   unsigned long long b)\n"
    "{\n"
    "  float d0 = 0, d1 = 0, d2 = 0, d3 = 0, d4 = 0, d5 = 0, d6 = 0, d7 = 0;\n"
    "  asm volatile(\"setmaxnreg.inc.sync.aligned.u32 232;\\n\");\n"
    "  asm volatile(\"wgmma.fence.sync.aligned;\\n\");\n"
    "  asm volatile(\"wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 \"\n"
    "               \"{%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, 1, 0, 0;\\n\"\n"
    "               : \"+f\"(d0), \"+f\"(d1), \"+f\"(d2), \"+f\"(d3),\n"
    "                 \"+f\"(d4), \"+f\"(d5), \"+f\"(d6), \"+f\"(d7)\n"
    "               : \"l\"(a), \"l\"(b));\n"
    "  asm volatile(\"wgmma.commit_group.sync.aligned;\\n\");\n"
    "  asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\");\n"
    "  o[threadIdx.x] = d0 + d1 + d2 + d3 + d4 + d5 + d6 + d7;\n"
    "}\n";

/* Compiles src for arch name; 0 compiled, 1 refused, -1 NVRTC failed. */
static int try_arch(const char *src, const char *name, const char *arch,
                    char **log)
{
  const tn_arch *a = tn_arch_find(arch);
  tn_err err = {{0}};
  void *cubin = NULL;
  size_t len = 0;
  int rc;
  if (a == NULL) {
    fprintf(stderr, "%s: not in the architecture table\n", arch);
    return -1;
  }
  rc = tn_nvrtc_helper(src, name, a, &cubin, &len, log, &err);
  free(cubin);
  if (rc < 0)
    fprintf(stderr, "%s: %s\n", arch, err.msg);
  return rc;
}

int main(int argc, char **argv)
{
  static const char *const refused[] = {"sm_90", "sm_100a", "sm_120a"};
  static tn_job job;
  tn_template tpl;
  tn_space space;
  tn_err err = {{0}};
  const tn_arch *target;
  char *log = NULL, *src = NULL;
  void *cubin = NULL;
  size_t len = 0;
  int i, rc;

  if (argc != 2) {
    fprintf(stderr, "usage: test_wgmma_archs CONFIG\n");
    return 2;
  }
  CHECK_EQ_INT(try_arch(probe, "probe.cu", "sm_90a", &log), 0);
  free(log);
  for (i = 0; i < 3; i++) {
    log = NULL;
    rc = try_arch(probe, "probe.cu", refused[i], &log);
    if (rc != 1)
      fprintf(stderr, "%s: NVRTC %s wgmma/setmaxnreg\n", refused[i],
              rc == 0 ? "now takes" : "failed on");
    CHECK_EQ_INT(rc, 1);
    CHECK(log != NULL && strstr(log, "not supported on .target") != NULL);
    free(log);
  }

  if (tn_config_load(argv[1], &job, &err) != 0 ||
      tn_template_load(job.template_path, &tpl, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  CHECK(job.family->arch_features);
  /* a run for sm_90 compiles for sm_90a; sm_80 has no such target */
  target = tn_precheck_target(&job, tn_arch_find("sm_90"));
  CHECK(target != NULL && strcmp(target->name, "sm_90a") == 0);
  CHECK(tn_precheck_target(&job, tn_arch_find("sm_80")) ==
        tn_arch_find("sm_80"));
  if (tn_space_build(&job, target, &space, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  for (i = 0; i < space.n && space.c[i].status != TN_ST_PENDING; i++)
    ;
  CHECK(i < space.n);
  if (i < space.n) {
    CHECK(space.c[i].launch.arch_features);
    CHECK(tn_render(job.family, &space.c[i].params, &job.problems[0], &tpl,
                    &src, &err) == 0);
    log = NULL;
    CHECK(tn_compile_source(src, "wg.cu", &tpl, target, &cubin, &len, &log,
                            &err) == 0);
    CHECK(len > 0);
    free(cubin);
    free(log);
    log = NULL;
    cubin = NULL;
    CHECK(tn_compile_source(src, "wg.cu", &tpl, tn_arch_find("sm_100a"),
                            &cubin, &len, &log, &err) == 1);
    free(cubin);
    CHECK(log != NULL && strstr(log, "need the sm_90a target") != NULL);
    free(log);
    free(src);
  }
  tn_space_free(&space);
  tn_template_free(&tpl);
  TEST_DONE();
}

/* test_dispatch_features.c -- a dispatch header with an architecture-
 * specific target's entry (tn_dispatch.features): the wgmma family's
 * sm_90a entry is what device code compiled for sm_90a sees
 * (__CUDA_ARCH_FEAT_SM90_ALL defined), and the mma.sync family's sm_90
 * entry what code for plain sm_90 sees, its default what host code and
 * older architectures see.  The header is compiled by the host compiler
 * (CC, or cc) with __CUDA_ARCH__ and the feature macro defined as nvcc and
 * NVRTC define them, and the program it makes prints which family and
 * which tile each compile chose.
 * Usage: test_dispatch_features TMPDIR */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "family/family.h"
#include "test_util.h"

/* a and b equal as strings, else a failure that shows both. */
#define CHECK_EQ_STR(a, b)                                                   \
  do {                                                                       \
    const char *a_ = (a), *b_ = (b);                                         \
    if (strcmp(a_, b_) != 0) {                                               \
      fprintf(stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, a_, \
              b_);                                                           \
      tn_test_failures++;                                                    \
    }                                                                        \
  } while (0)

/* p at f's defaults, then name = v for each pair. */
static void params_of(const tn_family *f, tn_params *p, const char *a,
                      long long va, const char *b, long long vb)
{
  int i;
  memset(p, 0, sizeof(*p));
  for (i = 0; i < f->n_params; i++)
    p->v[i].i = f->params[i].def;
  p->v[tn_param_index(f->params, f->n_params, a)].i = va;
  p->v[tn_param_index(f->params, f->n_params, b)].i = vb;
}

/* Compiles prog.c against the header with the macros of defs, runs it,
 * and returns its one line (static). */
static const char *build_run(const char *dir, const char *defs)
{
  static char line[256];
  char cmd[2048];
  const char *cc = getenv("CC");
  FILE *p;
  snprintf(cmd, sizeof(cmd),
           "%s -std=c11 -Wall -Werror %s -I%s -o %s/prog %s/prog.c && "
           "%s/prog",
           cc && cc[0] ? cc : "cc", defs, dir, dir, dir, dir);
  line[0] = '\0';
  p = popen(cmd, "r");
  if (p == NULL)
    return "popen failed";
  if (fgets(line, sizeof(line), p) == NULL)
    snprintf(line, sizeof(line), "no output");
  pclose(p);
  line[strcspn(line, "\n")] = '\0';
  return line;
}

int main(int argc, char **argv)
{
  const tn_family *tc = tn_family_find("gemm_tc");
  const tn_family *wg = tn_family_find("gemm_wg");
  static tn_params p_tc90, p_def, p_wg;
  tn_problem prob_tc, prob_wg;
  tn_header_entry e_tc90, e_def, e_wg;
  const tn_header_entry *archs[32] = {NULL}, *fx[1];
  tn_dispatch d;
  tn_dispatch_features feat;
  tn_err err = {{0}};
  char *text = NULL, path[4096];
  FILE *o;
  int i;

  if (argc != 2 || tc == NULL || wg == NULL) {
    fprintf(stderr, "usage: test_dispatch_features TMPDIR\n");
    return 2;
  }
  tn_problem_defaults(tc, &prob_tc);
  tn_problem_defaults(wg, &prob_wg);
  prob_tc.size.n_dims = prob_wg.size.n_dims = 3;
  for (i = 0; i < 3; i++)
    prob_tc.size.dims[i] = prob_wg.size.dims[i] = 4096;
  params_of(tc, &p_tc90, "bm", 128, "bn", 256);
  params_of(tc, &p_def, "bm", 64, "bn", 64);
  params_of(wg, &p_wg, "bm", 256, "bn", 128);

  memset(&e_tc90, 0, sizeof(e_tc90));
  e_tc90.family = tc;
  e_tc90.name = "gemm";
  e_tc90.arch = "sm_90";
  e_tc90.params = &p_tc90;
  e_tc90.problem = &prob_tc;
  e_def = e_tc90;
  e_def.arch = NULL;
  e_def.params = &p_def;
  e_wg = e_tc90;
  e_wg.family = wg;
  e_wg.arch = "sm_90a";
  e_wg.params = &p_wg;
  e_wg.problem = &prob_wg;

  memset(&d, 0, sizeof(d));
  d.family = tc;
  d.name = "gemm";
  d.problem = &prob_tc;
  d.n_results = 2;
  d.n_archs = tn_arch_count();
  for (i = 0; i < d.n_archs; i++)
    if (strcmp(tn_arch_at(i)->name, "sm_90") == 0)
      archs[i] = &e_tc90;
  d.archs = archs;
  d.deflt = &e_def;
  fx[0] = &e_wg;
  feat.family = wg;
  feat.problem = &prob_wg;
  feat.n_archs = 1;
  feat.archs = fx;
  d.features = &feat;

  CHECK(tn_emit_dispatch_text(&d, &text, &err) == 0);
  if (text == NULL) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  CHECK(strstr(text, "defined(__CUDA_ARCH_FEAT_SM90_ALL)") != NULL);
  snprintf(path, sizeof(path), "%s/gemm_dispatch.h", argv[1]);
  o = fopen(path, "w");
  CHECK(o != NULL);
  if (o == NULL)
    return 1;
  fputs(text, o);
  fclose(o);
  free(text);
  snprintf(path, sizeof(path), "%s/prog.c", argv[1]);
  o = fopen(path, "w");
  CHECK(o != NULL);
  if (o == NULL)
    return 1;
  fputs("#include <stdio.h>\n#include \"gemm_dispatch.h\"\n"
        "int main(void)\n{\n"
        "#if defined(GEMM_FAMILY_GEMM_WG) && !defined(GEMM_FAMILY_GEMM_TC)\n"
        "  printf(\"gemm_wg %d %d %d\\n\", GEMM_BM, GEMM_BN, "
        "GEMM_CONFIG_ARCH);\n"
        "#elif defined(GEMM_FAMILY_GEMM_TC) && !defined(GEMM_FAMILY_GEMM_WG)\n"
        "  printf(\"gemm_tc %d %d %d\\n\", GEMM_BM, GEMM_BN, "
        "GEMM_CONFIG_ARCH);\n"
        "#else\n  printf(\"no single family\\n\");\n#endif\n"
        "  return 0;\n}\n",
        o);
  fclose(o);

  CHECK_EQ_STR(build_run(argv[1], ""), "gemm_tc 64 64 0");
  CHECK_EQ_STR(build_run(argv[1], "-D__CUDA_ARCH__=800"), "gemm_tc 64 64 0");
  CHECK_EQ_STR(build_run(argv[1], "-D__CUDA_ARCH__=900"),
               "gemm_tc 128 256 90");
  CHECK_EQ_STR(build_run(argv[1], "-D__CUDA_ARCH__=1000"),
               "gemm_tc 128 256 90");
  CHECK_EQ_STR(build_run(argv[1], "-D__CUDA_ARCH__=900 "
                                  "-D__CUDA_ARCH_FEAT_SM90_ALL"),
               "gemm_wg 256 128 90");
  /* the feature macro alone is no device code */
  CHECK_EQ_STR(build_run(argv[1], "-D__CUDA_ARCH_FEAT_SM90_ALL"),
               "gemm_tc 64 64 0");
  TEST_DONE();
}

/* test_merge_macros.c -- the templates' macros in `tuner merge`'s
 * headers (the fleet of merge_fleet.h and one GEMM run of its own):
 *
 *   test_merge_macros SRC
 *
 * a GEMM entry's derived macros are those of tn_family_macros, and a .cu
 * that defines TUNER_TEMPLATE_MACROS and includes the dispatch header and
 * SRC/templates/transpose.cu and gemm.cu builds with nvcc for two
 * architectures (77 without nvcc). */
#define _POSIX_C_SOURCE 200809L
#include "merge_fleet.h"

#include "family/family.h"
#include "pipeline/render.h"

/* One measured GEMM run (the family's default parameters) on sm_80, so
 * the headers carry derived macros (TN_THREADS, TN_TRANS_A, ...). */
static void write_gemm_run(const tn_family *f, tn_params *p,
                           tn_problem *prob)
{
  json_t *params = json_object(), *doc, *cand;
  char text[512], why[256], path[4400];
  int k;

  memset(p, 0, sizeof(*p));
  memset(prob, 0, sizeof(*prob));
  for (k = 0; k < f->n_params; k++) {
    if (f->params[k].kind == TN_PARAM_SWIZZLE) {
      p->v[k].sw.kind = TN_SWZ_NONE;
      json_object_set_new(params, f->params[k].name, json_string("none"));
    } else {
      p->v[k].i = f->params[k].def;
      json_object_set_new(params, f->params[k].name,
                          json_integer(f->params[k].def));
    }
  }
  tn_problem_defaults(f, prob);
  prob->size.n_dims = 3;
  prob->size.dims[0] = prob->size.dims[1] = prob->size.dims[2] = 512;
  prob->opt[tn_problem_option_index(f, "trans_a")] = 1;
  CHECK(f->prepare(f, p, prob, why, sizeof(why)) == 0);
  tn_params_format(f->params, f->n_params, p, text, sizeof(text));
  cand = json_pack("{s:i, s:O, s:s, s:s, s:f, s:[{s:f, s:f, s:f}]}", "id", 0,
                   "params", params, "params_text", text, "status", "ok",
                   "median_ms", 0.5, "timings", "median_ms", 0.5, "q1_ms", 0.49,
                   "q3_ms", 0.51);
  doc = json_pack(
      "{s:s, s:{s:s}, s:{s:s, s:s}, s:s, s:s, "
      "s:{s:s, s:s, s:i}, s:[{s:[iii], s:b, s:b, s:f, s:f}], s:[o], "
      "s:{s:i, s:O, s:f}, s:[]}",
      "schema", "tuner-results/1", "tool", "nvrtc", "13.0", "run", "host",
      "g", "started", "2026-11-29T02:00:00Z", "family", "gemm", "name",
      "gemm", "device", "name", "NVIDIA A100-SXM4-40GB", "arch", "sm_80",
      "ordinal", 0, "problems", "size", 512, 512, 512, "trans_a", 1,
      "trans_b", 0, "alpha", 1.0, "beta", 0.0, "candidates", cand, "best",
      "id", 0, "params", params, "noise", 0.01, "baselines");
  json_decref(params);
  snprintf(path, sizeof(path), "%s/gemm/gemm-sm_80.json", tmp);
  write_doc(doc, path);
}

static void part_template_macros(const char *src)
{
  const tn_family *f = tn_family_find("gemm");
  char out[4200], in[4200], cmd[9000];
  const char *args[] = {"-o", out, in, NULL};
  tn_params p;
  tn_problem prob;
  tn_defines all;
  int k, n_param = 0;

  CHECK(f != NULL);
  if (f == NULL)
    return;
  /* GEMM: each derived macro of the per-arch header and each TN_ macro
   * of the dispatch header is what the renderer defines */
  write_gemm_run(f, &p, &prob);
  snprintf(out, sizeof(out), "%s/gout", tmp);
  snprintf(in, sizeof(in), "%s/gemm", tmp);
  CHECK_EQ_INT(merge(args), 0);
  tn_family_macros(f, &p, &prob, &all);
  for (k = 0; k < f->n_params; k++)
    n_param += f->params[k].kind == TN_PARAM_SWIZZLE ? 3 : 1;
  CHECK(all.n > n_param); /* GEMM has derived macros */
  for (k = 0; k < all.n; k++) {
    char line[160];
    snprintf(line, sizeof(line), "#define %s %s\n", all.name[k],
             all.value[k]);
    CHECK(contains("gout/gemm_dispatch.h", line));
    if (k < n_param)
      continue;
    snprintf(line, sizeof(line), "#define GEMM_SM_80_%s %s\n",
             all.name[k] + 3, all.value[k]);
    CHECK(contains("gout/sm_80/gemm.h", line));
    CHECK(contains("gout/gemm_dispatch.h", line));
    snprintf(line, sizeof(line), "#define GEMM_%s %s\n", all.name[k] + 3,
             all.value[k]);
    CHECK(contains("gout/sm_80/gemm.h", line));
    snprintf(line, sizeof(line), "#define GEMM_%s GEMM_SM_80_%s\n",
             all.name[k] + 3, all.name[k] + 3);
    CHECK(contains("gout/gemm_dispatch.h", line));
  }
  CHECK(contains("gout/sm_80/gemm.h", "for the tuned problem 512x512x512"));

  if (system("command -v nvcc >/dev/null 2>&1 || "
             "test -x /usr/local/cuda/bin/nvcc") != 0) {
    printf("no nvcc: skipped\n");
    exit(77);
  }
  /* the shipped templates, built for two architectures, each with its own
   * entry (host code: the default's, for nvcc's host pass) */
  CHECK_EQ_INT(merge_fleet(), 0);
  CHECK(build("tpl.cu",
              "#define TUNER_TEMPLATE_MACROS\n"
              "#include \"transpose_dispatch.h\"\n"
              "#include \"transpose.cu\"\n"
              "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 800\n"
              "static_assert(TN_TILE == 32 && TN_ROWS_PER_THREAD == 2, "
              "\"sm_80\");\n"
              "#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900\n"
              "static_assert(TN_TILE == 64 && TN_ROWS_PER_THREAD == 8, "
              "\"sm_90\");\n"
              "#elif !defined(__CUDA_ARCH__)\n"
              "static_assert(TN_TILE == TRANSPOSE_DEFAULT_TILE, \"host\");\n"
              "#endif\n"
              "static_assert(TN_TILE == TRANSPOSE_TILE, \"alias\");\n",
              "true") == 0);
  CHECK(build("gtpl.cu",
              "#define TUNER_TEMPLATE_MACROS\n"
              "#include \"gemm_dispatch.h\"\n"
              "#include \"gemm.cu\"\n"
              "static_assert(TN_THREADS == GEMM_THREADS, \"derived\");\n",
              "true") == 0);
  snprintf(cmd, sizeof(cmd),
           "PATH=$PATH:/usr/local/cuda/bin nvcc -std=c++17 -I%s/out "
           "-I%s/templates -gencode arch=compute_80,code=sm_80 "
           "-gencode arch=compute_90,code=sm_90 -c -o %s/tpl.o %s/tpl.cu",
           tmp, src, tmp, tmp);
  CHECK(system(cmd) == 0);
  snprintf(cmd, sizeof(cmd),
           "PATH=$PATH:/usr/local/cuda/bin nvcc -std=c++17 -I%s/gout "
           "-I%s/templates -gencode arch=compute_80,code=sm_80 "
           "-gencode arch=compute_90,code=sm_90 -c -o %s/gtpl.o %s/gtpl.cu",
           tmp, src, tmp, tmp);
  CHECK(system(cmd) == 0);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_merge_macros SRC\n");
    return 2;
  }
  merge_fleet_setup();
  part_template_macros(argv[1]);
  tmp_remove();
  TEST_DONE();
}

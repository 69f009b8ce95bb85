/* test_merge.c -- `tuner merge` on a synthetic fleet: results files of
 * several GPUs, nights and predictions written here with jansson, merged
 * with tn_merge_main (in a child process, as the command runs), and the
 * headers checked by compiling them.
 *
 *   test_merge PART
 *
 * PART: rules (which entry each architecture and device gets), fallback
 * (the run-time lookup walks exact device -> architecture -> nearest
 * older -> default), dispatch_c (the headers as C), dispatch_nvcc (the
 * dispatch header in kernels for several architectures; skipped, 77,
 * without nvcc), history (nights kept and merged again), regression
 * (slower than the previous night beyond noise), bad_input (exit 2,
 * FILE: what, nothing written), template_macros (test_merge
 * template_macros SRC: a GEMM entry's derived macros are those of
 * tn_render_macros, and a .cu that defines TUNER_TEMPLATE_MACROS and
 * includes the dispatch header and SRC/templates/transpose.cu and gemm.cu
 * builds with nvcc for two architectures; 77 without nvcc).
 *
 * The fleet (configurations C0..C5 of the transpose family):
 *   night 1 (2026-11-28): T4 (sm_75) best C4; A100-40GB (sm_80) best C4;
 *                         H100 (sm_90) best C3
 *   night 2 (2026-11-29): A100-40GB on hosts a and b (best C1) and
 *                         A100-80GB (best C3, which the 40GB could not
 *                         run); H100 best C1; prediction sm_75 C5
 *   night 3 (2026-11-30): predictions sm_80 C5, sm_89 C2
 * sm_80's night-2 runs disagree.  Relative to each run's fastest, C0 is
 * 0.9 on both 40GB runs and 1.0 (of the configurations all three ran) on
 * the 80GB; C1 is 1.0 and 0.85.  With each device model weighing the
 * same, C0 wins (0.949 against 0.922); counting runs, C1 would
 * (0.947 against 0.932).  So sm_80 gets C0, the best of neither device. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "family/family.h"
#include "fleet/merge.h"
#include "pipeline/render.h"
#include "test_util.h"
#include "base/util.h"

/* tile, rows_per_thread, pad, swizzle, group (vec is always 1) */
typedef struct {
  int tile, rows;
  int pad;
  const char *swizzle;
  int group;
} cfg;

static const cfg C[] = {
    {32, 2, 1, "none", 1}, /* C0 */
    {64, 8, 1, "none", 1}, /* C1 */
    {32, 8, 0, "xor", 1},  /* C2 */
    {64, 4, 0, "xor", 8},  /* C3 */
    {16, 4, 1, "none", 1}, /* C4 */
    {64, 16, 1, "none", 8} /* C5 */
};
#define N_CFG 6

typedef struct {
  int cfg;
  double ms;      /* 0: not ok (failed) */
  double spread;  /* relative interquartile range */
} cand_spec;

typedef struct {
  const char *arch;
  const char *device; /* NULL: a prediction */
  const char *host;
  int ordinal;
  const char *started;
  const char *driver;
  int best;           /* configuration index */
  double noise;
  double baseline_ms;
  int n;
  cand_spec c[N_CFG];
} run_spec;

static char tmp[256]; /* short: every path built from it fits */

static void cfg_text(int i, char *out, size_t n)
{
  snprintf(out, n,
           "tile=%d rows_per_thread=%d vec=1 pad=%d swizzle=%s group=%d",
           C[i].tile, C[i].rows, C[i].pad, C[i].swizzle, C[i].group);
}

static json_t *cfg_json(int i)
{
  return json_pack("{s:i, s:i, s:i, s:i, s:s, s:i}", "tile", C[i].tile,
                   "rows_per_thread", C[i].rows, "vec", 1, "pad", C[i].pad,
                   "swizzle", C[i].swizzle, "group", C[i].group);
}

static json_t *results_doc(const run_spec *s, const char *family,
                           const char *name, int rows)
{
  json_t *cands = json_array(), *best, *dev, *doc;
  int i;
  for (i = 0; i < s->n; i++) {
    const cand_spec *c = &s->c[i];
    char text[256];
    json_t *o;
    cfg_text(c->cfg, text, sizeof(text));
    o = json_pack("{s:i, s:o, s:s}", "id", c->cfg, "params",
                  cfg_json(c->cfg), "params_text", text);
    if (s->device == NULL) {
      json_object_set_new(o, "status", json_string("compiled"));
    } else if (c->ms > 0) {
      json_object_set_new(o, "status", json_string("ok"));
      json_object_set_new(o, "median_ms", json_real(c->ms));
      json_object_set_new(
          o, "timings",
          json_pack("[{s:f, s:f, s:f, s:f, s:f, s:i}]", "median_ms", c->ms,
                    "min_ms", c->ms * 0.99, "max_ms", c->ms * 1.05, "q1_ms",
                    c->ms * (1 - c->spread / 2), "q3_ms",
                    c->ms * (1 + c->spread / 2), "repetitions", 100));
    } else {
      json_object_set_new(o, "status", json_string("failed"));
      json_object_set_new(o, "reason", json_string("launch failed"));
    }
    json_array_append_new(cands, o);
  }
  if (s->device == NULL) {
    best = json_pack("{s:i, s:o, s:b, s:s}", "id", s->best, "params",
                     cfg_json(s->best), "predicted", 1, "rule", "model");
    dev = json_pack("{s:n, s:s, s:b}", "name", "arch", s->arch, "predicted",
                    1);
  } else {
    double ms = 0;
    for (i = 0; i < s->n; i++)
      if (s->c[i].cfg == s->best)
        ms = s->c[i].ms;
    best = json_pack("{s:i, s:o, s:f, s:f, s:s}", "id", s->best, "params",
                     cfg_json(s->best), "median_ms", ms, "noise", s->noise,
                     "rule", "fastest");
    if (s->baseline_ms > 0)
      json_object_set_new(best, "pct_of_baseline",
                          json_real(100 * s->baseline_ms / ms));
    dev = json_pack("{s:s, s:s, s:i, s:i, s:s, s:s}", "name", s->device,
                    "arch", s->arch, "ordinal", s->ordinal, "sm_count", 108,
                    "driver_cuda_version", s->driver ? s->driver : "13.0",
                    "pci_bus_id", "0000:01:00.0");
  }
  doc = json_pack(
      "{s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:b, s:b}, s:s, s:s, "
      "s:o, s:[{s:[ii], s:f}], s:o, s:o}",
      "schema", "tuner-results/1", "tool", "name", "tuner", "nvrtc", "13.0",
      "run", "config", "configs/transpose.cfg", "host", s->host, "started",
      s->started, "finished", s->started, "dry_run", 0, "interrupted", 0,
      "family", family, "name", name, "device", dev, "problems", "size", rows,
      8192, "work", 5.4e8, "candidates", cands, "best", best);
  if (s->device == NULL) {
    json_object_set_new(doc, "predicted", json_true());
    json_object_set_new(doc, "baselines", json_array());
  } else {
    json_object_set_new(
        doc, "baselines",
        json_pack("[{s:s, s:s, s:f}]", "name", "memcpy", "status", "ok",
                  "median_ms", s->baseline_ms));
  }
  return doc;
}

static void write_doc(json_t *doc, const char *path)
{
  char dir[4096];
  tn_err err = {{0}};
  tn_dirname(dir, sizeof(dir), path);
  CHECK(tn_mkdirs(dir, &err) == 0);
  CHECK(json_dump_file(doc, path, JSON_INDENT(1)) == 0);
  json_decref(doc);
}

static void write_run(const run_spec *s, const char *sub, const char *file)
{
  char path[4400];
  snprintf(path, sizeof(path), "%s/%s/%s", tmp, sub, file);
  write_doc(results_doc(s, "transpose", "transpose", 8192), path);
}

/* The fleet described at the top, under tmp/night1, night2, night3. */
static void write_fleet(void)
{
  run_spec t4 = {"sm_75", "Tesla T4", "t4host", 0,
                 "2026-11-28T02:00:00Z", "13.0", 4, 0.01, 0.5, 3,
                 {{4, 0.60, 0.004}, {0, 0.70, 0.004}, {2, 0.80, 0.004}}};
  run_spec a40_n1 = {"sm_80", "NVIDIA A100-SXM4-40GB", "a", 0,
                     "2026-11-28T02:05:00Z", "13.0", 4, 0.01, 0.3, 3,
                     {{4, 0.30, 0.004}, {0, 1.00, 0.004}, {1, 0.95, 0.004}}};
  run_spec h100_n1 = {"sm_90", "NVIDIA H100 80GB HBM3", "h", 0,
                      "2026-11-28T02:10:00Z", "12.8", 3, 0.01, 0.2, 4,
                      {{3, 0.45, 0.004},
                       {1, 0.50, 0.004},
                       {0, 0.70, 0.004},
                       {2, 0.80, 0.004}}};
  run_spec a40a = {"sm_80", "NVIDIA A100-SXM4-40GB", "a", 0,
                   "2026-11-29T02:05:00Z", "13.0", 1, 0.01, 0.8, 4,
                   {{0, 1.00, 0.004},
                    {1, 0.90, 0.004},
                    {2, 1.30, 0.004},
                    {3, 0, 0}}};
  run_spec a40b = a40a;
  run_spec a80 = {"sm_80", "NVIDIA A100-SXM4-80GB", "c", 0,
                  "2026-11-29T02:20:00Z", "13.0", 3, 0.01, 0.6, 4,
                  {{0, 0.70, 0.004},
                   {1, 0.8235294, 0.004},
                   {2, 0.90, 0.004},
                   {3, 0.50, 0.004}}};
  run_spec h100_n2 = {"sm_90", "NVIDIA H100 80GB HBM3", "h", 0,
                      "2026-11-29T02:10:00Z", "13.0", 1, 0.01, 0.2, 4,
                      {{3, 0.60, 0.004},
                       {1, 0.48, 0.004},
                       {0, 0.703, 0.004},
                       {2, 0.83, 0.05}}};
  run_spec p75 = {"sm_75", NULL, "ci", 0, "2026-11-29T01:00:00Z", NULL,
                  5, 0, 0, 2, {{5, 0, 0}, {0, 0, 0}}};
  run_spec p80 = {"sm_80", NULL, "ci", 0, "2026-11-30T01:00:00Z", NULL,
                  5, 0, 0, 2, {{5, 0, 0}, {0, 0, 0}}};
  run_spec p89 = {"sm_89", NULL, "ci", 0, "2026-11-30T01:00:00Z", NULL,
                  2, 0, 0, 2, {{2, 0, 0}, {0, 0, 0}}};

  a40b.host = "b";
  a40b.started = "2026-11-29T03:40:00Z";
  write_run(&t4, "night1", "transpose-sm_75-20261128T020000Z.json");
  write_run(&a40_n1, "night1", "transpose-sm_80-20261128T020500Z.json");
  write_run(&h100_n1, "night1", "transpose-sm_90-20261128T021000Z.json");
  write_run(&a40a, "night2", "a/transpose-sm_80-20261129T020500Z.json");
  write_run(&a40b, "night2", "b/transpose-sm_80-20261129T034000Z.json");
  write_run(&a80, "night2", "c/transpose-sm_80-20261129T022000Z.json");
  write_run(&h100_n2, "night2", "h/transpose-sm_90-20261129T021000Z.json");
  write_run(&p75, "night2", "p/transpose-sm_75-20261129T010000Z.json");
  write_run(&p80, "night3", "transpose-sm_80-20261130T010000Z.json");
  write_run(&p89, "night3", "transpose-sm_89-20261130T010000Z.json");
}

/* Runs tn_merge_main(args) in a child (fresh getopt state, exit status as
 * the command's) with stdout and stderr into files.  Returns the status. */
static int merge(const char *const *args)
{
  char *argv[64], out[4200], errp[4200];
  int argc = 0, status;
  pid_t pid;

  argv[argc++] = (char *)"merge";
  while (*args && argc < 63)
    argv[argc++] = (char *)*args++;
  argv[argc] = NULL;
  snprintf(out, sizeof(out), "%s/merge.out", tmp);
  snprintf(errp, sizeof(errp), "%s/merge.err", tmp);
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    if (freopen(out, "w", stdout) == NULL || freopen(errp, "w", stderr) == NULL)
      _exit(99);
    status = tn_merge_main(argc, argv);
    fflush(NULL); /* _exit() does not */
    _exit(status);
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status);
}

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  if (f == NULL)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf)
    buf[n] = '\0';
  fclose(f);
  return buf;
}

static char *tmp_file(const char *name)
{
  char path[4400];
  snprintf(path, sizeof(path), "%s/%s", tmp, name);
  return slurp(path);
}

static int contains(const char *name, const char *text)
{
  char *s = tmp_file(name);
  int yes = s && strstr(s, text) != NULL;
  if (!yes)
    fprintf(stderr, "%s does not contain \"%s\"%s%s\n", name, text,
            s ? ":\n" : " (no file)", s ? s : "");
  free(s);
  return yes;
}

static int exists(const char *name)
{
  char path[4400];
  struct stat st;
  snprintf(path, sizeof(path), "%s/%s", tmp, name);
  return stat(path, &st) == 0;
}

/* Writes NAME with text under tmp, compiles it with cmd (%s: tmp), 0 if
 * it compiled (and ran, for a program). */
static int build(const char *name, const char *text, const char *cmd)
{
  char path[4400], line[9000];
  FILE *f;
  snprintf(path, sizeof(path), "%s/%s", tmp, name);
  f = fopen(path, "w");
  if (f == NULL)
    return -1;
  fputs(text, f);
  fclose(f);
  snprintf(line, sizeof(line), cmd, tmp, tmp, tmp, tmp);
  return system(line);
}

/* Merges night1..3 into tmp/out.  Returns the status. */
static int merge_fleet(void)
{
  char out[4200], n1[4200], n2[4200], n3[4200];
  const char *args[8];
  snprintf(out, sizeof(out), "%s/out", tmp);
  snprintf(n1, sizeof(n1), "%s/night1", tmp);
  snprintf(n2, sizeof(n2), "%s/night2", tmp);
  snprintf(n3, sizeof(n3), "%s/night3", tmp);
  args[0] = "-o";
  args[1] = out;
  args[2] = n1;
  args[3] = n2;
  args[4] = n3;
  args[5] = NULL;
  return merge(args);
}

static const char *const cc =
    "cc -std=c11 -Wall -Wextra -Werror -pedantic -I%s/out -o %s/prog "
    "%s/prog.c && %s/prog";

static void part_rules(void)
{
  CHECK_EQ_INT(merge_fleet(), 0);
  /* one header per architecture with an entry, and the dispatch */
  CHECK(exists("out/sm_75/transpose.h"));
  CHECK(exists("out/sm_80/transpose.h"));
  CHECK(exists("out/sm_89/transpose.h"));
  CHECK(exists("out/sm_90/transpose.h"));
  CHECK(!exists("out/sm_86/transpose.h"));
  CHECK(exists("out/transpose_dispatch.h"));
  CHECK(contains("out/sm_89/transpose.h", "TRANSPOSE_SM_89_PREDICTED 1"));
  CHECK(contains("out/sm_89/transpose.h", "PREDICTED, not measured"));
  CHECK(contains("out/sm_75/transpose.h", "TRANSPOSE_SM_75_MEASURED 1"));
  CHECK(contains("out/sm_80/transpose.h", "geometric mean over 3 runs on 2"));
  CHECK(contains("out/sm_80/transpose.h",
                 "NVIDIA A100-SXM4-40GB, NVIDIA A100-SXM4-80GB"));
  CHECK(contains("out/sm_80/transpose.h", "2026-11-29T03:40:00Z"));
  CHECK(contains("out/transpose_dispatch.h", "\"Tesla T4\""));
  /* the values, through the compiler */
  CHECK(build("prog.c",
              "#include \"sm_75/transpose.h\"\n"
              "#define TUNER_ONLY_ARCH_NAMES\n"
              "#include \"sm_80/transpose.h\"\n"
              "#include \"sm_89/transpose.h\"\n"
              "#include \"sm_90/transpose.h\"\n"
              "/* a measurement beats a newer prediction: C4, not C5 */\n"
              "_Static_assert(TRANSPOSE_SM_75_TILE == 16, \"sm_75\");\n"
              "_Static_assert(TRANSPOSE_TILE == 16, \"short names\");\n"
              "/* disagreeing devices: C0 by device-weighted geomean */\n"
              "_Static_assert(TRANSPOSE_SM_80_TILE == 32 && "
              "TRANSPOSE_SM_80_ROWS_PER_THREAD == 2, \"sm_80\");\n"
              "_Static_assert(TRANSPOSE_SM_80_PAD == 1, \"sm_80 pad\");\n"
              "/* only a prediction: C2, swizzle xor on a 32 tile */\n"
              "_Static_assert(TRANSPOSE_SM_89_ROWS_PER_THREAD == 8 && "
              "TRANSPOSE_SM_89_SWIZZLE_B == 5 && TRANSPOSE_SM_89_SWIZZLE_S == "
              "5, \"sm_89\");\n"
              "/* the latest night: C1, not night 1's C3 */\n"
              "_Static_assert(TRANSPOSE_SM_90_TILE == 64 && "
              "TRANSPOSE_SM_90_ROWS_PER_THREAD == 8, \"sm_90\");\n"
              "int main(void) { return 0; }\n",
              cc) == 0);
  CHECK(contains("merge.out", "sm_86   -> sm_80"));
  CHECK(contains("merge.out", "10 results (10 given, 0 from the history)"));
}

static void part_fallback(void)
{
  CHECK_EQ_INT(merge_fleet(), 0);
  CHECK(build("prog.c",
              "#include <stdio.h>\n"
              "#include <string.h>\n"
              "#include \"transpose_dispatch.h\"\n"
              "static int bad;\n"
              "static void expect(const char *dev, int ma, int mi, int tile,\n"
              "                   int rows, const char *source, int exact) {\n"
              "  const transpose_config *c = transpose_lookup(dev, ma, mi);\n"
              "  if (c == NULL || c->tile != tile || c->rows_per_thread != "
              "rows ||\n"
              "      strcmp(c->source, source) != 0 ||\n"
              "      (c->device_name != NULL) != exact) {\n"
              "    printf(\"lookup(%s, %d.%d): got %s (%s), want tile=%d "
              "rows=%d %s\\n\", dev ? dev : \"NULL\", ma, mi,\n"
              "           c ? c->params : \"NULL\", c ? c->source : \"\", "
              "tile, rows, source);\n"
              "    bad++;\n"
              "  }\n"
              "}\n"
              "int main(void) {\n"
              "  /* 1. the exact device: the 80GB's own best, C3 */\n"
              "  expect(\"NVIDIA A100-SXM4-80GB\", 8, 0, 64, 4, "
              "\"measured\", 1);\n"
              "  /* two 40GB hosts: their geomean, C1 */\n"
              "  expect(\"NVIDIA A100-SXM4-40GB\", 8, 0, 64, 8, "
              "\"measured\", 1);\n"
              "  expect(\"Tesla T4\", 7, 5, 16, 4, \"measured\", 1);\n"
              "  /* 2. same architecture, unknown device: sm_80's C0 */\n"
              "  expect(\"NVIDIA A100-PCIE-40GB\", 8, 0, 32, 2, "
              "\"measured\", 0);\n"
              "  expect(NULL, 8, 0, 32, 2, \"measured\", 0);\n"
              "  /* a known name with another compute capability is not it */\n"
              "  expect(\"NVIDIA A100-SXM4-80GB\", 8, 6, 32, 2, "
              "\"measured\", 0);\n"
              "  /* 3. nearest older: sm_86 and sm_87 -> sm_80 */\n"
              "  expect(\"NVIDIA RTX A6000\", 8, 6, 32, 2, \"measured\", 0);\n"
              "  expect(\"Jetson AGX Orin\", 8, 7, 32, 2, \"measured\", 0);\n"
              "  /* a predicted architecture */\n"
              "  expect(\"NVIDIA L4\", 8, 9, 32, 8, \"predicted\", 0);\n"
              "  expect(\"NVIDIA H100 80GB HBM3\", 9, 0, 64, 8, "
              "\"measured\", 1);\n"
              "  expect(\"NVIDIA H200\", 9, 0, 64, 8, \"measured\", 0);\n"
              "  expect(\"NVIDIA B200\", 10, 0, 64, 8, \"measured\", 0);\n"
              "  expect(NULL, 12, 0, 64, 8, \"measured\", 0);\n"
              "  /* 4. older than every entry: the family's defaults */\n"
              "  expect(\"Tesla V100-SXM2-16GB\", 7, 0, 32, 4, \"default\", "
              "0);\n"
              "  expect(NULL, 6, 1, 32, 4, \"default\", 0);\n"
              "  return bad;\n"
              "}\n",
              cc) == 0);
}

static void part_dispatch_c(void)
{
  CHECK_EQ_INT(merge_fleet(), 0);
  /* host code sees the portable default; everything together compiles
   * with -Werror (per-arch headers with TUNER_ONLY_ARCH_NAMES) */
  CHECK(build("prog.c",
              "#define TUNER_ONLY_ARCH_NAMES\n"
              "#include \"sm_75/transpose.h\"\n"
              "#include \"sm_80/transpose.h\"\n"
              "#include \"transpose_dispatch.h\"\n"
              "#include \"transpose_dispatch.h\"\n"
              "_Static_assert(TRANSPOSE_TILE == 32 && "
              "TRANSPOSE_ROWS_PER_THREAD == 4 && TRANSPOSE_PAD == 0, "
              "\"host: default\");\n"
              "_Static_assert(TRANSPOSE_CONFIG_ARCH == 0, \"host\");\n"
              "_Static_assert(TRANSPOSE_SM_89_PREDICTED == 1, \"89\");\n"
              "_Static_assert(TRANSPOSE_N_CONFIGS == 8, \"4 devices, 4 "
              "archs\");\n"
              "int main(void) {\n"
              "  const transpose_config *c = transpose_lookup(NULL, 9, 0);\n"
              "  return c->cc_major == 9 && c->date[0] == '2' ? 0 : 1;\n"
              "}\n",
              cc) == 0);
  /* a second translation unit including it links (static tables) */
  CHECK(build("second.c",
              "#include \"transpose_dispatch.h\"\n"
              "const void *second(void) { return transpose_lookup(\"x\", 8, "
              "0); }\n",
              "cc -std=c11 -Wall -Wextra -Werror -pedantic -I%s/out -c -o "
              "%s/second.o %s/second.c") == 0);
}

static void part_dispatch_nvcc(void)
{
  static const char *const archs[] = {"sm_75", "sm_80", "sm_86", "sm_89",
                                      "sm_90"};
  int i;
  if (system("command -v nvcc >/dev/null 2>&1 || "
             "test -x /usr/local/cuda/bin/nvcc") != 0) {
    printf("no nvcc: skipped\n");
    exit(77);
  }
  CHECK_EQ_INT(merge_fleet(), 0);
  CHECK(build("use.cu",
              "#include \"transpose_dispatch.h\"\n"
              "#if defined(__CUDA_ARCH__)\n"
              "#if __CUDA_ARCH__ == 750\n"
              "#define WANT 75, 16, 4, 0\n"
              "#elif __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 860\n"
              "#define WANT 80, 32, 2, 0\n"
              "#elif __CUDA_ARCH__ == 890\n"
              "#define WANT 89, 32, 8, 1\n"
              "#elif __CUDA_ARCH__ == 900\n"
              "#define WANT 90, 64, 8, 0\n"
              "#endif\n"
              "#else\n"
              "#define WANT 0, 32, 4, 0\n"
              "#endif\n"
              "struct want { int arch, tile, rows, predicted; };\n"
              "constexpr want w = {WANT};\n"
              "static_assert(TRANSPOSE_CONFIG_ARCH == w.arch, \"arch\");\n"
              "static_assert(TRANSPOSE_TILE == w.tile, \"tile\");\n"
              "static_assert(TRANSPOSE_ROWS_PER_THREAD == w.rows, \"rows\");\n"
              "static_assert(TRANSPOSE_CONFIG_PREDICTED == w.predicted, "
              "\"predicted\");\n"
              "extern \"C\" __global__ void k(float *x) {\n"
              "  __shared__ float s[TRANSPOSE_TILE * (TRANSPOSE_TILE + "
              "TRANSPOSE_PAD)];\n"
              "  static_assert(TRANSPOSE_TILE == w.tile, \"in a kernel\");\n"
              "  s[threadIdx.x] = x[threadIdx.x];\n"
              "  __syncthreads();\n"
              "  x[threadIdx.x] = s[(threadIdx.x ^ TRANSPOSE_SWIZZLE_B) % "
              "TRANSPOSE_TILE];\n"
              "}\n"
              "int host_side(const char *name, int ma, int mi) {\n"
              "  const transpose_config *c = transpose_lookup(name, ma, mi);\n"
              "  return c->tile * c->rows_per_thread;\n"
              "}\n",
              "true") == 0);
  for (i = 0; i < (int)(sizeof(archs) / sizeof(archs[0])); i++) {
    char cmd[9000];
    snprintf(cmd, sizeof(cmd),
             "PATH=$PATH:/usr/local/cuda/bin nvcc -arch=%s -std=c++17 "
             "-Werror all-warnings -I%s/out -c -o %s/use-%s.o %s/use.cu",
             archs[i], tmp, tmp, archs[i], tmp);
    if (system(cmd) != 0) {
      fprintf(stderr, "nvcc for %s failed\n", archs[i]);
      tn_test_failures++;
    }
  }
}

static int count_files(const char *dir)
{
  char cmd[4400], *s;
  int n;
  snprintf(cmd, sizeof(cmd), "find '%s/%s' -type f -name '*.json' | wc -l > "
           "'%s/count'", tmp, dir, tmp);
  if (system(cmd) != 0)
    return -1;
  s = tmp_file("count");
  n = s ? atoi(s) : -1;
  free(s);
  return n;
}

static void part_history(void)
{
  char out[4200], hist[4200], n1[4200], n2[4200];
  const char *a1[] = {"-o", out, "--history", hist, n1, NULL};
  const char *a2[] = {"-o", out, "--history", hist, n2, NULL};
  snprintf(out, sizeof(out), "%s/out", tmp);
  snprintf(hist, sizeof(hist), "%s/history", tmp);
  snprintf(n1, sizeof(n1), "%s/night1", tmp);
  snprintf(n2, sizeof(n2), "%s/night2", tmp);

  CHECK_EQ_INT(merge(a1), 0);
  /* date/arch/device */
  CHECK(exists("history/2026-11-28/sm_75/Tesla_T4/"
               "transpose-sm_75-20261128T020000Z.json"));
  CHECK(exists("history/2026-11-28/sm_80/NVIDIA_A100-SXM4-40GB/"
               "transpose-sm_80-20261128T020500Z.json"));
  CHECK_EQ_INT(count_files("history"), 3);
  /* night 2 alone: sm_75 keeps night 1's measurement from the history,
   * not night 2's prediction */
  CHECK_EQ_INT(merge(a2), 0);
  CHECK(exists("history/2026-11-29/sm_75/predicted/"
               "transpose-sm_75-20261129T010000Z.json"));
  CHECK_EQ_INT(count_files("history"), 8);
  CHECK(contains("out/sm_75/transpose.h", "TRANSPOSE_SM_75_MEASURED 1"));
  CHECK(contains("out/sm_75/transpose.h", "#define TRANSPOSE_SM_75_TILE 16"));
  CHECK(contains("merge.out", "8 results (5 given, 3 from the history)"));
  /* again: nothing new is kept, the same headers come out */
  {
    char *before = tmp_file("out/transpose_dispatch.h"), *after;
    CHECK_EQ_INT(merge(a2), 0);
    CHECK_EQ_INT(count_files("history"), 8);
    after = tmp_file("out/transpose_dispatch.h");
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
  }
  /* the history alone is enough to merge */
  {
    const char *a3[] = {"-o", out, hist, NULL};
    CHECK_EQ_INT(merge(a3), 0);
    CHECK(contains("out/sm_90/transpose.h",
                   "#define TRANSPOSE_SM_90_ROWS_PER_THREAD 8"));
  }
}

static void part_regression(void)
{
  char out[4200], hist[4200], n1[4200], n2[4200];
  const char *a1[] = {"-o", out, "--history", hist, n1, NULL};
  const char *a2[] = {"-o", out, "--history", hist, n2, NULL};
  const char *a2f[] = {"-o", out, "--history", hist, "--fail-on-regression",
                       n2, NULL};
  const char *a1f[] = {"-o", out, "--fail-on-regression", n1, NULL};
  snprintf(out, sizeof(out), "%s/out", tmp);
  snprintf(hist, sizeof(hist), "%s/history", tmp);
  snprintf(n1, sizeof(n1), "%s/night1", tmp);
  snprintf(n2, sizeof(n2), "%s/night2", tmp);

  /* one night: nothing to compare with */
  CHECK_EQ_INT(merge(a1f), 0);
  CHECK_EQ_INT(merge(a1), 0);
  /* night 2 against the kept night 1: on the H100, C3 went from 0.45 to
   * 0.60 ms (+33%); C0 from 0.700 to 0.703 (+0.4%, within 1% noise); C2
   * from 0.80 to 0.83 (+3.75%, but its spread is 5%); C1 got faster */
  CHECK_EQ_INT(merge(a2), 0);
  CHECK(contains("merge.err", "REGRESSION: 1 configuration slower beyond "
                              "noise on NVIDIA H100 80GB HBM3"));
  CHECK(contains("merge.err",
                 "tile=64 rows_per_thread=4 vec=1 pad=0 swizzle=xor group=8: "
                 "0.4500 -> 0.6000 ms (+33.3%"));
  CHECK(contains("merge.err", "the driver changed: CUDA 12.8 -> 13.0"));
  {
    char *e = tmp_file("merge.err");
    CHECK(e && strstr(e, "rows_per_thread=2") == NULL);
    CHECK(e && strstr(e, "swizzle=xor group=1:") == NULL);
    /* the A100-40GB on host a got no slower (C0 the same, C1 faster);
     * host b has no previous night */
    CHECK(e && strstr(e, "host a") == NULL);
    CHECK(e && strstr(e, "host b") == NULL);
    free(e);
  }
  /* --fail-on-regression: exit 4, the headers written all the same */
  {
    char path[4400];
    snprintf(path, sizeof(path), "%s/out/transpose_dispatch.h", tmp);
    remove(path);
    CHECK_EQ_INT(merge(a2f), TN_EXIT_REGRESSION);
    CHECK(exists("out/transpose_dispatch.h"));
  }
}

/* A bad file next to a good one: exit 2, "FILE: what", nothing written. */
static void expect_bad(const char *what, json_t *doc, const char *raw,
                       const char *message)
{
  char bad[4400], good[4400], out[4200], hist[4200], msg[8600];
  const char *args[] = {"-o", out, "--history", hist, good, bad, NULL};
  FILE *f;
  int status;

  snprintf(bad, sizeof(bad), "%s/bad/%s.json", tmp, what);
  snprintf(good, sizeof(good),
           "%s/night1/transpose-sm_75-20261128T020000Z.json", tmp);
  snprintf(out, sizeof(out), "%s/bad-out", tmp);
  snprintf(hist, sizeof(hist), "%s/bad-history", tmp);
  if (doc) {
    write_doc(doc, bad);
  } else {
    tn_err err = {{0}};
    char dir[4400];
    tn_dirname(dir, sizeof(dir), bad);
    CHECK(tn_mkdirs(dir, &err) == 0);
    f = fopen(bad, "w");
    CHECK(f != NULL);
    if (f) {
      fputs(raw, f);
      fclose(f);
    }
  }
  status = merge(args);
  if (status != 2)
    fprintf(stderr, "%s: exit %d, expected 2\n", what, status);
  CHECK_EQ_INT(status, 2);
  snprintf(msg, sizeof(msg), "tuner merge: %s: %s", bad, message);
  CHECK(contains("merge.err", msg));
  CHECK(!exists("bad-out"));
  CHECK(!exists("bad-history"));
}

static json_t *good_doc(void)
{
  run_spec s = {"sm_80", "NVIDIA A100-SXM4-40GB", "a", 0,
                "2026-11-29T02:05:00Z", "13.0", 1, 0.01, 0.8, 2,
                {{0, 1.00, 0.004}, {1, 0.90, 0.004}}};
  return results_doc(&s, "transpose", "transpose", 8192);
}

static void part_bad_input(void)
{
  json_t *d;
  expect_bad("not-json", NULL, "{\"schema\": \"tuner-results/1\",\n",
             "not JSON: line");
  expect_bad("array", NULL, "[1, 2]\n", "not a results document");
  d = good_doc();
  json_object_set_new(d, "schema", json_string("tuner-results/0"));
  expect_bad("schema", d, NULL, "schema: \"tuner-results/0\", expected");
  d = good_doc();
  json_object_del(d, "schema");
  expect_bad("no-schema", d, NULL, "schema: missing");
  d = good_doc();
  json_object_del(d, "family");
  expect_bad("no-family", d, NULL, "family: missing");
  d = good_doc();
  json_object_set_new(d, "family", json_string("fft"));
  expect_bad("unknown-family", d, NULL, "family: \"fft\" is unknown");
  if (tn_family_find("gemm") != NULL) {
    d = good_doc();
    json_object_set_new(d, "family", json_string("gemm"));
    expect_bad("mixed-families", d, NULL,
               "family \"gemm\", but");
  }
  d = good_doc();
  json_object_set_new(d, "name", json_string("other"));
  expect_bad("mixed-names", d, NULL, "name \"other\", but");
  d = good_doc();
  json_object_del(json_object_get(json_object_get(d, "best"), "params"),
                  "tile");
  expect_bad("no-tile", d, NULL, "best.params.tile: missing");
  d = good_doc();
  json_object_set_new(json_object_get(json_object_get(d, "best"), "params"),
                      "tile", json_integer(48));
  expect_bad("bad-tile", d, NULL,
             "best.params: not a valid transpose configuration: tile 48");
  d = good_doc();
  json_object_set_new(json_object_get(json_object_get(d, "best"), "params"),
                      "swizzle", json_string("diagonal"));
  expect_bad("bad-swizzle", d, NULL, "best.params.swizzle: ");
  d = good_doc();
  {
    json_t *c1 = json_array_get(json_object_get(d, "candidates"), 1);
    json_t *t0 = json_array_get(json_object_get(c1, "timings"), 0);
    json_object_del(t0, "q1_ms");
  }
  expect_bad("no-q1", d, NULL, "candidates[1].timings[0].q1_ms: missing");
  d = good_doc();
  json_object_set_new(json_object_get(d, "run"), "started",
                      json_string("yesterday"));
  expect_bad("bad-date", d, NULL, "run.started: \"yesterday\" is not");
  d = good_doc();
  json_object_set_new(json_object_get(d, "device"), "arch",
                      json_string("sm_99"));
  expect_bad("bad-arch", d, NULL, "device.arch: \"sm_99\" is unknown");
  d = good_doc();
  json_object_set_new(json_object_get(d, "device"), "name", json_null());
  expect_bad("no-device", d, NULL, "device.name: null, and the results are "
                                   "not \"predicted\"");
  d = good_doc();
  json_object_set_new(json_object_get(d, "best"), "id", json_integer(5));
  expect_bad("bad-best", d, NULL, "best.id: 5 is not the id of a candidate");
  d = good_doc();
  json_object_set_new(json_object_get(d, "best"), "noise",
                      json_string("low"));
  expect_bad("bad-noise", d, NULL, "best.noise: expected a number");
  {
    run_spec s = {"sm_80", "NVIDIA A100-SXM4-40GB", "a", 0,
                  "2026-11-29T02:05:00Z", "13.0", 1, 0.01, 0.8, 2,
                  {{0, 1.00, 0.004}, {1, 0.90, 0.004}}};
    expect_bad("other-problem", results_doc(&s, "transpose", "transpose",
                                            4096),
               NULL, "problems: not those of");
  }
  /* a file that is not there, no files at all */
  {
    char out[4200], missing[4200];
    const char *a[] = {"-o", out, missing, NULL};
    const char *none[] = {"-o", out, NULL};
    snprintf(out, sizeof(out), "%s/bad-out", tmp);
    snprintf(missing, sizeof(missing), "%s/none.json", tmp);
    CHECK_EQ_INT(merge(a), 2);
    CHECK(contains("merge.err", "none.json: cannot open"));
    CHECK_EQ_INT(merge(none), 2);
    CHECK(!exists("bad-out"));
  }
  /* a name that cannot make a C identifier */
  {
    char out[4200], good[4400];
    const char *a[] = {"-o", out, "--name", "9lives", good, NULL};
    snprintf(out, sizeof(out), "%s/bad-out", tmp);
    snprintf(good, sizeof(good),
             "%s/night1/transpose-sm_75-20261128T020000Z.json", tmp);
    CHECK_EQ_INT(merge(a), 2);
    CHECK(contains("merge.err", "must start with a letter"));
    CHECK(!exists("bad-out"));
  }
}

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
  CHECK(f->prepare(p, prob, why, sizeof(why)) == 0);
  tn_params_format(f->params, f->n_params, p, text, sizeof(text));
  cand = json_pack("{s:i, s:O, s:s, s:s, s:f, s:[{s:f, s:f, s:f}]}", "id",
                   0, "params", params, "params_text", text, "status", "ok",
                   "median_ms", 0.5, "timings", "median_ms", 0.5, "q1_ms",
                   0.49, "q3_ms", 0.51);
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
  tn_render_macros(f, &p, &prob, &all);
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
  const char *part;
  char cmd[4200];
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: test_merge PART [SRC]\n");
    return 2;
  }
  part = argv[1];
  snprintf(tmp, sizeof(tmp), "%s/tuner-merge-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (mkdtemp(tmp) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  write_fleet();
  if (strcmp(part, "rules") == 0)
    part_rules();
  else if (strcmp(part, "fallback") == 0)
    part_fallback();
  else if (strcmp(part, "dispatch_c") == 0)
    part_dispatch_c();
  else if (strcmp(part, "dispatch_nvcc") == 0)
    part_dispatch_nvcc();
  else if (strcmp(part, "history") == 0)
    part_history();
  else if (strcmp(part, "regression") == 0)
    part_regression();
  else if (strcmp(part, "bad_input") == 0)
    part_bad_input();
  else if (strcmp(part, "template_macros") == 0 && argc == 3)
    part_template_macros(argv[2]);
  else {
    fprintf(stderr, "unknown part %s\n", part);
    tn_test_failures++;
  }
  if (tn_test_failures == 0 || getenv("TUNER_KEEP_TMP") == NULL) {
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
      fprintf(stderr, "could not remove %s\n", tmp);
  } else {
    fprintf(stderr, "kept %s\n", tmp);
  }
  TEST_DONE();
}

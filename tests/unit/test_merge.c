/* test_merge.c -- `tuner merge` on a synthetic fleet (merge_fleet.h):
 * the headers it writes checked by reading and compiling them.
 *
 *   test_merge PART
 *
 * PART: rules (which entry each architecture and device gets), fallback
 * (the run-time lookup walks exact device -> architecture -> nearest
 * older -> default), dispatch_c (the headers as C), dispatch_nvcc (the
 * dispatch header in kernels for several architectures; skipped, 77,
 * without nvcc), history (nights kept and merged again), regression
 * (slower than the previous night beyond noise), bad_input (exit 2,
 * FILE: what, nothing written), outputs (a place that cannot be written
 * found before anything is), untrusted (what files from many hosts
 * cannot do: win from the future, write outside the history, put
 * control characters into file names), stay (a near tie keeps the
 * previous night's winner).  The templates' macros:
 * test_merge_macros.c. */
#define _POSIX_C_SOURCE 200809L
#include "merge_fleet.h"

#include <sys/stat.h>
#include <unistd.h>

#include "family/family.h"

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
  /* times exactly as the tuner writes them, real dates and times of day
   * (issue 31: sscanf took a sign, spaces, one digit, day 31 of any month
   * and second 60) */
  {
    static const char *const bad_times[][2] = {
        {"2026-02-30T00:00:00Z", "no day 30 in 2026-02"},
        {"2026-11-31T02:05:00Z", "no day 31 in 2026-11"},
        {"2025-02-29T02:05:00Z", "no day 29 in 2025-02"},
        {"2026-11-29T24:00:00Z", "no time of day 24:00:00"},
        {"2026-11-29T02:05:60Z", "no time of day 02:05:60"},
        {"2026-13-01T02:05:00Z", "no month 13"},
        {"1969-12-31T23:59:59Z", "before 1970"},
        {" 2026-11-29T02:05:00Z", "YYYY-MM-DDTHH:MM:SSZ"},
        {"+026-11-29T02:05:00Z", "YYYY-MM-DDTHH:MM:SSZ"},
        {"2026-11-29T2:05:00Z", "YYYY-MM-DDTHH:MM:SSZ"},
        {"2026-11-29T02:05:00+00:00", "YYYY-MM-DDTHH:MM:SSZ"},
        {"2026-11-29T02:05:00.5Z", "YYYY-MM-DDTHH:MM:SSZ"},
        {"2026-11-29 02:05:00Z", "YYYY-MM-DDTHH:MM:SSZ"}};
    size_t i;
    for (i = 0; i < sizeof(bad_times) / sizeof(bad_times[0]); i++) {
      char what[32], msg[256];
      snprintf(what, sizeof(what), "bad-time-%zu", i);
      snprintf(msg, sizeof(msg),
               "run.started: \"%s\" is not a UTC time like "
               "2026-11-30T03:48:20Z: ",
               bad_times[i][0]);
      d = good_doc();
      json_object_set_new(json_object_get(d, "run"), "started",
                          json_string(bad_times[i][0]));
      expect_bad(what, d, NULL, msg);
      CHECK(contains("merge.err", bad_times[i][1]));
    }
    /* a leap day is a day */
    {
      char path[4400], out[4200];
      const char *a[] = {"-q", "-o", out, path, NULL};
      snprintf(path, sizeof(path), "%s/leap/r.json", tmp);
      snprintf(out, sizeof(out), "%s/leap-out", tmp);
      d = good_doc();
      json_object_set_new(json_object_get(d, "run"), "started",
                          json_string("2024-02-29T02:05:00Z"));
      write_doc(d, path);
      CHECK_EQ_INT(merge(a), 0);
    }
  }
  /* numbers in the type they are used in: no wrap past 2^31 */
  d = good_doc();
  json_object_set_new(json_object_get(d, "device"), "ordinal",
                      json_integer(4294967296LL));
  expect_bad("ordinal-2p32", d, NULL,
             "device.ordinal: 4294967296 is outside [0, 2147483647]");
  /* a name that becomes file names and macros is checked where it is
   * read, naming the file (before, "a/b" was found only when the headers
   * were named, without the file; a control character reached them) */
  {
    static const char *const bad_names[][2] = {
        {"a/b", "character 2 is not"},
        {"a\nb", "character 2 is not"},
        {"x\x1b[2J", "character 2 is not"},
        {"..", "must start with a letter"},
        {"", "empty"},
        {"a1234567890123456789012345678901234567890123456789012345678901234",
         "too long"}};
    size_t i;
    for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
      char what[32], out[4200], good[4400];
      const char *a[] = {"-o", out, "--name", "transpose", good, NULL};
      snprintf(what, sizeof(what), "bad-name-%zu", i);
      d = good_doc();
      json_object_set_new(d, "name", json_string(bad_names[i][0]));
      expect_bad(what, d, NULL, "name: not a job name");
      CHECK(contains("merge.err", bad_names[i][1]));
      /* the same name given as --name: refused before anything is read */
      snprintf(out, sizeof(out), "%s/bad-out", tmp);
      snprintf(good, sizeof(good),
               "%s/night1/transpose-sm_75-20261128T020000Z.json", tmp);
      a[3] = bad_names[i][0];
      CHECK_EQ_INT(merge(a), 2);
      CHECK(contains("merge.err", "tuner merge: --name: not a job name"));
      CHECK(contains("merge.err", bad_names[i][1]));
      CHECK(!exists("bad-out"));
    }
  }
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

/* A place the merge cannot write is found before it writes anything
 * (issue 31): a header set is not left half written. */
static void part_outputs(void)
{
  char out[4200], hist[4200], n1[4200], n2[4200], path[4400];
  const char *a[] = {"-q", "-o", out, "--history", hist, n1, n2, NULL};
  FILE *f;

  snprintf(out, sizeof(out), "%s/out", tmp);
  snprintf(hist, sizeof(hist), "%s/history", tmp);
  snprintf(n1, sizeof(n1), "%s/night1", tmp);
  snprintf(n2, sizeof(n2), "%s/night2", tmp);
  /* an architecture's folder is a file: sm_75's header came first */
  snprintf(path, sizeof(path), "%s/out/sm_80", tmp);
  {
    tn_err err = {{0}};
    CHECK(tn_mkdirs(out, &err) == 0);
  }
  f = fopen(path, "w");
  CHECK(f != NULL);
  if (f)
    fclose(f);
  CHECK_EQ_INT(merge(a), 2);
  CHECK(contains("merge.err", "out/sm_80: a file, not a folder"));
  CHECK(!exists("out/sm_75"));
  CHECK(!exists("out/transpose_dispatch.h"));
  CHECK(!exists("history"));
  remove(path);
  /* the dispatch header's place is a folder */
  snprintf(path, sizeof(path), "%s/out/transpose_dispatch.h", tmp);
  CHECK(mkdir(path, 0755) == 0);
  CHECK_EQ_INT(merge(a), 2);
  CHECK(contains("merge.err", "out/transpose_dispatch.h: not a file"));
  CHECK(!exists("out/sm_75"));
  CHECK(!exists("history"));
  rmdir(path);
  /* a folder of the history is a file */
  snprintf(path, sizeof(path), "%s/history/2026-11-29/sm_90", tmp);
  {
    tn_err err = {{0}};
    char dir[4400];
    tn_dirname(dir, sizeof(dir), path);
    CHECK(tn_mkdirs(dir, &err) == 0);
  }
  f = fopen(path, "w");
  CHECK(f != NULL);
  if (f)
    fclose(f);
  CHECK_EQ_INT(merge(a), 2);
  CHECK(contains("merge.err", "--history "));
  CHECK(contains("merge.err", "history/2026-11-29/sm_90 is a file"));
  CHECK(!exists("history/2026-11-28"));
  CHECK(!exists("out/sm_75"));
  remove(path);
  /* all places free: the whole set */
  CHECK_EQ_INT(merge(a), 0);
  CHECK(exists("out/sm_75/transpose.h"));
  CHECK(exists("out/transpose_dispatch.h"));
}

/* rm -rf tmp/sub */
static void system_rm(const char *sub)
{
  char cmd[4400];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", tmp, sub);
  CHECK(system(cmd) == 0);
}

/* Files from many hosts cannot steer the merge (issue 31, part 2). */
static void part_untrusted(void)
{
  char out[4200], hist[4200], n1[4200], n2[4200], n3[4200], evil[4200];
  char path[4400];
  const char *args[10];
  run_spec ahead = {"sm_90", "NVIDIA H100 80GB HBM3", "h", 0,
                    "2030-01-01T00:00:00Z", "13.0", 0, 0.01, 0.2, 2,
                    {{0, 0.30, 0.004}, {1, 0.48, 0.004}}};
  run_spec dots = {"sm_80", "..", "d", 0, "2026-11-29T02:30:00Z", "13.0", 1,
                   0.01, 0.8, 2, {{0, 1.00, 0.004}, {1, 0.90, 0.004}}};
  run_spec path_dev = dots, hidden = dots;

  snprintf(out, sizeof(out), "%s/out", tmp);
  snprintf(hist, sizeof(hist), "%s/history", tmp);
  snprintf(n1, sizeof(n1), "%s/night1", tmp);
  snprintf(n2, sizeof(n2), "%s/night2", tmp);
  snprintf(n3, sizeof(n3), "%s/night3", tmp);
  snprintf(evil, sizeof(evil), "%s/evil", tmp);

  /* a run dated in the future cannot win the latest night: refused, by
   * the clock and by --now, nothing written */
  write_run(&ahead, "evil", "ahead.json");
  args[0] = "-q";
  args[1] = "-o";
  args[2] = out;
  args[3] = n2;
  args[4] = evil;
  args[5] = NULL;
  CHECK_EQ_INT(merge(args), 2);
  CHECK(contains("merge.err", "ahead.json: run.started: "
                              "2030-01-01T00:00:00Z is "));
  CHECK(contains("merge.err", "a run from the future cannot be the latest "
                              "night"));
  CHECK(!exists("out"));
  snprintf(path, sizeof(path), "%s/ahead.json", evil);
  remove(path);
  /* --now: night 3 (2026-11-30T01:00) is 9 hours after 16:00 the day
   * before */
  args[3] = "--now";
  args[4] = "2026-11-29T16:00:00Z";
  args[5] = n2;
  args[6] = n3;
  args[7] = NULL;
  CHECK_EQ_INT(merge(args), 2);
  CHECK(contains("merge.err", "run.started: 2026-11-30T01:00:00Z is 9 h 00 "
                              "min after now (2026-11-29T16:00:00Z; 15 "
                              "minutes of clock skew are allowed)"));
  CHECK(!exists("out"));
  args[4] = "2026-11-29T03:30:00Z"; /* b's 03:40 within the skew */
  args[6] = NULL;
  CHECK_EQ_INT(merge(args), 0);
  args[4] = "2026-11-29T03:24:59Z";
  CHECK_EQ_INT(merge(args), 2);
  CHECK(contains("merge.err", "b/transpose-sm_80-20261129T034000Z.json: "
                              "run.started: 2026-11-29T03:40:00Z is 0 h 15 "
                              "min after now"));
  args[4] = "2026-11-29T24:00:00Z";
  CHECK_EQ_INT(merge(args), 2);
  CHECK(contains("merge.err", "--now: \"2026-11-29T24:00:00Z\" is not a "
                              "UTC time"));
  system_rm("out");

  /* what a later merge kept (night 3) is left out of one judged earlier,
   * not refused: sm_89, predicted only on night 3, gets no entry */
  args[0] = "-o";
  args[1] = out;
  args[2] = "--history";
  args[3] = hist;
  args[4] = n1;
  args[5] = n2;
  args[6] = n3;
  args[7] = NULL;
  CHECK_EQ_INT(merge(args), 0);
  CHECK(exists("out/sm_89/transpose.h"));
  system_rm("out");
  args[4] = "--now";
  args[5] = "2026-11-29T16:00:00Z";
  args[6] = n2;
  CHECK_EQ_INT(merge(args), 0);
  CHECK(contains("merge.err", "transpose-sm_89-20261130T010000Z.json: "
                              "run.started: 2026-11-30T01:00:00Z is 9 h"));
  CHECK(contains("merge.err", "left out"));
  CHECK(!exists("out/sm_89/transpose.h"));
  system_rm("out");
  system_rm("history");

  /* device names that are paths stay one folder under the architecture,
   * and a file name's control characters never reach the history */
  path_dev.device = "../../../../escape";
  path_dev.started = "2026-11-29T02:31:00Z";
  hidden.device = ".hidden";
  hidden.started = "2026-11-29T02:32:00Z";
  write_run(&dots, "evil", "dots.json");
  write_run(&path_dev, "evil", "path.json");
  write_run(&hidden, "evil", "bad\001name\n.json");
  args[0] = "-q";
  args[1] = "-o";
  args[2] = out;
  args[3] = "--history";
  args[4] = hist;
  args[5] = evil;
  args[6] = NULL;
  CHECK_EQ_INT(merge(args), 0);
  CHECK(exists("history/2026-11-29/sm_80/_./dots.json"));
  CHECK(exists("history/2026-11-29/sm_80/_._.._.._.._escape/path.json"));
  CHECK(exists("history/2026-11-29/sm_80/_hidden/bad_name_.json"));
  CHECK(!exists("history/2026-11-29/dots.json"));
  CHECK(!exists("escape"));
  CHECK(!exists("history/escape"));
  CHECK(!exists("history/2026-11-29/sm_80/.hidden"));
  CHECK_EQ_INT(count_files("history"), 3);
  {
    /* no name in the history holds a control character */
    char cmd[8800], *found;
    snprintf(cmd, sizeof(cmd),
             "find '%s/history' -name '*[[:cntrl:]]*' > '%s/cntrl'", tmp,
             tmp);
    CHECK(system(cmd) == 0);
    found = tmp_file("cntrl");
    CHECK(found != NULL && found[0] == '\0');
    free(found);
  }
  /* and the history alone gives all three back */
  args[3] = hist;
  args[4] = NULL;
  CHECK_EQ_INT(merge(args + 1), 0);
  CHECK(contains("merge.out", "3 results (3 given, 0 from the history)"));
}

/* One H100 night of C0, C1 (and C2) at these times (ms; 0: failed). */
static void stay_night(const char *night, const char *day, const char *host,
                       double c0, double c1, double c2)
{
  run_spec r = {"sm_90", "NVIDIA H100 80GB HBM3", "h", 0, "", "13.0", 0,
                0.01, 0.2, 3,
                {{0, 0, 0.004}, {1, 0, 0.004}, {2, 0, 0.004}}};
  char started[32], file[64];
  double best = 1e9;
  int i;
  snprintf(started, sizeof(started), "%sT02:00:00Z", day);
  snprintf(file, sizeof(file), "%s.json", host);
  r.host = host;
  r.started = started;
  r.c[0].ms = c0;
  r.c[1].ms = c1;
  r.c[2].ms = c2;
  for (i = 0; i < 3; i++)
    if (r.c[i].ms > 0 && r.c[i].ms < best) {
      best = r.c[i].ms;
      r.best = r.c[i].cfg;
    }
  write_run(&r, night, file);
}

/* merge -o out --history history NIGHT */
static int stay_merge(const char *night)
{
  char out[4200], hist[4200], dir[4200];
  const char *a[] = {"-o", out, "--history", hist, dir, NULL};
  snprintf(out, sizeof(out), "%s/out", tmp);
  snprintf(hist, sizeof(hist), "%s/history", tmp);
  snprintf(dir, sizeof(dir), "%s/%s", tmp, night);
  return merge(a);
}

/* sm_90's header says configuration i */
static int header_is(int i)
{
  char text[256], want[300];
  cfg_text(i, text, sizeof(text));
  snprintf(want, sizeof(want), " * Parameters: %s\n", text);
  return contains("out/sm_90/transpose.h", want);
}

/* Headers that stay put (issue 31, part 6): a nightly merge changes a
 * winner only when the new one beats the old beyond noise, both measured
 * that night; the record in the history says so, with the margin. */
static void part_stay(void)
{
  char c0[256], c1[256], c2[256], line[1200];
  cfg_text(0, c0, sizeof(c0));
  cfg_text(1, c1, sizeof(c1));
  cfg_text(2, c2, sizeof(c2));
  /* night 1: C0, by 1% */
  stay_night("s1", "2026-11-20", "h", 1.000, 1.010, 0);
  CHECK_EQ_INT(stay_merge("s1"), 0);
  CHECK(header_is(0));
  /* night 2: C1 ahead by 0.5%, within the 1% noise: C0 stays */
  stay_night("s2", "2026-11-21", "h", 1.000, 0.995, 0);
  CHECK_EQ_INT(stay_merge("s2"), 0);
  CHECK(header_is(0));
  CHECK(contains("out/sm_90/transpose.h", "the previous night's winner, "
                                          "kept: the latest night's best"));
  CHECK(contains("out/sm_90/transpose.h", "by only 0.5%, within the noise "
                                          "(1.0%)"));
  snprintf(line, sizeof(line),
           "{\"night\":\"2026-11-21T02:00:00Z\",\"arch\":\"sm_90\","
           "\"device\":null,\"size\":-1,\"params_text\":\"%s\","
           "\"previous\":\"%s\",\"switched\":false,\"compared\":true,",
           c0, c0);
  CHECK(contains("history/transpose.winners.jsonl", line));
  /* the device's own entry stays too */
  CHECK(contains("history/transpose.winners.jsonl",
                 "\"device\":\"NVIDIA H100 80GB HBM3\",\"size\":-1,"));
  /* the same night merged again: the same header, no line twice */
  {
    char *before = tmp_file("history/transpose.winners.jsonl"), *after;
    CHECK_EQ_INT(stay_merge("s2"), 0);
    after = tmp_file("history/transpose.winners.jsonl");
    CHECK(before && after && strcmp(before, after) == 0);
    CHECK(header_is(0));
    free(before);
    free(after);
  }
  /* night 3: C1 ahead by 11%: it takes over, the record says by how much */
  stay_night("s3", "2026-11-22", "h", 1.000, 0.900, 0);
  CHECK_EQ_INT(stay_merge("s3"), 0);
  CHECK(header_is(1));
  CHECK(contains("out/sm_90/transpose.h", "it beats the previous winner"));
  snprintf(line, sizeof(line),
           "\"params_text\":\"%s\",\"previous\":\"%s\","
           "\"switched\":true,\"compared\":true,"
           "\"merged\":",
           c1, c0);
  CHECK(contains("history/transpose.winners.jsonl", line));
  CHECK(contains("history/transpose.winners.jsonl", "\"margin\":0.111111"));
  /* night 4: C0 back ahead by 0.5%: C1 stays */
  stay_night("s4", "2026-11-23", "h", 0.995, 1.000, 0);
  CHECK_EQ_INT(stay_merge("s4"), 0);
  CHECK(header_is(1));
  /* night 5: C1 failed: the previous winner was not measured, C2 wins */
  stay_night("s5", "2026-11-24", "h", 1.000, 0, 0.990);
  CHECK_EQ_INT(stay_merge("s5"), 0);
  CHECK(header_is(2));
  CHECK(contains("out/sm_90/transpose.h", "was not measured by every run"));
  /* night 6, two hosts: C0 best on one by 1%, C2 on the other by 0.5%:
   * C0's geometric mean is ahead by 0.25%, within noise: C2 stays */
  stay_night("s6", "2026-11-25", "x", 0.990, 0, 1.000);
  stay_night("s6", "2026-11-25", "y", 1.005, 0, 1.000);
  CHECK_EQ_INT(stay_merge("s6"), 0);
  CHECK(header_is(2));
  CHECK(contains("out/sm_90/transpose.h", "by only 0.3%"));
  /* a record line that is not one: FILE:LINE, exit 2, nothing written */
  {
    char path[4400];
    FILE *f;
    snprintf(path, sizeof(path), "%s/history/transpose.winners.jsonl", tmp);
    f = fopen(path, "a");
    CHECK(f != NULL);
    if (f) {
      fputs("{\"night\": \"2026-11-26T25:00:00Z\", \"arch\": \"sm_90\", "
            "\"device\": null, \"size\": -1, \"params_text\": \"x\"}\n",
            f);
      fclose(f);
    }
    system_rm("out");
    CHECK_EQ_INT(stay_merge("s6"), 2);
    CHECK(contains("merge.err", "transpose.winners.jsonl:"));
    CHECK(contains("merge.err", ": night: not a UTC time"));
    CHECK(!exists("out"));
  }
}

int main(int argc, char **argv)
{
  const char *part;
  if (argc != 2) {
    fprintf(stderr, "usage: test_merge PART\n");
    return 2;
  }
  part = argv[1];
  merge_fleet_setup();
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
  else if (strcmp(part, "outputs") == 0)
    part_outputs();
  else if (strcmp(part, "untrusted") == 0)
    part_untrusted();
  else if (strcmp(part, "stay") == 0)
    part_stay();
  else {
    fprintf(stderr, "unknown part %s\n", part);
    tn_test_failures++;
  }
  tmp_remove();
  TEST_DONE();
}

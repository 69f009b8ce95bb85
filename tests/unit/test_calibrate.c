/* test_calibrate.c -- `tuner calibrate` without a GPU: the stride sweep's
 * predictions read from the model, the profile's JSON read back through
 * jansson, the default file name, and (part "kernels") the NVRTC compile
 * of every calibration kernel for one architecture.
 * Usage: test_calibrate predict | json DIR | name | kernels sm_XX */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "calibrate/calibrate.h"
#include "calibrate/copy_engine.h"
#include "calibrate/kernels.h"
#include "calibrate/predict.h"
#include "calibrate/profile.h"
#include "calibrate/sweep.h"
#include "pipeline/compile_nvrtc.h"
#include "model/profile.h"
#include "test_util.h"

static int gcd(int a, int b)
{
  while (b) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* The model's wavefronts for lane l at element l*s: 4 bytes cost
 * gcd(s, 32) (one phase of 32 lanes); 8 bytes two half-warp phases of
 * gcd(s, 16) each; 16 bytes four quarter-warp phases of gcd(s, 8). */
static int test_predict(void)
{
  const tn_arch *sm90 = tn_arch_find("sm_90");
  tn_calib_profile *p = calloc(1, sizeof(*p));
  int s;
  CHECK(p != NULL && sm90 != NULL);
  if (p == NULL || sm90 == NULL)
    TEST_DONE();
  for (s = 1; s <= TN_CALIB_MAX_STRIDE; s++) {
    tn_calib_predicted a, b, c;
    CHECK(tn_calib_predict(4, s, sm90, &a) == 0);
    CHECK(tn_calib_predict(8, s, sm90, &b) == 0);
    CHECK(tn_calib_predict(16, s, sm90, &c) == 0);
    CHECK_EQ_INT(a.wavefronts, gcd(s, 32));
    CHECK_EQ_INT(a.degree, gcd(s, 32));
    CHECK_EQ_INT(b.wavefronts, 2 * gcd(s, 16));
    CHECK_EQ_INT(c.wavefronts, 4 * gcd(s, 8));
    CHECK(fabs(a.ratio - gcd(s, 32)) < 1e-12);
    CHECK(fabs(b.ratio - gcd(s, 16)) < 1e-12);
    CHECK(fabs(c.ratio - gcd(s, 8)) < 1e-12);
  }
  {
    tn_calib_predicted x;
    CHECK(tn_calib_predict(4, 0, sm90, &x) != 0);
    CHECK(tn_calib_predict(3, 1, sm90, &x) != 0);
  }
  /* the profile's table is the same model's */
  tn_calib_profile_init(p);
  tn_strlcpy(p->arch, "sm_90", sizeof(p->arch));
  CHECK(tn_calib_sweep_predict(p) == 0);
  CHECK_EQ_INT(p->smem[0].width, 4);
  CHECK_EQ_INT(p->smem[2].width, 16);
  CHECK_EQ_INT(p->smem[0].s[31].stride, 32);
  CHECK_EQ_INT(p->smem[0].s[31].predicted_wavefronts, 32);
  CHECK_EQ_INT(p->smem[1].s[15].predicted_wavefronts, 32);
  CHECK(fabs(p->smem[2].s[7].predicted_ratio - 8.0) < 1e-12);
  free(p);
  printf("predict: 3 widths x %d strides match the model\n",
         TN_CALIB_MAX_STRIDE);
  TEST_DONE();
}

static void fake_metric(tn_calib_metric *m, double base)
{
  double v[5] = {base * 1.02, base, base * 0.98, base * 1.01, base * 0.99};
  tn_calib_stat_from(v, 5, &m->stat);
  m->measured = 1;
  m->work = 1e9;
}

/* A profile with known figures, written and read back. */
static int test_json(const char *dir)
{
  tn_calib_profile *p = calloc(1, sizeof(*p));
  const tn_calib_metric *m[TN_CALIB_MAX_METRICS];
  char path[4096];
  tn_err err = {{0}};
  json_error_t jerr;
  json_t *root, *meas, *smem, *widths, *st;
  int i, n, w;

  CHECK(p != NULL);
  if (p == NULL)
    TEST_DONE();
  tn_calib_profile_init(p);
  tn_strlcpy(p->name, "NVIDIA \"Test\" GPU", sizeof(p->name));
  tn_strlcpy(p->arch, "sm_90", sizeof(p->arch));
  p->cc_major = 9;
  p->sm_count = 132;
  p->clock_khz = 1980000;
  p->l2_bytes = 50331648;
  p->total_mem = 150000000000LL;
  tn_strlcpy(p->driver, "13.0", sizeof(p->driver));
  tn_strlcpy(p->nvrtc, "13.0", sizeof(p->nvrtc));
  tn_strlcpy(p->version, "0.1.0", sizeof(p->version));
  tn_strlcpy(p->date, "2026-12-01T14:00:00Z", sizeof(p->date));
  tn_strlcpy(p->host, "gpu-host", sizeof(p->host));
  tn_strlcpy(p->command, "tuner calibrate --device 0", sizeof(p->command));
  p->repetitions = 5;
  p->warmup = 3;
  fake_metric(&p->clock, 1980.0);
  fake_metric(&p->launch, 2.5);
  fake_metric(&p->copy, 4000.0);
  fake_metric(&p->memcpy_dtod, 4100.0);
  fake_metric(&p->tiles[0], 2800.0);
  fake_metric(&p->tiles[1], 3600.0);
  fake_metric(&p->tiles[2], 3880.0);
  fake_metric(&p->tiles[3], 3990.0);
  {
    /* the copy engine's boxes: 40 ns + 2 ns a row at 32 bytes, each
     * wider row 1.5 times that, stores 1.25 times the loads */
    int op, cw, r;
    for (op = 0; op < TN_PROFILE_TMA_OPS; op++)
      for (cw = 0; cw < TN_PROFILE_TMA_N_WIDTHS; cw++)
        for (r = 0; r < TN_PROFILE_TMA_N_ROWS; r++)
          fake_metric(&p->tma[op][cw][r],
                      (40.0 + 2.0 * (r ? 64 : 8)) * (op ? 1.25 : 1.0) *
                          (cw == 0 ? 1 : cw == 1 ? 1.5 : cw == 2 ? 2.25
                                                                 : 3.375));
  }
  fake_metric(&p->fma, 60.0);
  fake_metric(&p->imad, 30000.0);
  fake_metric(&p->shift_lop3, 40000.0);
  fake_metric(&p->mma_bf16, 600.0);
  snprintf(p->cublas_bf16.skipped, sizeof(p->cublas_bf16.skipped),
           "no cuBLAS: libcublas.so.13 not found");
  CHECK(tn_calib_sweep_predict(p) == 0);
  p->smem_loads = TN_CALIB_SWEEP_LOADS;
  for (w = 0; w < TN_CALIB_N_WIDTHS; w++) {
    p->smem[w].blocks_per_sm = 4;
    p->smem[w].sm_ns_per_wavefront = 0.5;
    p->smem[w].sm_cycles_per_wavefront = 1.0;
    for (i = 0; i < TN_CALIB_MAX_STRIDE; i++) {
      p->smem[w].s[i].warp_ratio = p->smem[w].s[i].predicted_ratio;
      fake_metric(&p->launch, 1.0); /* any stat */
      p->smem[w].s[i].sm_ns = p->launch.stat;
    }
  }
  fake_metric(&p->launch, 2.5);

  snprintf(path, sizeof(path), "%s/profile.json", dir);
  CHECK(tn_calib_write(p, path, &err) == 0);
  root = json_load_file(path, 0, &jerr);
  CHECK(root != NULL);
  if (root == NULL) {
    fprintf(stderr, "%s: %s\n", path, jerr.text);
    free(p);
    TEST_DONE();
  }
  for (i = 0; tn_calib_required_keys[i]; i++)
    if (json_object_get(root, tn_calib_required_keys[i]) == NULL) {
      fprintf(stderr, "no key %s\n", tn_calib_required_keys[i]);
      tn_test_failures++;
    }
  CHECK(strcmp(json_string_value(json_object_get(root, "schema")),
               TN_CALIB_SCHEMA) == 0);
  CHECK(strcmp(json_string_value(json_object_get(
                   json_object_get(root, "device"), "name")),
               "NVIDIA \"Test\" GPU") == 0);
  CHECK(strcmp(json_string_value(json_object_get(
                   json_object_get(root, "device"), "cc")),
               "9.0") == 0);
  CHECK_EQ_INT(json_integer_value(json_object_get(
                   json_object_get(root, "device"), "total_mem_bytes")),
               150000000000LL);
  CHECK(strcmp(json_string_value(json_object_get(root, "command")),
               "tuner calibrate --device 0") == 0);
  meas = json_object_get(root, "measurements");
  n = tn_calib_metrics(p, m);
  CHECK_EQ_INT(json_object_size(meas), n);
  for (i = 0; i < n; i++) {
    json_t *o = json_object_get(meas, m[i]->key);
    CHECK(o != NULL);
    if (o == NULL)
      continue;
    CHECK(json_is_string(json_object_get(o, "unit")));
    CHECK(json_string_length(json_object_get(o, "method")) > 20);
    if (m[i]->measured) {
      CHECK(json_is_true(json_object_get(o, "measured")));
      CHECK(fabs(json_real_value(json_object_get(o, "median")) -
                 m[i]->stat.median) < 1e-6 * m[i]->stat.median);
      CHECK(json_real_value(json_object_get(o, "q1")) <=
            json_real_value(json_object_get(o, "q3")));
      CHECK(json_object_get(o, "spread") != NULL);
      CHECK_EQ_INT(json_integer_value(json_object_get(o, "repetitions")),
                   5);
    } else {
      CHECK(json_is_false(json_object_get(o, "measured")));
      CHECK(strstr(json_string_value(json_object_get(o, "skipped")),
                   "cuBLAS") != NULL);
    }
  }
  CHECK(fabs(json_real_value(json_object_get(
                 json_object_get(meas, "global_copy"), "median")) -
             4000.0) < 1e-3);
  smem = json_object_get(root, "shared_memory");
  CHECK(json_string_length(json_object_get(smem, "method")) > 100);
  widths = json_object_get(smem, "widths");
  CHECK_EQ_INT(json_array_size(widths), 3);
  CHECK_EQ_INT(json_array_size(json_object_get(json_array_get(widths, 1),
                                               "strides")),
               TN_CALIB_MAX_STRIDE);
  st = json_array_get(json_object_get(json_array_get(widths, 0), "strides"),
                      31);
  CHECK_EQ_INT(json_integer_value(json_object_get(st, "stride")), 32);
  CHECK_EQ_INT(json_integer_value(json_object_get(st, "predicted_wavefronts")),
               32);
  CHECK(fabs(json_real_value(json_object_get(st, "warp_ratio")) - 32.0) <
        1e-9);
  CHECK(json_object_get(json_object_get(st, "sm_ns_per_load"), "median") !=
        NULL);
  CHECK_EQ_INT(json_integer_value(json_object_get(json_array_get(widths, 2),
                                                  "blocks_per_sm")),
               4);
  json_decref(root);
  {
    /* the time model reads it back: the tiled copies' share of the copy */
    tn_profile back;
    int rc = tn_profile_read(path, &back, &err);
    if (rc != 0)
      fprintf(stderr, "%s\n", err.msg);
    CHECK_EQ_INT(rc, 0);
    CHECK(fabs(back.tile_copy_gbs[1].mid - 3600.0) < 1e-6);
    CHECK(fabs(tn_profile_row_share(&back, 128) - 0.9) < 1e-9);
    /* and the copy engine's boxes, by the keys both sides share */
    CHECK(fabs(back.tma_box_ns[1][2][1].mid - 168.0 * 1.25 * 2.25) < 1e-6);
    CHECK(fabs(tn_profile_tma_box_ns(&back, 0, 32, 8, 0) - 56.0) < 1e-9);
    CHECK(fabs(tn_profile_tma_box_ns(&back, 0, 32, 32, 0) - 104.0) < 1e-9);
  }
  {
    /* the key names as the file has them */
    json_t *again = json_load_file(path, 0, &jerr);
    json_t *ms = json_object_get(again, "measurements");
    CHECK(json_object_get(ms, "tma_store_64x128B") != NULL);
    CHECK(json_object_get(ms, "tma_load_8x32B") != NULL);
    CHECK(strcmp(json_string_value(json_object_get(
                     json_object_get(ms, "tma_load_8x256B"), "unit")),
                 "ns") == 0);
    json_decref(again);
  }
  free(p);
  printf("json: a profile written and read back with every key\n");
  TEST_DONE();
}

static int test_name(void)
{
  char out[256];
  tn_calib_default_name(out, sizeof(out), "sm_90", "NVIDIA H200",
                        "2026-12-01T14:05:09Z");
  CHECK(strcmp(out, "sm_90-NVIDIA_H200-20261201.json") == 0);
  tn_calib_default_name(out, sizeof(out), "sm_120", "a/b c",
                        "2027-01-31T00:00:00Z");
  CHECK(strcmp(out, "sm_120-a_b_c-20270131.json") == 0);
  TEST_DONE();
}

/* Every kernel compiles for arch and is in the CUBIN's symbols (their
 * names, NUL-terminated, are in its string table). */
static int test_kernels(const char *arch_name)
{
  const tn_arch *arch = tn_arch_find(arch_name);
  void *cubin = NULL;
  size_t len = 0;
  char *log = NULL;
  tn_err err = {{0}};
  int i, rc;
  CHECK(arch != NULL);
  if (arch == NULL)
    TEST_DONE();
  rc = tn_nvrtc_helper(tn_calib_kernel_source, "calibrate.cu", arch,
                       &cubin, &len, &log, &err);
  if (rc != 0)
    fprintf(stderr, "%s: %s\n", arch_name, rc > 0 && log ? log : err.msg);
  CHECK_EQ_INT(rc, 0);
  for (i = 0; rc == 0 && tn_calib_kernel_names[i]; i++) {
    const char *name = tn_calib_kernel_names[i];
    size_t k, nl = strlen(name) + 1;
    int found = 0;
    for (k = 0; k + nl <= len && !found; k++)
      found = memcmp((const char *)cubin + k, name, nl) == 0;
    if (!found) {
      fprintf(stderr, "%s: no kernel %s in the CUBIN\n", arch_name, name);
      tn_test_failures++;
    }
    /* ptxas -v names every entry it compiled (unless NVRTC's own cache,
     * which a driver's machine has, served the CUBIN without a log) */
    if (log && strstr(log, "Compiling entry") && strstr(log, name) == NULL) {
      fprintf(stderr, "%s: ptxas did not compile %s\n", arch_name, name);
      tn_test_failures++;
    }
  }
  if (rc == 0)
    printf("kernels: %d compiled for %s, %zu bytes of CUBIN\n", i,
           arch_name, len);
  free(cubin);
  free(log);
  /* the copy engine's kernel, its own program: empty before sm_90 */
  cubin = NULL;
  log = NULL;
  rc = tn_nvrtc_helper(tn_calib_copy_engine_source,
                       "calibrate_copy_engine.cu", arch, &cubin, &len,
                       &log, &err);
  if (rc != 0)
    fprintf(stderr, "%s: %s\n", arch_name, rc > 0 && log ? log : err.msg);
  CHECK_EQ_INT(rc, 0);
  if (rc == 0) {
    size_t k;
    int found = 0;
    for (k = 0; k + 11 <= len && !found; k++)
      found = memcmp((const char *)cubin + k, "tn_cal_tma", 11) == 0;
    CHECK(found);
    printf("copy engine: compiled for %s, %zu bytes of CUBIN\n", arch_name,
           len);
  }
  free(cubin);
  free(log);
  TEST_DONE();
}

int main(int argc, char **argv)
{
  if (argc == 2 && strcmp(argv[1], "predict") == 0)
    return test_predict();
  if (argc == 3 && strcmp(argv[1], "json") == 0)
    return test_json(argv[2]);
  if (argc == 2 && strcmp(argv[1], "name") == 0)
    return test_name();
  if (argc == 3 && strcmp(argv[1], "kernels") == 0)
    return test_kernels(argv[2]);
  fprintf(stderr, "usage: test_calibrate predict | json DIR | name | "
                  "kernels sm_XX\n");
  return 2;
}

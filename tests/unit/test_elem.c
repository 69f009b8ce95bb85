/* test_elem.c -- the element types of buffers and the values their inputs
 * hold (family.h, tn_random_elem), which the GPU's generator must write
 * and a family's check recomputes.
 *
 *   test_elem values       every type's values, exact in the type (cpu)
 *   test_elem fp8          the 8-bit floats: all 256 codes of e4m3 and
 *                          e5m2 decoded and encoded back, known values,
 *                          rounding and saturation (cpu)
 *   test_elem nvrtc ARCH   the generator's source compiles for ARCH (nvrtc)
 *   test_elem gemm_ex      the type pairs cuBLAS GemmEx refuses, refused
 *                          before the library is loaded (cpu)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "family/family.h"
#include "gpu/cublas.h"
#include "gpu/compare.h"
#include "gpu/inputs.h"
#include "pipeline/compile.h"
#include "test_util.h"

#define N_PER_SEED (1 << 16)

static unsigned bits_of(float f)
{
  unsigned u;
  memcpy(&u, &f, sizeof(u));
  return u;
}

static void check_names(void)
{
  CHECK_EQ_INT(tn_elem_bytes(TN_ELEM_F32), 4);
  CHECK_EQ_INT(tn_elem_bytes(TN_ELEM_BF16), 2);
  CHECK_EQ_INT(tn_elem_bytes(TN_ELEM_F16), 2);
  CHECK_EQ_INT(tn_elem_bytes((tn_elem_type)TN_ELEM_COUNT), 0);
  CHECK(strcmp(tn_elem_name(TN_ELEM_F32), "f32") == 0);
  CHECK(strcmp(tn_elem_name(TN_ELEM_BF16), "bf16") == 0);
  CHECK(strcmp(tn_elem_name(TN_ELEM_F16), "f16") == 0);
  CHECK(strcmp(tn_elem_name((tn_elem_type)TN_ELEM_COUNT), "?") == 0);
  /* a buffer that says nothing is fp32 */
  {
    tn_buffer_desc d;
    memset(&d, 0, sizeof(d));
    CHECK(d.elem == TN_ELEM_F32);
  }
}

/* One seed's values of every type; counts which fp16 values came up. */
static void check_seed(unsigned long long seed, int *seen16, double *sum16,
                       int *bad)
{
  unsigned long long i;
  for (i = 0; i < N_PER_SEED; i++) {
    unsigned long long at = i * 7919 + (i >> 3); /* spread over indices */
    float f = tn_random_value(seed, at);
    double v32 = tn_random_elem(seed, at, TN_ELEM_F32);
    double vb = tn_random_elem(seed, at, TN_ELEM_BF16);
    double vh = tn_random_elem(seed, at, TN_ELEM_F16);
    float fb = (float)vb;
    double k = vh * 1024.0;

    /* fp32: tn_random_value itself */
    if (v32 != (double)f || bits_of((float)v32) != bits_of(f))
      bad[0]++;
    /* bf16: a float (the double holds it exactly) whose low 16 bits are
     * zero: the fp32 value truncated toward zero */
    if ((double)fb != vb || (bits_of(fb) & 0xffffu) != 0 ||
        bits_of(fb) != (bits_of(f) & 0xffff0000u) || !(vb >= -1 && vb < 1))
      bad[1]++;
    /* fp16: a multiple of 2^-10 in [-1, 1) -- 11 significant bits at
     * most, the exponent far inside fp16's range, so exact there -- and
     * from the same 24 bits as the fp32 value: ((u >> 13) - 1024) / 1024
     * is floor((f + 1) * 1024) / 1024 - 1 */
    if (k != floor(k) || !(k >= -1024 && k <= 1023) ||
        k != floor(((double)f + 1.0) * 1024.0) - 1024)
      bad[2]++;
    else
      seen16[(int)k + 1024]++;
    *sum16 += vh;
  }
}

static int run_values(void)
{
  const unsigned long long seeds[] = {0, 1, 0x123456789abcdefULL,
                                      tn_buffer_seed(42, 2)};
  static int seen16[2048];
  double sum16 = 0;
  int bad[3] = {0, 0, 0}, s, k, missing = 0;

  check_names();
  for (s = 0; s < 4; s++)
    check_seed(seeds[s], seen16, &sum16, bad);
  CHECK_EQ_INT(bad[0], 0);
  CHECK_EQ_INT(bad[1], 0);
  CHECK_EQ_INT(bad[2], 0);
  /* uniform over the 2048 values: each of them comes up (expected 128
   * times), and the mean is near 0 */
  for (k = 0; k < 2048; k++)
    missing += seen16[k] == 0;
  CHECK_EQ_INT(missing, 0);
  CHECK(fabs(sum16 / (4.0 * N_PER_SEED)) < 0.01);
  /* unknown types read as fp32 */
  CHECK(tn_random_elem(5, 9, (tn_elem_type)7) == tn_random_value(5, 9));
  fprintf(stderr, "values: %d seeds x %d elements of f32, bf16, f16\n", 4,
          N_PER_SEED);
  TEST_DONE();
}

/* Code b of type t decodes to want (NaN: any NaN) and, but for e5m2's
 * infinities (saturated), encodes back to b. */
static void check_code(tn_elem_type t, unsigned b, double want)
{
  double v = tn_fp8_decode((unsigned char)b, t);
  unsigned back = tn_fp8_encode(v, t);
  if (isnan(want) ? !isnan(v) : v != want || signbit(v) != signbit(want)) {
    fprintf(stderr, "  %s 0x%02x: %g, expected %g\n", tn_elem_name(t), b, v,
            want);
    CHECK(0);
  }
  if (!isinf(v) && (isnan(v) ? (back & 0x7f) != 0x7f : back != b)) {
    fprintf(stderr, "  %s 0x%02x -> %g -> 0x%02x\n", tn_elem_name(t), b, v,
            back);
    CHECK(0);
  }
}

/* The value of code b as the OCP spec writes it: (-1)^s 2^(e - bias)
 * (1 + m / 2^mb), subnormals 2^(1 - bias) m / 2^mb; e4m3's S.1111.111 and
 * e5m2's exponent 31 are NaN, or infinity for e5m2's m = 0. */
static double spec_value(tn_elem_type t, unsigned b)
{
  int mb = t == TN_ELEM_E4M3 ? 3 : 2, bias = t == TN_ELEM_E4M3 ? 7 : 15;
  int e = (int)(b & 0x7f) >> mb, m = (int)b & ((1 << mb) - 1);
  double v;
  if (t == TN_ELEM_E4M3 && (b & 0x7f) == 0x7f)
    return NAN;
  if (t == TN_ELEM_E5M2 && e == 31)
    v = m ? NAN : INFINITY;
  else if (e == 0)
    v = pow(2.0, 1 - bias) * m / (1 << mb);
  else
    v = pow(2.0, e - bias) * (1.0 + (double)m / (1 << mb));
  return (b & 0x80) ? -v : v;
}

static int run_fp8(void)
{
  static const struct {
    tn_elem_type t;
    unsigned code;
    double value;
  } known[] = {
      {TN_ELEM_E4M3, 0x00, 0.0},         {TN_ELEM_E4M3, 0x80, -0.0},
      {TN_ELEM_E4M3, 0x38, 1.0},         {TN_ELEM_E4M3, 0x3c, 1.5},
      {TN_ELEM_E4M3, 0x40, 2.0},         {TN_ELEM_E4M3, 0x7e, 448.0},
      {TN_ELEM_E4M3, 0xfe, -448.0},      {TN_ELEM_E4M3, 0x08, 0.015625},
      {TN_ELEM_E4M3, 0x01, 0.001953125}, {TN_ELEM_E4M3, 0x07, 7 / 512.0},
      {TN_ELEM_E4M3, 0x7f, NAN},         {TN_ELEM_E4M3, 0xff, NAN},
      {TN_ELEM_E4M3, 0x78, 256.0},       {TN_ELEM_E5M2, 0x3c, 1.0},
      {TN_ELEM_E5M2, 0x7b, 57344.0},     {TN_ELEM_E5M2, 0xfb, -57344.0},
      {TN_ELEM_E5M2, 0x7c, INFINITY},    {TN_ELEM_E5M2, 0xfc, -INFINITY},
      {TN_ELEM_E5M2, 0x7d, NAN},         {TN_ELEM_E5M2, 0x7f, NAN},
      {TN_ELEM_E5M2, 0x04, 1 / 16384.0}, {TN_ELEM_E5M2, 0x01, 1 / 65536.0},
      {TN_ELEM_E5M2, 0x3e, 1.5},
  };
  static const struct {
    tn_elem_type t;
    double v;
    unsigned code;
  } rounded[] = {
      {TN_ELEM_E4M3, 1.0625, 0x38},   /* a tie: to the even 1.0 */
      {TN_ELEM_E4M3, 1.1875, 0x3a},   /* a tie: to the even 1.25 */
      {TN_ELEM_E4M3, 1.07, 0x39},     /* past the tie: up */
      {TN_ELEM_E4M3, 464.0, 0x7e},    /* a tie at the top: 448 */
      {TN_ELEM_E4M3, 465.0, 0x7e},    /* saturated */
      {TN_ELEM_E4M3, 1e9, 0x7e},      {TN_ELEM_E4M3, -1e9, 0xfe},
      {TN_ELEM_E4M3, INFINITY, 0x7e}, /* no infinities: saturated */
      {TN_ELEM_E4M3, 0.0009765625, 0x00}, /* half the least: to 0 */
      {TN_ELEM_E4M3, 0.0029296875, 0x02}, /* 1.5 x the least: to 2 */
      {TN_ELEM_E4M3, 1e-9, 0x00},     {TN_ELEM_E4M3, -1e-9, 0x80},
      {TN_ELEM_E5M2, 61440.0, 0x7b},  /* a tie past the top: saturated */
      {TN_ELEM_E5M2, INFINITY, 0x7b}, {TN_ELEM_E5M2, -INFINITY, 0xfb},
      {TN_ELEM_E5M2, 1.125, 0x3c},    /* a tie: to the even 1.0 */
      {TN_ELEM_E5M2, 1.375, 0x3e},    /* a tie: to the even 1.5 */
  };
  const tn_elem_type types[2] = {TN_ELEM_E4M3, TN_ELEM_E5M2};
  unsigned char buf[4];
  size_t i;
  int t, b, seen[5] = {0, 0, 0, 0, 0}, bad = 0;

  CHECK_EQ_INT(tn_elem_bytes(TN_ELEM_E4M3), 1);
  CHECK_EQ_INT(tn_elem_bytes(TN_ELEM_E5M2), 1);
  CHECK(tn_elem_is_float(TN_ELEM_E4M3) && tn_elem_is_float(TN_ELEM_E5M2));
  CHECK(strcmp(tn_elem_name(TN_ELEM_E4M3), "e4m3") == 0);
  CHECK(strcmp(tn_elem_long_name(TN_ELEM_E5M2), "e5m2") == 0);
  CHECK_EQ_INT(tn_elem_parse("e4m3"), -1); /* not a user kernel's type */
  for (t = 0; t < 2; t++)
    for (b = 0; b < 256; b++)
      check_code(types[t], (unsigned)b, spec_value(types[t], (unsigned)b));
  for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
    check_code(known[i].t, known[i].code, known[i].value);
  for (i = 0; i < sizeof(rounded) / sizeof(rounded[0]); i++) {
    unsigned got = tn_fp8_encode(rounded[i].v, rounded[i].t);
    if (got != rounded[i].code) {
      fprintf(stderr, "  %s %.10g -> 0x%02x, expected 0x%02x\n",
              tn_elem_name(rounded[i].t), rounded[i].v, got,
              rounded[i].code);
      CHECK(0);
    }
  }
  CHECK((tn_fp8_encode(NAN, TN_ELEM_E4M3) & 0x7f) == 0x7f);
  CHECK(isnan(tn_fp8_decode(tn_fp8_encode(NAN, TN_ELEM_E5M2),
                            TN_ELEM_E5M2)));
  /* through the buffers' store and load */
  tn_elem_store(buf, 1, TN_ELEM_E4M3, -1.5);
  tn_elem_store(buf, 2, TN_ELEM_E5M2, 3.0);
  CHECK_EQ_INT(buf[1], 0xbc);
  CHECK_EQ_INT(buf[2], 0x42);
  CHECK(tn_elem_load(buf, 1, TN_ELEM_E4M3) == -1.5);
  CHECK(tn_elem_load(buf, 2, TN_ELEM_E5M2) == 3.0);
  /* the generator's values: 0, +-1/8, +-1/4, uniform, exact in both */
  for (i = 0; i < 50000; i++) {
    double v = tn_random_elem(7, i, TN_ELEM_E4M3);
    double w = tn_random_elem(7, i, TN_ELEM_E5M2);
    double k = v * 8;
    if (v != w || k != floor(k) || k < -2 || k > 2 ||
        tn_fp8_decode(tn_fp8_encode(v, TN_ELEM_E4M3), TN_ELEM_E4M3) != v ||
        tn_fp8_decode(tn_fp8_encode(v, TN_ELEM_E5M2), TN_ELEM_E5M2) != v)
      bad++;
    else
      seen[(int)k + 2]++;
  }
  CHECK_EQ_INT(bad, 0);
  for (b = 0; b < 5; b++)
    CHECK(seen[b] > 9000 && seen[b] < 11000);
  if (tn_test_failures == 0)
    fprintf(stderr, "fp8: 2 x 256 codes, %zu known values, %zu roundings, "
                    "the generator's values\n",
            sizeof(known) / sizeof(known[0]),
            sizeof(rounded) / sizeof(rounded[0]));
  TEST_DONE();
}

/* source compiles with NVRTC for arch and holds kernel. */
static void compiles(const char *source, const char *kernel,
                     const tn_arch *arch)
{
  tn_err err = {{0}};
  void *cubin = NULL;
  size_t len = 0, i, kl = strlen(kernel);
  char *log = NULL;
  int rc, found = 0;

  rc = tn_compile_source(source, "helper.cu", NULL, arch, &cubin, &len, &log,
                         &err);
  if (rc != 0)
    fprintf(stderr, "%s: %s\n", arch->name, rc > 0 && log ? log : err.msg);
  CHECK_EQ_INT(rc, 0);
  for (i = 0; cubin && i + kl <= len && !found; i++)
    found = memcmp((const char *)cubin + i, kernel, kl) == 0;
  CHECK(found);
  free(cubin);
  free(log);
  if (rc == 0 && found)
    fprintf(stderr, "%s compiles for %s (%zu bytes)\n", kernel, arch->name,
            len);
}

/* The worker's own kernels compile with NVRTC for arch: the generator of
 * the shipped families' inputs, the one of every other init, and the
 * comparison of a described kernel's outputs. */
static int run_nvrtc(const char *name)
{
  const tn_arch *arch = tn_arch_find(name);
  size_t la = strlen(tn_inputs_generator_source);
  char *both;

  if (arch == NULL) {
    fprintf(stderr, "unknown architecture %s\n", name);
    return 2;
  }
  compiles(tn_inputs_generator_source, "tn_fill_random", arch);
  /* the values generator is compiled with the other, in one module */
  both = malloc(la + strlen(tn_inputs_values_source) + 1);
  CHECK(both != NULL);
  if (both) {
    memcpy(both, tn_inputs_generator_source, la);
    strcpy(both + la, tn_inputs_values_source);
    compiles(both, "tn_fill_values", arch);
    free(both);
  }
  compiles(tn_compare_source, "tn_compare", arch);
  TEST_DONE();
}

/* tn_cublas_gemm_ex(in, out) refuses the pair, and says which.  (The
 * pairs it takes need cuBLAS and a GPU: the gpu tests of a family using
 * them.) */
static void expect_refused(tn_elem_type in, tn_elem_type out)
{
  char why[512] = "", want[64];
  int rc = tn_cublas_gemm_ex(NULL, in, out, 0, 0, 16, 16, 16, 1.0f, 0, 0,
                             0.0f, 0, why, sizeof(why));
  CHECK_EQ_INT(rc, -1);
  snprintf(want, sizeof(want), "inputs %s with output %s", tn_elem_name(in),
           tn_elem_name(out));
  if (strstr(why, want) == NULL) {
    fprintf(stderr, "  %s -> %s: got '%s'\n", tn_elem_name(in),
            tn_elem_name(out), why);
    CHECK(0);
  }
}

static int run_gemm_ex(void)
{
  expect_refused(TN_ELEM_F32, TN_ELEM_BF16);
  expect_refused(TN_ELEM_F32, TN_ELEM_F16);
  expect_refused(TN_ELEM_BF16, TN_ELEM_F16);
  expect_refused(TN_ELEM_F16, TN_ELEM_BF16);
  expect_refused((tn_elem_type)7, TN_ELEM_F32);
  expect_refused(TN_ELEM_BF16, (tn_elem_type)7);
  if (tn_test_failures == 0)
    fprintf(stderr, "gemm_ex: 6 pairs refused before loading cuBLAS\n");
  TEST_DONE();
}

int main(int argc, char **argv)
{
  if (argc == 2 && strcmp(argv[1], "values") == 0)
    return run_values();
  if (argc == 3 && strcmp(argv[1], "nvrtc") == 0)
    return run_nvrtc(argv[2]);
  if (argc == 2 && strcmp(argv[1], "gemm_ex") == 0)
    return run_gemm_ex();
  if (argc == 2 && strcmp(argv[1], "fp8") == 0)
    return run_fp8();
  fprintf(stderr,
          "usage: test_elem values | test_elem fp8 | test_elem nvrtc ARCH | "
          "test_elem gemm_ex\n");
  return 2;
}

/* test_elem.c -- the element types of buffers and the values their inputs
 * hold (family.h, tn_random_elem), which the GPU's generator must write
 * and a family's check recomputes.
 *
 *   test_elem values       every type's values, exact in the type (cpu)
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
  fprintf(stderr,
          "usage: test_elem values | test_elem nvrtc ARCH | test_elem "
          "gemm_ex\n");
  return 2;
}

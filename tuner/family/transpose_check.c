/* transpose_check.c -- the transpose family's check (transpose_check.h):
 * a transpose moves bits, so every element must match exactly. */
#include <stdio.h>
#include <string.h>

#include "family/transpose_check.h"

#define BUF_IN TN_TRANSPOSE_BUF_IN
#define BUF_OUT TN_TRANSPOSE_BUF_OUT

/* The transpose moves bits: every element must match exactly. */
int tn_transpose_verify(tn_verify_env *env, char *why, size_t n)
{
  const float *in = env->host[0], *out = env->host[1];
  long long rows = env->problem->size.dims[0];
  long long cols = env->problem->size.dims[1];
  long long bad = 0, first = -1, r;

#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (r = 0; r < rows; r++) {
    long long c;
    for (c = 0; c < cols; c++)
      if (memcmp(&out[c * rows + r], &in[r * cols + c], 4) != 0)
        bad++;
  }
  if (bad == 0)
    return 0;
  for (r = 0; r < rows && first < 0; r++) {
    long long c;
    for (c = 0; c < cols; c++)
      if (memcmp(&out[c * rows + r], &in[r * cols + c], 4) != 0) {
        snprintf(why, n,
                 "%lld of %lld elements differ; first out[%lld][%lld] = %g, "
                 "expected %g",
                 bad, rows * cols, c, r, (double)out[c * rows + r],
                 (double)in[r * cols + c]);
        first = r;
        break;
      }
  }
  return 1;
}

/* The same comparison on the GPU: mismatches counted, the first (in the
 * host's order, by input index) kept; st[0] count, st[1] that index. */
const char tn_transpose_reference_source[] =
    "extern \"C\" __global__ void tn_transpose_check_init(\n"
    "    unsigned long long *st)\n"
    "{\n"
    "  st[0] = 0ULL;\n"
    "  st[1] = ~0ULL;\n"
    "}\n"
    "extern \"C\" __global__ void tn_transpose_check(const unsigned *in,\n"
    "    const unsigned *out, long long rows, long long cols,\n"
    "    unsigned long long *st)\n"
    "{\n"
    "  long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  unsigned long long bad = 0ULL, first = ~0ULL;\n"
    "  if (r >= rows)\n"
    "    return;\n"
    "  for (long long c = blockIdx.y; c < cols; c += gridDim.y)\n"
    "    if (out[c * rows + r] != in[r * cols + c]) {\n"
    "      unsigned long long i = (unsigned long long)(r * cols + c);\n"
    "      bad++;\n"
    "      first = i < first ? i : first;\n"
    "    }\n"
    "  if (bad) {\n"
    "    atomicAdd(&st[0], bad);\n"
    "    atomicMin(&st[1], first);\n"
    "  }\n"
    "}\n";

int tn_transpose_verify_device(tn_verify_env *env, char *why, size_t n)
{
  long long rows = env->problem->size.dims[0];
  long long cols = env->problem->size.dims[1];
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned long long st[2];
  long long r, c;
  float got, want;
  tn_devptr dst;
  tn_args a;

  if (env->alloc(env, sizeof(st), &dst) != 0) {
    snprintf(why, n, "transpose: no device memory for the check");
    return -1;
  }
  memset(&a, 0, sizeof(a));
  tn_args_add(&a, &dst, sizeof(dst));
  if (env->launch(env, "tn_transpose_check_init", grid, block, &a) != 0)
    goto failed;
  memset(&a, 0, sizeof(a));
  tn_args_add(&a, &env->dev[BUF_IN], sizeof(tn_devptr));
  tn_args_add(&a, &env->dev[BUF_OUT], sizeof(tn_devptr));
  tn_args_add(&a, &rows, sizeof(rows));
  tn_args_add(&a, &cols, sizeof(cols));
  tn_args_add(&a, &dst, sizeof(dst));
  block[0] = 256;
  grid[0] = (unsigned)((rows + 255) / 256);
  grid[1] = (unsigned)(cols < 64 ? cols : 64);
  if (env->launch(env, "tn_transpose_check", grid, block, &a) != 0 ||
      env->download(env, st, dst, sizeof(st)) != 0)
    goto failed;
  if (st[0] == 0)
    return 0;
  r = (long long)(st[1] / (unsigned long long)cols);
  c = (long long)(st[1] % (unsigned long long)cols);
  if (env->download(env, &got,
                    env->dev[BUF_OUT] + (tn_devptr)(c * rows + r) * 4,
                    4) != 0 ||
      env->download(env, &want,
                    env->dev[BUF_IN] + (tn_devptr)(r * cols + c) * 4, 4) != 0)
    goto failed;
  snprintf(why, n,
           "%llu of %lld elements differ; first out[%lld][%lld] = %g, "
           "expected %g",
           st[0], rows * cols, c, r, (double)got, (double)want);
  return 1;
failed:
  snprintf(why, n, "transpose: the check on the GPU failed to run");
  return -1;
}


/* transpose_check.c -- the transpose family's check (transpose_check.h):
 * a transpose moves bits, so every element, of whichever width, must
 * match exactly. */
#include <stdio.h>
#include <string.h>

#include "family/transpose_check.h"

#define BUF_IN TN_TRANSPOSE_BUF_IN
#define BUF_OUT TN_TRANSPOSE_BUF_OUT

/* "%g" of a floating element (as before other widths), its bits in hex
 * for the others (fp8 moves as bytes, whatever its format). */
static void elem_text(const void *base, size_t i, tn_elem_type t, char *out,
                      size_t n)
{
  const unsigned char *b = (const unsigned char *)base + i *
                           (size_t)tn_elem_bytes(t);
  unsigned long long bits = 0;
  int k;
  if (tn_elem_is_float(t)) {
    snprintf(out, n, "%g", tn_elem_load(base, i, t));
    return;
  }
  for (k = tn_elem_bytes(t) - 1; k >= 0; k--)
    bits = bits << 8 | b[k]; /* little-endian, as the GPU stores them */
  snprintf(out, n, "0x%0*llx", 2 * tn_elem_bytes(t), bits);
}

/* The transpose moves bits: every element must match exactly. */
int tn_transpose_verify(tn_verify_env *env, char *why, size_t n)
{
  const unsigned char *in = env->host[BUF_IN], *out = env->host[BUF_OUT];
  tn_elem_type t = env->descs[BUF_IN].elem;
  size_t eb = (size_t)tn_elem_bytes(t);
  long long rows = env->problem->size.dims[0];
  long long cols = env->problem->size.dims[1];
  long long bad = 0, first = -1, r;

#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (r = 0; r < rows; r++) {
    long long c;
    for (c = 0; c < cols; c++)
      if (memcmp(out + (size_t)(c * rows + r) * eb,
                 in + (size_t)(r * cols + c) * eb, eb) != 0)
        bad++;
  }
  if (bad == 0)
    return 0;
  for (r = 0; r < rows && first < 0; r++) {
    long long c;
    for (c = 0; c < cols; c++)
      if (memcmp(out + (size_t)(c * rows + r) * eb,
                 in + (size_t)(r * cols + c) * eb, eb) != 0) {
        char got[32], want[32];
        elem_text(out, (size_t)(c * rows + r), t, got, sizeof(got));
        elem_text(in, (size_t)(r * cols + c), t, want, sizeof(want));
        snprintf(why, n,
                 "%lld of %lld elements differ; first out[%lld][%lld] = %s, "
                 "expected %s",
                 bad, rows * cols, c, r, got, want);
        first = r;
        break;
      }
  }
  return 1;
}

/* The same comparison on the GPU, elements of `bytes` bytes compared as
 * unsigned integers of that width: mismatches counted, the first (in the
 * host's order, by input index) kept; st[0] count, st[1] that index. */
const char tn_transpose_reference_source[] =
    "extern \"C\" __global__ void tn_transpose_check_init(\n"
    "    unsigned long long *st)\n"
    "{\n"
    "  st[0] = 0ULL;\n"
    "  st[1] = ~0ULL;\n"
    "}\n"
    "template <typename T>\n"
    "__device__ void tn_transpose_compare(const T *in, const T *out,\n"
    "    long long rows, long long cols, unsigned long long *st)\n"
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
    "}\n"
    "extern \"C\" __global__ void tn_transpose_check(const void *in,\n"
    "    const void *out, long long rows, long long cols, int bytes,\n"
    "    unsigned long long *st)\n"
    "{\n"
    "  if (bytes == 1)\n"
    "    tn_transpose_compare((const unsigned char *)in,\n"
    "                         (const unsigned char *)out, rows, cols, st);\n"
    "  else if (bytes == 2)\n"
    "    tn_transpose_compare((const unsigned short *)in,\n"
    "                         (const unsigned short *)out, rows, cols, st);\n"
    "  else if (bytes == 8)\n"
    "    tn_transpose_compare((const unsigned long long *)in,\n"
    "                         (const unsigned long long *)out, rows, cols,\n"
    "                         st);\n"
    "  else\n"
    "    tn_transpose_compare((const unsigned *)in, (const unsigned *)out,\n"
    "                         rows, cols, st);\n"
    "}\n";

int tn_transpose_verify_device(tn_verify_env *env, char *why, size_t n)
{
  long long rows = env->problem->size.dims[0];
  long long cols = env->problem->size.dims[1];
  tn_elem_type t = env->descs[BUF_IN].elem;
  int bytes = tn_elem_bytes(t);
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned long long st[2];
  unsigned char got[8], want[8];
  char got_text[32], want_text[32];
  long long r, c;
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
  tn_args_add(&a, &bytes, sizeof(bytes));
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
  if (env->download(env, got,
                    env->dev[BUF_OUT] + (tn_devptr)(c * rows + r) * bytes,
                    (size_t)bytes) != 0 ||
      env->download(env, want,
                    env->dev[BUF_IN] + (tn_devptr)(r * cols + c) * bytes,
                    (size_t)bytes) != 0)
    goto failed;
  elem_text(got, 0, t, got_text, sizeof(got_text));
  elem_text(want, 0, t, want_text, sizeof(want_text));
  snprintf(why, n,
           "%llu of %lld elements differ; first out[%lld][%lld] = %s, "
           "expected %s",
           st[0], rows * cols, c, r, got_text, want_text);
  return 1;
failed:
  snprintf(why, n, "transpose: the check on the GPU failed to run");
  return -1;
}

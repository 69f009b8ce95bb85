/* transpose_check.c -- the transpose family's check (transpose_check.h):
 * a transpose moves bits, so every element, of whichever width, must
 * match exactly. */
#include <stdio.h>
#include <string.h>

#include "family/transpose_check.h"
#include "family/transpose_shape.h"

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

/* "out[c][r]", or with a batch "out[b][c][r]" (b: the matrix, the
 * leading dimensions flattened). */
static void where_text(long long batch, long long b, long long c,
                       long long r, char *out, size_t n)
{
  if (batch > 1)
    snprintf(out, n, "out[%lld][%lld][%lld]", b, c, r);
  else
    snprintf(out, n, "out[%lld][%lld]", c, r);
}

/* The transpose moves bits: every element must match exactly.  Row g of
 * the batch's rows is row g % rows of matrix g / rows; matrix b starts at
 * element b * rows * cols in both buffers. */
int tn_transpose_verify(tn_verify_env *env, char *why, size_t n)
{
  const unsigned char *in = env->host[BUF_IN], *out = env->host[BUF_OUT];
  tn_elem_type t = env->descs[BUF_IN].elem;
  size_t eb = (size_t)tn_elem_bytes(t);
  tn_transpose_dims m;
  long long rows, cols, bad = 0, first = -1, g;

  tn_transpose_dims_of(env->problem, &m);
  rows = m.rows;
  cols = m.cols;
#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (g = 0; g < m.batch * rows; g++) {
    long long c, base = g / rows * rows * cols, r = g % rows;
    for (c = 0; c < cols; c++)
      if (memcmp(out + (size_t)(base + c * rows + r) * eb,
                 in + (size_t)(g * cols + c) * eb, eb) != 0)
        bad++;
  }
  if (bad == 0)
    return 0;
  for (g = 0; g < m.batch * rows && first < 0; g++) {
    long long c, base = g / rows * rows * cols, r = g % rows;
    for (c = 0; c < cols; c++)
      if (memcmp(out + (size_t)(base + c * rows + r) * eb,
                 in + (size_t)(g * cols + c) * eb, eb) != 0) {
        char got[32], want[32], at[96];
        elem_text(out, (size_t)(base + c * rows + r), t, got, sizeof(got));
        elem_text(in, (size_t)(g * cols + c), t, want, sizeof(want));
        where_text(m.batch, g / rows, c, r, at, sizeof(at));
        snprintf(why, n,
                 "%lld of %lld elements differ; first %s = %s, expected %s",
                 bad, m.batch * rows * cols, at, got, want);
        first = g;
        break;
      }
  }
  return 1;
}

/* The same comparison on the GPU, elements of `bytes` bytes compared as
 * unsigned integers of that width: mismatches counted, the first (in the
 * host's order, by input index) kept; st[0] count, st[1] that index.
 * Thread row g of the batch's rows (g < batch * rows) is row g % rows of
 * matrix g / rows. */
const char tn_transpose_reference_source[] =
    "extern \"C\" __global__ void tn_transpose_check_init(\n"
    "    unsigned long long *st)\n"
    "{\n"
    "  st[0] = 0ULL;\n"
    "  st[1] = ~0ULL;\n"
    "}\n"
    "template <typename T>\n"
    "__device__ void tn_transpose_compare(const T *in, const T *out,\n"
    "    long long rows, long long cols, long long batch,\n"
    "    unsigned long long *st)\n"
    "{\n"
    "  long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  unsigned long long bad = 0ULL, first = ~0ULL;\n"
    "  if (g >= batch * rows)\n"
    "    return;\n"
    "  const long long r = g % rows, base = g / rows * rows * cols;\n"
    "  for (long long c = blockIdx.y; c < cols; c += gridDim.y)\n"
    "    if (out[base + c * rows + r] != in[g * cols + c]) {\n"
    "      unsigned long long i = (unsigned long long)(g * cols + c);\n"
    "      bad++;\n"
    "      first = i < first ? i : first;\n"
    "    }\n"
    "  if (bad) {\n"
    "    atomicAdd(&st[0], bad);\n"
    "    atomicMin(&st[1], first);\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void tn_transpose_check(const void *in,\n"
    "    const void *out, long long rows, long long cols, long long batch,\n"
    "    int bytes, unsigned long long *st)\n"
    "{\n"
    "  if (bytes == 1)\n"
    "    tn_transpose_compare((const unsigned char *)in,\n"
    "                         (const unsigned char *)out, rows, cols, batch,\n"
    "                         st);\n"
    "  else if (bytes == 2)\n"
    "    tn_transpose_compare((const unsigned short *)in,\n"
    "                         (const unsigned short *)out, rows, cols, batch,\n"
    "                         st);\n"
    "  else if (bytes == 8)\n"
    "    tn_transpose_compare((const unsigned long long *)in,\n"
    "                         (const unsigned long long *)out, rows, cols,\n"
    "                         batch, st);\n"
    "  else\n"
    "    tn_transpose_compare((const unsigned *)in, (const unsigned *)out,\n"
    "                         rows, cols, batch, st);\n"
    "}\n";

int tn_transpose_verify_device(tn_verify_env *env, char *why, size_t n)
{
  tn_elem_type t = env->descs[BUF_IN].elem;
  int bytes = tn_elem_bytes(t);
  tn_transpose_dims m;
  long long rows, cols, g, base;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned long long st[2];
  unsigned char got[8], want[8];
  char got_text[32], want_text[32], at[96];
  long long r, c;
  tn_devptr dst;
  tn_args a;

  tn_transpose_dims_of(env->problem, &m);
  rows = m.rows;
  cols = m.cols;

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
  tn_args_add(&a, &m.batch, sizeof(m.batch));
  tn_args_add(&a, &bytes, sizeof(bytes));
  tn_args_add(&a, &dst, sizeof(dst));
  block[0] = 256;
  grid[0] = (unsigned)((m.batch * rows + 255) / 256);
  grid[1] = (unsigned)(cols < 64 ? cols : 64);
  if (env->launch(env, "tn_transpose_check", grid, block, &a) != 0 ||
      env->download(env, st, dst, sizeof(st)) != 0)
    goto failed;
  if (st[0] == 0)
    return 0;
  g = (long long)(st[1] / (unsigned long long)cols);
  c = (long long)(st[1] % (unsigned long long)cols);
  r = g % rows;
  base = g / rows * rows * cols;
  if (env->download(env, got,
                    env->dev[BUF_OUT] +
                        (tn_devptr)(base + c * rows + r) * bytes,
                    (size_t)bytes) != 0 ||
      env->download(env, want,
                    env->dev[BUF_IN] + (tn_devptr)(g * cols + c) * bytes,
                    (size_t)bytes) != 0)
    goto failed;
  elem_text(got, 0, t, got_text, sizeof(got_text));
  elem_text(want, 0, t, want_text, sizeof(want_text));
  where_text(m.batch, g / rows, c, r, at, sizeof(at));
  snprintf(why, n, "%llu of %lld elements differ; first %s = %s, expected %s",
           st[0], m.batch * rows * cols, at, got_text, want_text);
  return 1;
failed:
  snprintf(why, n, "transpose: the check on the GPU failed to run");
  return -1;
}

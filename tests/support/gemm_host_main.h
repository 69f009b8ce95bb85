/* gemm_host_main.h -- the host program of the SIMT GEMM's emulation test:
 * included after a rendered templates/gemm.cu and tests/support/
 * cuda_host.h (with __shared__ as static: the kernel's shared array is
 * one for all the threads), it runs the kernel on
 *
 *   prog M N K GRID_X GRID_Y BLOCK_X BLOCK_Y [MAP MAP] [TRACE]
 *
 * (MAP, pipeline 3's two tensor maps, each as the family describes it:
 * BUFFER DIM0 DIM1 STRIDE BOX0 BOX1 SWIZZLE, buffer 0 A and 1 B; the
 * copy engine is tests/support/tma_host.h's)
 * block by block (x fastest), each block's threads as OS threads, on
 * operands of values in [-1, 1) and a C it reads (alpha 0.75, beta 0.5),
 * and compares every element of C with a double-precision product,
 * within twice the fp32 sum's bound: (K + 2) * 2^-23 * (|alpha| sum |a||b|
 * + |beta c|).  On the
 * host the cp.async of pipeline 2 has no form: its tiles travel as
 * pipeline 1's (the same shared stores, which the plan's comparison
 * takes cp.async as).  The shared-memory accesses: host_trace.h.  Exit 0
 * equal, 1 with the first difference, 2 on bad arguments or a trace not
 * written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_trace.h"

static_assert(!TN_DYNAMIC_SMEM,
              "gemm_host_main.h takes a static shared array only");

/* alpha: not 1, so that a path that drops or doubles it shows */
#define TN_HOST_ALPHA 0.75f

struct tn_host_args {
  struct tn_host_cuda_thread self; /* first: host_trace.h walks it */
  const float *a, *b;
  float *c;
  int m, n, k;
};

#if TN_PIPELINE == 3
#define TN_HOST_MAP_ARGS 14
static tn_tensor_map tn_host_maps[2];

/* The maps from argv[0..13] over a and b; 0, or 2 if they are not two
 * maps of floats, A's then B's. */
static int tn_host_read_maps(char **argv, const float *a, const float *b)
{
  for (int i = 0; i < 2; i++) {
    char **v = argv + 7 * i;
    tn_tensor_map *m = &tn_host_maps[i];
    if (atoi(v[0]) != i)
      return 2;
    m->base = i ? (const void *)b : (const void *)a;
    m->elem_bytes = 4;
    m->dims[0] = strtoull(v[1], NULL, 10);
    m->dims[1] = strtoull(v[2], NULL, 10);
    m->stride = strtoull(v[3], NULL, 10);
    m->box[0] = (unsigned)atoi(v[4]);
    m->box[1] = (unsigned)atoi(v[5]);
    m->swizzle = (unsigned)atoi(v[6]);
  }
  return 0;
}
#else
#define TN_HOST_MAP_ARGS 0
#endif

/* A value in [-1, 1) of a multiplicative hash of i and the seed. */
static float tn_host_value(size_t i, unsigned seed)
{
  unsigned x = (unsigned)(i * 2654435761u) ^ (seed * 0x9e3779b9u);
  x ^= x >> 15;
  x *= 0x2c1b3c6du;
  x ^= x >> 12;
  return (float)((double)(x >> 8) / (double)(1u << 23) - 1.0);
}

static void tn_host_kernel(void *arg)
{
  struct tn_host_args *a = (struct tn_host_args *)arg;
  gemm(
#if TN_PIPELINE == 3
      tn_host_maps[0], tn_host_maps[1],
#endif
      a->a, a->b, a->c, a->m, a->n, a->k, TN_HOST_ALPHA, 0.5f);
}

/* A CUDA thread: every block in turn (x fastest). */
static void *tn_host_thread(void *arg)
{
  tn_host_each_block(&((struct tn_host_args *)arg)->self, tn_host_kernel,
                     arg);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc != 8 + TN_HOST_MAP_ARGS && argc != 9 + TN_HOST_MAP_ARGS)
    return 2;
  const int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
  const unsigned gx = (unsigned)atoi(argv[4]), gy = (unsigned)atoi(argv[5]);
  const unsigned bx = (unsigned)atoi(argv[6]), by = (unsigned)atoi(argv[7]);
  if (m < 1 || n < 1 || k < 1 || gx < 1 || gy < 1 || bx < 1 || by < 1 ||
      bx * by > 1024)
    return 2;
  const unsigned nt = bx * by;
  float *a = (float *)malloc(sizeof(float) * (size_t)m * k);
  float *b = (float *)malloc(sizeof(float) * (size_t)k * n);
  float *c = (float *)malloc(sizeof(float) * (size_t)m * n);
  float *c0 = (float *)malloc(sizeof(float) * (size_t)m * n);
  struct tn_host_args *args =
      (struct tn_host_args *)calloc(nt, sizeof(*args));
  if (!a || !b || !c || !c0 || !args)
    return 2;
  for (size_t i = 0; i < (size_t)m * k; i++)
    a[i] = tn_host_value(i, 1);
  for (size_t i = 0; i < (size_t)k * n; i++)
    b[i] = tn_host_value(i, 2);
  for (size_t i = 0; i < (size_t)m * n; i++)
    c[i] = c0[i] = tn_host_value(i, 3);
#if TN_PIPELINE == 3
  if (tn_host_read_maps(argv + 8, a, b) != 0)
    return 2;
#endif
  gridDim = dim3{gx, gy, 1};
  blockDim = dim3{bx, by, 1};
  tn_host_smem_bytes = sizeof(float) * TN_SMEM_FLOATS;
  for (unsigned t = 0; t < nt; t++)
    args[t] = tn_host_args{tn_host_cuda_thread{}, a, b, c, m, n, k};
  if (tn_host_run_threads(args, sizeof(*args), tn_host_thread) != 0)
    return 2;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double sum = 0, mag = 0;
      for (int q = 0; q < k; q++) {
        /* op(A)[i][q], op(B)[q][j] of A and B as stored */
        double x = TN_TRANS_A ? a[(size_t)q * m + i] : a[(size_t)i * k + q];
        double y = TN_TRANS_B ? b[(size_t)j * k + q] : b[(size_t)q * n + j];
        sum += x * y;
        mag += fabs(x * y);
      }
      const double old = c0[(size_t)i * n + j];
      const double want = TN_HOST_ALPHA * sum + 0.5 * old;
      const double bound = (k + 2) * ldexp(1.0, -23) *
                           (TN_HOST_ALPHA * mag + 0.5 * fabs(old));
      const double got = c[(size_t)i * n + j];
      if (!(fabs(got - want) <= bound)) {
        printf("C[%d][%d] = %.9g, not %.9g (bound %.3g)\n", i, j, got, want,
               bound);
        return 1;
      }
    }
  const int rc = tn_host_finish(
      args, sizeof(*args),
      argc == 9 + TN_HOST_MAP_ARGS ? argv[8 + TN_HOST_MAP_ARGS] : NULL);
  if (rc != 0)
    return rc;
  printf("equal: %d x %d x %d, %u x %u blocks of %u x %u threads\n", m, n, k,
         gx, gy, bx, by);
  free(a);
  free(b);
  free(c);
  free(c0);
  free(args);
  return 0;
}

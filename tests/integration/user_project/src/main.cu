/* main.cu -- runs the tuned transpose and GEMM on the current GPU and
 * checks them.
 *
 * For each kernel: look up this device's entry in the dispatch header
 * (<name>_lookup(name, major, minor)); ask the kernel what it was compiled
 * with (cudaFuncGetAttributes' ptxVersion, and the kernel's own TN_
 * macros); check that the header's run-time answer for that code,
 * <name>_lookup(NULL, ptxVersion / 10, ptxVersion % 10), is what the code
 * holds; compute the launch shape from it and check it against the
 * compiled kernel's attributes; then launch on a few problems, odd sizes
 * among them, and check the results against a reference on the host: the
 * transpose bit for bit, the GEMM within the error bound of fp32
 * accumulation.  Prints a report; exits 0 if every check passed, 1 if not
 * (or on any CUDA error). */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "common.h"
#include "gemm_kernel.h"
#include "transpose_kernel.h"

/* configs/gemm.cfg, which the GEMM results come from, tunes
 * C = 1.0 * A B + 0.0 * C; the kernel takes any alpha and beta. */
#define TUNED_ALPHA 1.0f
#define TUNED_BETA 0.0f

static int n_checks, n_failed;

/* Counts and prints one check. */
static void check(int ok, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
  va_list ap;
  n_checks++;
  if (!ok)
    n_failed++;
  printf("  %s  ", ok ? "PASS" : "FAIL");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

/* The architecture of an entry (90 for sm_90, 0: the default). */
static int entry_arch(int cc_major, int cc_minor)
{
  return cc_major * 10 + cc_minor;
}

static void print_entry(const char *what, const char *device_name,
                        int cc_major, int cc_minor, const char *source,
                        const char *device, const char *date,
                        const char *params)
{
  printf("  %-22s ", what);
  if (device_name != NULL)
    printf("device \"%s\" (sm_%d%d)", device_name, cc_major, cc_minor);
  else if (strcmp(source, "default") == 0)
    printf("the portable default");
  else
    printf("sm_%d%d", cc_major, cc_minor);
  printf(", %s", source);
  if (device[0] != '\0')
    printf(" on %s", device);
  if (date[0] != '\0')
    printf(" %s", date);
  printf("\n  %-22s %s\n", "", params);
}

static void print_launch(const launch_shape *s)
{
  printf("grid %ux%ux%u, block %ux%ux%u, smem %zu B static + %zu B dynamic",
         s->grid.x, s->grid.y, s->grid.z, s->block.x, s->block.y,
         s->block.z, s->smem_static, s->smem_dynamic);
}

static void *host_alloc(size_t bytes)
{
  void *p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

/* ---- transpose ---- */

static void transpose_case(const transpose_config *c, int rows, int cols)
{
  size_t n = (size_t)rows * cols, r, k, bad = 0;
  float *in = (float *)host_alloc(n * sizeof(float));
  float *out = (float *)host_alloc(n * sizeof(float));
  float *d_in, *d_out;
  launch_shape s;

  /* distinct values (exact in fp32 below 2^24), so a misplaced element
   * shows; the output starts as NaN, so one not written shows */
  for (k = 0; k < n; k++)
    in[k] = (float)(k % (1u << 24)) - 8388608.0f;
  CK(cudaMalloc(&d_in, n * sizeof(float)));
  CK(cudaMalloc(&d_out, n * sizeof(float)));
  CK(cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemset(d_out, 0xff, n * sizeof(float)));
  transpose_shape(c, rows, cols, &s);
  transpose_run(&s, d_in, d_out, rows, cols);
  CK(cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (r = 0; r < (size_t)rows; r++)
    for (k = 0; k < (size_t)cols; k++)
      if (memcmp(&out[k * rows + r], &in[r * cols + k], sizeof(float)) != 0)
        bad++;
  printf("  %d x %d: ", rows, cols);
  print_launch(&s);
  printf("\n");
  check(bad == 0, "%d x %d: %zu of %zu elements differ (exact check)", rows,
        cols, bad, n);
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  free(in);
  free(out);
}

static void transpose_part(const cudaDeviceProp *prop)
{
  static const int sizes[][2] = {{1000, 1500}, {1001, 1503}, {1, 77},
                                 {4096, 4096}};
  const transpose_config *want, *have;
  transpose_built b;
  cudaFuncAttributes attr;
  launch_shape s;
  size_t i;

  printf("\ntranspose\n");
  want = transpose_lookup(prop->name, prop->major, prop->minor);
  print_entry("lookup(this device)", want->device_name, want->cc_major,
              want->cc_minor, want->source, want->device, want->date,
              want->params);
  transpose_query(&b, &attr);
  have = transpose_lookup(NULL, attr.ptxVersion / 10, attr.ptxVersion % 10);
  printf("  %-22s ptxVersion %d, binaryVersion %d: lookup(NULL, %d, %d)\n",
         "compiled in", attr.ptxVersion, attr.binaryVersion,
         attr.ptxVersion / 10, attr.ptxVersion % 10);
  print_entry("", have->device_name, have->cc_major, have->cc_minor,
              have->source, have->device, have->date, have->params);
  printf("  %-22s __CUDA_ARCH__ %d, TRANSPOSE_CONFIG_ARCH %d: tile=%d "
         "rows_per_thread=%d vec=%d pad=%d swizzle=<%d,%d,%d> group=%d\n",
         "the kernel says", b.cuda_arch, b.config_arch, b.tile,
         b.rows_per_thread, b.vec, b.pad, b.swizzle_b, b.swizzle_m,
         b.swizzle_s, b.group);
  printf("  %-22s %d registers, %zu B static shared memory, up to %d "
         "threads\n",
         "attributes", attr.numRegs, attr.sharedSizeBytes,
         attr.maxThreadsPerBlock);

  check(b.cuda_arch == attr.ptxVersion * 10,
        "the code that runs is the ptxVersion's (__CUDA_ARCH__ %d)",
        b.cuda_arch);
  check(b.config_arch == entry_arch(have->cc_major, have->cc_minor),
        "the header chose the same entry at compile time (%d) as the "
        "lookup at run time (%d)",
        b.config_arch, entry_arch(have->cc_major, have->cc_minor));
  check(b.tile == have->tile && b.rows_per_thread == have->rows_per_thread &&
            b.vec == have->vec && b.pad == have->pad &&
            b.swizzle_b == have->swizzle_b && b.swizzle_m == have->swizzle_m &&
            b.swizzle_s == have->swizzle_s && b.group == have->group,
        "the parameters compiled in are the lookup's");
  if (strcmp(want->params, have->params) != 0)
    printf("  note  this device's entry differs from the one compiled in "
           "(a device entry, or an architecture not built)\n");
  transpose_shape(have, 4096, 4096, &s);
  check(attr.sharedSizeBytes == s.smem_static,
        "static shared memory: the kernel's %zu B, computed %zu B",
        attr.sharedSizeBytes, s.smem_static);
  check(attr.maxThreadsPerBlock >= s.threads,
        "%d threads per block, the kernel allows %d", s.threads,
        attr.maxThreadsPerBlock);
  for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    transpose_case(have, sizes[i][0], sizes[i][1]);
}

/* ---- GEMM ---- */

/* A deterministic value in [-1, 1). */
static float lcg(unsigned *state)
{
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / 8388608.0f - 1.0f;
}

static void gemm_case(const gemm_config *c, const gemm_built *b, int M,
                      int N, int K, float alpha, float beta)
{
  size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N, i;
  float *A = (float *)host_alloc(na * sizeof(float));
  float *B = (float *)host_alloc(nb * sizeof(float));
  float *C0 = (float *)host_alloc(nc * sizeof(float));
  float *C = (float *)host_alloc(nc * sizeof(float));
  float *dA, *dB, *dC;
  double max_err = 0.0, max_ratio = 0.0;
  size_t bad = 0;
  unsigned seed = 12345u + (unsigned)(M * 7 + N * 3 + K);
  launch_shape s;
  int m, n, k;

  for (i = 0; i < na; i++)
    A[i] = lcg(&seed);
  for (i = 0; i < nb; i++)
    B[i] = lcg(&seed);
  for (i = 0; i < nc; i++)
    C0[i] = lcg(&seed);
  CK(cudaMalloc(&dA, na * sizeof(float)));
  CK(cudaMalloc(&dB, nb * sizeof(float)));
  CK(cudaMalloc(&dC, nc * sizeof(float)));
  CK(cudaMemcpy(dA, A, na * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, B, nb * sizeof(float), cudaMemcpyHostToDevice));
  if (beta != 0.0f)
    CK(cudaMemcpy(dC, C0, nc * sizeof(float), cudaMemcpyHostToDevice));
  else /* beta == 0 must not read C: NaN there would show */
    CK(cudaMemset(dC, 0xff, nc * sizeof(float)));
  gemm_shape(c, M, N, K, &s);
  gemm_run(&s, dA, dB, dC, M, N, K, alpha, beta);
  CK(cudaMemcpy(C, dC, nc * sizeof(float), cudaMemcpyDeviceToHost));

  /* |c - ref| <= (K + 2) 2^-24 (|alpha| sum |a||b| + |beta||c0|): the
   * bound of fp32 accumulation in any order (tuner/family/gemm_check.c) */
  for (m = 0; m < M; m++)
    for (n = 0; n < N; n++) {
      double ref = 0.0, absref = 0.0, err, bound;
      for (k = 0; k < K; k++) {
        double a = b->trans_a ? A[(size_t)k * M + m] : A[(size_t)m * K + k];
        double v = b->trans_b ? B[(size_t)n * K + k] : B[(size_t)k * N + n];
        ref += a * v;
        absref += fabs(a * v);
      }
      ref *= alpha;
      absref *= fabs(alpha);
      if (beta != 0.0f) {
        ref += (double)beta * C0[(size_t)m * N + n];
        absref += fabs((double)beta * C0[(size_t)m * N + n]);
      }
      err = fabs((double)C[(size_t)m * N + n] - ref);
      bound = (K + 2) * ldexp(1.0, -24) * absref;
      if (!(err <= bound))
        bad++;
      /* a NaN, once seen, stays the maximum */
      if (isnan(err) || err > max_err)
        max_err = err;
      if (isnan(err) || (bound > 0.0 && err / bound > max_ratio))
        max_ratio = isnan(err) ? err : err / bound;
    }
  printf("  %d x %d x %d, alpha %g, beta %g: ", M, N, K, alpha, beta);
  print_launch(&s);
  printf("\n");
  check(bad == 0,
        "%d x %d x %d: max error %.3g (%.3g of the bound); %zu of %zu "
        "elements outside it",
        M, N, K, max_err, max_ratio, bad, nc);
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  CK(cudaFree(dC));
  free(A);
  free(B);
  free(C0);
  free(C);
}

static void gemm_part(const cudaDeviceProp *prop)
{
  const gemm_config *want, *have;
  gemm_built b;
  cudaFuncAttributes attr;
  launch_shape s;

  printf("\ngemm\n");
  want = gemm_lookup(prop->name, prop->major, prop->minor);
  print_entry("lookup(this device)", want->device_name, want->cc_major,
              want->cc_minor, want->source, want->device, want->date,
              want->params);
  gemm_query(&b, &attr);
  have = gemm_lookup(NULL, attr.ptxVersion / 10, attr.ptxVersion % 10);
  printf("  %-22s ptxVersion %d, binaryVersion %d: lookup(NULL, %d, %d)\n",
         "compiled in", attr.ptxVersion, attr.binaryVersion,
         attr.ptxVersion / 10, attr.ptxVersion % 10);
  print_entry("", have->device_name, have->cc_major, have->cc_minor,
              have->source, have->device, have->date, have->params);
  printf("  %-22s __CUDA_ARCH__ %d, GEMM_CONFIG_ARCH %d: kernel=%d bm=%d "
         "bn=%d bk=%d tm=%d tn=%d lanes_m=%d a_kmajor=%d b_kmajor=%d "
         "pipeline=%d min_blocks=%d pad_a=%d pad_b=%d swizzle_a=<%d,%d,%d> "
         "swizzle_b=<%d,%d,%d>\n",
         "the kernel says", b.cuda_arch, b.config_arch, b.kernel, b.bm, b.bn,
         b.bk, b.tm, b.tn, b.lanes_m, b.a_kmajor, b.b_kmajor, b.pipeline,
         b.min_blocks, b.pad_a, b.pad_b, b.swizzle_a_b, b.swizzle_a_m,
         b.swizzle_a_s, b.swizzle_b_b, b.swizzle_b_m, b.swizzle_b_s);
  printf("  %-22s trans_a=%d trans_b=%d threads=%d dynamic_smem=%d\n", "",
         b.trans_a, b.trans_b, b.threads, b.dynamic_smem);
  printf("  %-22s %d registers, %zu B static shared memory, up to %d "
         "threads\n",
         "attributes", attr.numRegs, attr.sharedSizeBytes,
         attr.maxThreadsPerBlock);

  check(b.cuda_arch == attr.ptxVersion * 10,
        "the code that runs is the ptxVersion's (__CUDA_ARCH__ %d)",
        b.cuda_arch);
  check(b.config_arch == entry_arch(have->cc_major, have->cc_minor),
        "the header chose the same entry at compile time (%d) as the "
        "lookup at run time (%d)",
        b.config_arch, entry_arch(have->cc_major, have->cc_minor));
  check(b.kernel == have->kernel && b.bm == have->bm && b.bn == have->bn &&
            b.bk == have->bk && b.tm == have->tm && b.tn == have->tn &&
            b.lanes_m == have->lanes_m && b.a_kmajor == have->a_kmajor &&
            b.b_kmajor == have->b_kmajor && b.pipeline == have->pipeline &&
            b.min_blocks == have->min_blocks && b.pad_a == have->pad_a &&
            b.pad_b == have->pad_b && b.swizzle_a_b == have->swizzle_a_b &&
            b.swizzle_a_m == have->swizzle_a_m &&
            b.swizzle_a_s == have->swizzle_a_s &&
            b.swizzle_b_b == have->swizzle_b_b &&
            b.swizzle_b_m == have->swizzle_b_m &&
            b.swizzle_b_s == have->swizzle_b_s,
        "the parameters compiled in are the lookup's");
  if (strcmp(want->params, have->params) != 0)
    printf("  note  this device's entry differs from the one compiled in "
           "(a device entry, or an architecture not built)\n");
  gemm_shape(have, 512, 512, 512, &s);
  check(b.threads == s.threads && b.dynamic_smem == (s.smem_dynamic > 0),
        "the kernel's %d threads, %s shared memory; computed %d, %s",
        b.threads, b.dynamic_smem ? "dynamic" : "static", s.threads,
        s.smem_dynamic > 0 ? "dynamic" : "static");
  check(attr.sharedSizeBytes == s.smem_static,
        "static shared memory: the kernel's %zu B, computed %zu B",
        attr.sharedSizeBytes, s.smem_static);
  check(attr.maxThreadsPerBlock >= s.threads,
        "%d threads per block, the kernel allows %d", s.threads,
        attr.maxThreadsPerBlock);
  gemm_case(have, &b, 257, 130, 70, TUNED_ALPHA, TUNED_BETA);
  gemm_case(have, &b, 512, 512, 512, TUNED_ALPHA, TUNED_BETA);
  gemm_case(have, &b, 129, 515, 33, 0.5f, -2.0f); /* reads C */
}

int main(void)
{
  cudaDeviceProp prop;
  int dev, rt, drv;

  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&prop, dev));
  CK(cudaRuntimeGetVersion(&rt));
  CK(cudaDriverGetVersion(&drv));
  printf("device %d: %s, compute capability %d.%d, %d SMs; CUDA runtime "
         "%d.%d, driver %d.%d\n",
         dev, prop.name, prop.major, prop.minor, prop.multiProcessorCount,
         rt / 1000, rt % 1000 / 10, drv / 1000, drv % 1000 / 10);
  transpose_part(&prop);
  gemm_part(&prop);
  printf("\n%s: %d of %d checks failed\n", n_failed ? "FAIL" : "PASS",
         n_failed, n_checks);
  return n_failed ? 1 : 0;
}

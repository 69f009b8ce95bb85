/* gemm_check.c -- the GEMM families' verification: a fp64 reference on the
 * GPU (cuBLAS DGEMM of the widened operands where there is cuBLAS, else a
 * kernel of its own), itself checked against the host at 256 positions,
 * and the error bound of the accumulation the kernels do
 * (family/gemm_ref.h).  The fp32
 * family (gemm.c) and the tensor-core one (gemm_tc.c) share it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family/gemm_ref.h"

/* The reference kernels.  tn_gemm_ref: fp64 sums of a * b and |a| * |b|
 * in k order (exact products, so the host can reproduce them), ref and
 * absref per element, and the comparison with the candidate's C on the
 * spot.  tn_gemm_widen and tn_gemm_judge: the same, with the sums made by
 * DGEMM between them.  Each block of
 * 16 x 16 threads does a 64 x 64 tile of C (4 x 4 per thread) and writes 6
 * doubles: bad elements, the worst error / bound, its index, ref, bound
 * and c there.  ref[] keeps every reference value for the host's check. */
#define REF_TILE 64
#define REF_STATS 6
const char tn_gemm_reference_source[] =
    "#define RT 16\n"
    "#define RW 4\n"
    "#define RB (RT * RW)\n"
    "#define RK 16\n"
    "/* element i of a buffer of tn_elem_type t */\n"
    "__device__ __forceinline__ double tn_elem(const void *p, size_t i,\n"
    "                                          int t)\n"
    "{\n"
    "  if (t == 0)\n"
    "    return ((const float *)p)[i];\n"
    "  if (t == 12 || t == 13) {\n"
    "    /* e4m3 (12), e5m2 (13): tn_fp8_decode of family/elem.c */\n"
    "    unsigned b = ((const unsigned char *)p)[i];\n"
    "    int mb = t == 12 ? 3 : 2, bias = t == 12 ? 7 : 15;\n"
    "    int top = (1 << (7 - mb)) - 1, e = (b >> mb) & top;\n"
    "    int m = b & ((1 << mb) - 1);\n"
    "    double v;\n"
    "    if (t == 13 && e == top)\n"
    "      v = m ? __longlong_as_double(0x7ff8000000000000LL)\n"
    "            : __longlong_as_double(0x7ff0000000000000LL);\n"
    "    else if (t == 12 && e == top && m == 7)\n"
    "      v = __longlong_as_double(0x7ff8000000000000LL);\n"
    "    else if (e == 0)\n"
    "      v = ldexp((double)m, 1 - bias - mb);\n"
    "    else\n"
    "      v = ldexp((double)(m | 1 << mb), e - bias - mb);\n"
    "    return (b & 0x80) ? -v : v;\n"
    "  }\n"
    "  unsigned short h = ((const unsigned short *)p)[i];\n"
    "  if (t == 1)\n"
    "    return __uint_as_float((unsigned)h << 16);\n"
    "  float f;\n"
    "  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n"
    "  return f;\n"
    "}\n"
    "/* Judges this thread's RW x RW elements of the block's 64 x 64 tile\n"
    " * from their sums s (of a * b) and u (of |a| * |b|): writes ref and the\n"
    " * block's stats.  Every thread of the block calls it. */\n"
    "__device__ void tn_ref_judge(const double (*s)[RW], const double (*u)[RW],\n"
    "                             const void *C0, const void *C, double *ref,\n"
    "                             double *stats, int M, int N, int K,\n"
    "                             double alpha, double beta, int out_type,\n"
    "                             double rel, double rel_far,\n"
    "                             double exact_below)\n"
    "{\n"
    "  __shared__ double r_bad[RT * RT], r_ratio[RT * RT], r_idx[RT * RT];\n"
    "  __shared__ double r_ref[RT * RT], r_tol[RT * RT], r_c[RT * RT];\n"
    "  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * RT + tx;\n"
    "  const int m0 = blockIdx.y * RB, n0 = blockIdx.x * RB;\n"
    "  double bad = 0.0, worst = -1.0, widx = -1.0, wref = 0.0, wtol = 0.0;\n"
    "  double wc = 0.0;\n"
    "  const double inf = __longlong_as_double(0x7ff0000000000000LL);\n"
    "  for (int i = 0; i < RW; i++)\n"
    "    for (int j = 0; j < RW; j++) {\n"
    "      int m = m0 + ty + RT * i, n = n0 + tx + RT * j;\n"
    "      if (m >= M || n >= N)\n"
    "        continue;\n"
    "      size_t idx = (size_t)m * N + n;\n"
    "      double c0 = beta != 0.0 ? tn_elem(C0, idx, out_type) : 0.0;\n"
    "      double r = alpha * s[i][j] + beta * c0;\n"
    "      double tol = (rel + (u[i][j] >= exact_below ? rel_far : 0.0)) *\n"
    "                       (fabs(alpha) * u[i][j] + fabs(beta) * fabs(c0))\n"
    "                   + 1e-30;\n"
    "      double c = tn_elem(C, idx, out_type), err = fabs(c - r);\n"
    "      double ratio = err <= tol ? err / tol : inf;\n"
    "      if (!(err <= tol)) {\n"
    "        bad += 1.0;\n"
    "        if (err == err && err < inf)\n"
    "          ratio = err / tol;\n"
    "      }\n"
    "      ref[idx] = r;\n"
    "      if (ratio > worst) {\n"
    "        worst = ratio;\n"
    "        widx = (double)idx;\n"
    "        wref = r;\n"
    "        wtol = tol;\n"
    "        wc = c;\n"
    "      }\n"
    "    }\n"
    "  r_bad[t] = bad;\n"
    "  r_ratio[t] = worst;\n"
    "  r_idx[t] = widx;\n"
    "  r_ref[t] = wref;\n"
    "  r_tol[t] = wtol;\n"
    "  r_c[t] = wc;\n"
    "  __syncthreads();\n"
    "  for (int h = RT * RT / 2; h > 0; h /= 2) {\n"
    "    if (t < h) {\n"
    "      r_bad[t] += r_bad[t + h];\n"
    "      if (r_ratio[t + h] > r_ratio[t]) {\n"
    "        r_ratio[t] = r_ratio[t + h];\n"
    "        r_idx[t] = r_idx[t + h];\n"
    "        r_ref[t] = r_ref[t + h];\n"
    "        r_tol[t] = r_tol[t + h];\n"
    "        r_c[t] = r_c[t + h];\n"
    "      }\n"
    "    }\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (t == 0) {\n"
    "    double *o = stats + 6 * ((size_t)blockIdx.y * gridDim.x +\n"
    "                             blockIdx.x);\n"
    "    o[0] = r_bad[0];\n"
    "    o[1] = r_ratio[0];\n"
    "    o[2] = r_idx[0];\n"
    "    o[3] = r_ref[0];\n"
    "    o[4] = r_tol[0];\n"
    "    o[5] = r_c[0];\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void __launch_bounds__(RT * RT)\n"
    "tn_gemm_ref(const void *A, const void *B, const void *C0,\n"
    "            const void *C, double *ref, double *stats, int M, int N,\n"
    "            int K, int trans_a, int trans_b, double alpha,\n"
    "            double beta, int in_type, int out_type, double rel,\n"
    "            double rel_far, double exact_below)\n"
    "{\n"
    "  __shared__ double sa[RK][RB + 1], sb[RK][RB + 1];\n"
    "  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * RT + tx;\n"
    "  const int m0 = blockIdx.y * RB, n0 = blockIdx.x * RB;\n"
    "  double s[RW][RW], u[RW][RW];\n"
    "  for (int i = 0; i < RW; i++)\n"
    "    for (int j = 0; j < RW; j++)\n"
    "      s[i][j] = u[i][j] = 0.0;\n"
    "  for (int k0 = 0; k0 < K; k0 += RK) {\n"
    "    for (int e = t; e < RB * RK; e += RT * RT) {\n"
    "      int am = m0 + e / RK, ak = k0 + e % RK;\n"
    "      int bk = k0 + e / RB, bn = n0 + e % RB;\n"
    "      double a = 0.0, b = 0.0;\n"
    "      if (am < M && ak < K)\n"
    "        a = tn_elem(A, trans_a ? (size_t)ak * M + am\n"
    "                               : (size_t)am * K + ak, in_type);\n"
    "      if (bk < K && bn < N)\n"
    "        b = tn_elem(B, trans_b ? (size_t)bn * K + bk\n"
    "                               : (size_t)bk * N + bn, in_type);\n"
    "      sa[e % RK][e / RK] = a;\n"
    "      sb[e / RB][e % RB] = b;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (int kk = 0; kk < RK; kk++) {\n"
    "      double a[RW], b[RW];\n"
    "      for (int i = 0; i < RW; i++)\n"
    "        a[i] = sa[kk][ty + RT * i];\n"
    "      for (int j = 0; j < RW; j++)\n"
    "        b[j] = sb[kk][tx + RT * j];\n"
    "      for (int i = 0; i < RW; i++)\n"
    "        for (int j = 0; j < RW; j++) {\n"
    "          s[i][j] += a[i] * b[j];\n"
    "          u[i][j] += fabs(a[i]) * fabs(b[j]);\n"
    "        }\n"
    "    }\n"
    "    __syncthreads();\n"
    "  }\n"
    "  tn_ref_judge(s, u, C0, C, ref, stats, M, N, K, alpha, beta, out_type,\n"
    "               rel, rel_far, exact_below);\n"
    "}\n"
    "/* v[i] = x or |x| for element x = src[i] of type t, in fp64 (exact):\n"
    " * the operands of the BLAS reference */\n"
    "extern \"C\" __global__ void tn_gemm_widen(const void *src, double *v,\n"
    "                                         unsigned long long n, int t,\n"
    "                                         int absolute)\n"
    "{\n"
    "  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x\n"
    "                              + threadIdx.x;\n"
    "       i < n; i += (unsigned long long)gridDim.x * blockDim.x) {\n"
    "    double x = tn_elem(src, i, t);\n"
    "    v[i] = absolute ? fabs(x) : x;\n"
    "  }\n"
    "}\n"
    "/* The judgement of the BLAS reference: S = A B and U = |A| |B| in fp64\n"
    " * (row-major M x N); ref may be S (each element is read, then written,\n"
    " * by one thread).  The same grid and stats as tn_gemm_ref. */\n"
    "extern \"C\" __global__ void __launch_bounds__(RT * RT)\n"
    "tn_gemm_judge(const double *S, const double *U, const void *C0,\n"
    "              const void *C, double *ref, double *stats, int M, int N,\n"
    "              int K, double alpha, double beta, int out_type,\n"
    "              double rel, double rel_far, double exact_below)\n"
    "{\n"
    "  const int tx = threadIdx.x, ty = threadIdx.y;\n"
    "  const int m0 = blockIdx.y * RB, n0 = blockIdx.x * RB;\n"
    "  double s[RW][RW], u[RW][RW];\n"
    "  for (int i = 0; i < RW; i++)\n"
    "    for (int j = 0; j < RW; j++) {\n"
    "      int m = m0 + ty + RT * i, n = n0 + tx + RT * j;\n"
    "      size_t idx = (size_t)m * N + n;\n"
    "      s[i][j] = m < M && n < N ? S[idx] : 0.0;\n"
    "      u[i][j] = m < M && n < N ? U[idx] : 0.0;\n"
    "    }\n"
    "  tn_ref_judge(s, u, C0, C, ref, stats, M, N, K, alpha, beta, out_type,\n"
    "               rel, rel_far, exact_below);\n"
    "}\n";

/* Element i of buffer buf as it started: from the host copy, or (with
 * verify_device, no host copies) computed from its seed. */
static double start_value(const tn_verify_env *env, const void *host,
                          int buf, tn_elem_type t, long long i)
{
  if (host == NULL)
    return tn_random_elem(env->seed[buf], (unsigned long long)i, t);
  return tn_elem_load(host, (size_t)i, t);
}

/* The bound's parts as the reference kernels take them: rel for every
 * element, rel_far more where sum |a||b| reaches exact_below. */
typedef struct {
  double rel, rel_far, exact_below;
} ref_bound;

static ref_bound bound_of(const tn_gemm_check_spec *c, int K)
{
  ref_bound b;
  b.rel = (K + 2.0) * c->u_acc + c->u_out + c->u_fixed;
  b.rel_far = c->u_far;
  b.exact_below = c->exact_below;
  return b;
}

static double elem_a(const tn_verify_env *env, const tn_gemm_check_spec *c,
                     long long m, long long k)
{
  long long M = env->problem->size.dims[0], K = env->problem->size.dims[2];
  return start_value(env, env->host[c->buf_a], c->buf_a, c->in,
                     c->trans_a ? k * M + m : m * K + k);
}

static double elem_b(const tn_verify_env *env, const tn_gemm_check_spec *c,
                     long long k, long long n)
{
  long long N = env->problem->size.dims[1], K = env->problem->size.dims[2];
  return start_value(env, env->host[c->buf_b], c->buf_b, c->in,
                     c->trans_b ? n * K + k : k * N + n);
}

/* Checks the GPU reference against the host at `count` positions (the four
 * corners first, then pseudo-random ones).  Returns 0, or -1 with why. */
static int check_reference(tn_verify_env *env, const tn_gemm_check_spec *c,
                           tn_devptr ref, int count, char *why, size_t n)
{
  const tn_problem *prob = env->problem;
  const void *c0 = env->host_init[c->buf_c];
  int on_host = env->host[c->buf_a] != NULL;
  long long M = prob->size.dims[0], N = prob->size.dims[1];
  long long K = prob->size.dims[2];
  uint64_t state = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(M * 31 + N * 7 + K);
  int i;

  if (on_host && c->beta != 0.0 && c0 == NULL) {
    snprintf(why, n, "gemm: the worker kept no starting values of C");
    return -1;
  }
  for (i = 0; i < count; i++) {
    long long m, nn, k, idx;
    double s = 0.0, u = 0.0, r, absr, dev;
    if (i < 4) {
      m = (i & 1) ? M - 1 : 0;
      nn = (i & 2) ? N - 1 : 0;
    } else {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      m = (long long)((state >> 33) % (uint64_t)M);
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      nn = (long long)((state >> 33) % (uint64_t)N);
    }
    for (k = 0; k < K; k++) {
      double x = elem_a(env, c, m, k), y = elem_b(env, c, k, nn);
      s += x * y;
      u += fabs(x) * fabs(y);
    }
    idx = m * N + nn;
    r = c->alpha * s;
    absr = fabs(c->alpha) * u;
    if (c->beta != 0.0) {
      double cv = start_value(env, c0, c->buf_c, c->out, idx);
      r += c->beta * cv;
      absr += fabs(c->beta) * fabs(cv);
    }
    if (env->download(env, &dev, ref + (tn_devptr)idx * 8, 8) != 0) {
      snprintf(why, n, "gemm: reading the reference back failed");
      return -1;
    }
    /* both sum exact products, in k order or (DGEMM) in any: fp64 sums of
     * K terms in any order are within K * 2^-53 * absr of the exact one */
    if (!(fabs(dev - r) <= (K + 2) * ldexp(1.0, -50) * absr + 1e-300)) {
      snprintf(why, n,
               "gemm: the GPU reference disagrees with the host at "
               "C[%lld][%lld]: %.17g against %.17g",
               m, nn, dev, r);
      return -1;
    }
  }
  return 0;
}

/* The reference through the GPU's BLAS: A and B widened to fp64, then
 * ref = A B and U = |A| |B| by DGEMM, judged by tn_gemm_judge into the
 * same stats as tn_gemm_ref's.  Ten times faster than tn_gemm_ref on an
 * H200 (fp64 tensor cores), and the host still checks ref at 256 places.
 * Returns 0, 1 when there is no BLAS or no memory for its operands (the
 * caller runs tn_gemm_ref), or -1 with why. */
static int blas_reference(tn_verify_env *env, const tn_gemm_check_spec *c,
                          tn_devptr c0, tn_devptr ref, tn_devptr stats,
                          const unsigned grid[3], char *why, size_t n)
{
  const tn_problem *prob = env->problem;
  int M = (int)prob->size.dims[0], N = (int)prob->size.dims[1];
  int K = (int)prob->size.dims[2];
  unsigned long long na = (unsigned long long)M * K;
  unsigned long long nb = (unsigned long long)K * N;
  unsigned wgrid[3] = {1024, 1, 1}, wblock[3] = {256, 1, 1};
  unsigned block[3] = {16, 16, 1};
  tn_devptr da, db, u;
  int rc, pass, in_type = (int)c->in, out_type = (int)c->out;
  double alpha = c->alpha, beta = c->beta;
  ref_bound bd = bound_of(c, K);
  tn_args a;

  if (env->dgemm == NULL || env->alloc_spare == NULL)
    return 1;
  if ((rc = env->alloc_spare(env, (size_t)M * (size_t)N * 8, &u)) != 0 ||
      (rc = env->alloc_spare(env, (size_t)na * 8, &da)) != 0 ||
      (rc = env->alloc_spare(env, (size_t)nb * 8, &db)) != 0)
    return rc;
  for (pass = 0; pass < 2; pass++) { /* a * b into ref, |a| * |b| into u */
    tn_devptr src[2] = {env->dev[c->buf_a], env->dev[c->buf_b]};
    tn_devptr dst[2] = {da, db};
    unsigned long long count[2] = {na, nb};
    int i;
    for (i = 0; i < 2; i++) {
      memset(&a, 0, sizeof(a));
      tn_args_add(&a, &src[i], sizeof(tn_devptr));
      tn_args_add(&a, &dst[i], sizeof(tn_devptr));
      tn_args_add(&a, &count[i], sizeof(count[i]));
      tn_args_add(&a, &in_type, sizeof(in_type));
      tn_args_add(&a, &pass, sizeof(pass));
      if (env->launch(env, "tn_gemm_widen", wgrid, wblock, &a) != 0) {
        snprintf(why, n, "gemm: widening the operands to fp64 failed");
        return -1;
      }
    }
    rc = env->dgemm(env, c->trans_a, c->trans_b, M, N, K, da, db,
                    pass ? u : ref, why, n);
    if (rc != 0)
      return rc;
  }
  memset(&a, 0, sizeof(a));
  tn_args_add(&a, &ref, sizeof(ref));
  tn_args_add(&a, &u, sizeof(u));
  tn_args_add(&a, &c0, sizeof(c0));
  tn_args_add(&a, &env->dev[c->buf_c], sizeof(tn_devptr));
  tn_args_add(&a, &ref, sizeof(ref));
  tn_args_add(&a, &stats, sizeof(stats));
  tn_args_add(&a, &M, sizeof(M));
  tn_args_add(&a, &N, sizeof(N));
  tn_args_add(&a, &K, sizeof(K));
  tn_args_add(&a, &alpha, sizeof(alpha));
  tn_args_add(&a, &beta, sizeof(beta));
  tn_args_add(&a, &out_type, sizeof(out_type));
  tn_args_add(&a, &bd.rel, sizeof(bd.rel));
  tn_args_add(&a, &bd.rel_far, sizeof(bd.rel_far));
  tn_args_add(&a, &bd.exact_below, sizeof(bd.exact_below));
  if (env->launch(env, "tn_gemm_judge", grid, block, &a) != 0) {
    snprintf(why, n, "gemm: the reference's judgement failed to run");
    return -1;
  }
  return 0;
}

/* The reference by a kernel of its own (tn_gemm_ref): where there is no
 * BLAS, or no memory for its fp64 operands.  0, or -1 with why. */
static int kernel_reference(tn_verify_env *env, const tn_gemm_check_spec *c,
                            tn_devptr c0, tn_devptr ref, tn_devptr stats,
                            const unsigned grid[3], char *why, size_t n)
{
  const tn_problem *prob = env->problem;
  int M = (int)prob->size.dims[0], N = (int)prob->size.dims[1];
  int K = (int)prob->size.dims[2];
  int ta = c->trans_a ? 1 : 0, tb = c->trans_b ? 1 : 0;
  int in_type = (int)c->in, out_type = (int)c->out;
  double alpha = c->alpha, beta = c->beta;
  ref_bound bd = bound_of(c, K);
  unsigned block[3] = {16, 16, 1};
  tn_args a;

  memset(&a, 0, sizeof(a));
  tn_args_add(&a, &env->dev[c->buf_a], sizeof(tn_devptr));
  tn_args_add(&a, &env->dev[c->buf_b], sizeof(tn_devptr));
  tn_args_add(&a, &c0, sizeof(c0));
  tn_args_add(&a, &env->dev[c->buf_c], sizeof(tn_devptr));
  tn_args_add(&a, &ref, sizeof(ref));
  tn_args_add(&a, &stats, sizeof(stats));
  tn_args_add(&a, &M, sizeof(M));
  tn_args_add(&a, &N, sizeof(N));
  tn_args_add(&a, &K, sizeof(K));
  tn_args_add(&a, &ta, sizeof(ta));
  tn_args_add(&a, &tb, sizeof(tb));
  tn_args_add(&a, &alpha, sizeof(alpha));
  tn_args_add(&a, &beta, sizeof(beta));
  tn_args_add(&a, &in_type, sizeof(in_type));
  tn_args_add(&a, &out_type, sizeof(out_type));
  tn_args_add(&a, &bd.rel, sizeof(bd.rel));
  tn_args_add(&a, &bd.rel_far, sizeof(bd.rel_far));
  tn_args_add(&a, &bd.exact_below, sizeof(bd.exact_below));
  if (env->launch(env, "tn_gemm_ref", grid, block, &a) != 0) {
    snprintf(why, n, "gemm: the reference kernel failed to run");
    return -1;
  }
  return 0;
}

int tn_gemm_check(tn_verify_env *env, const tn_gemm_check_spec *c,
                  char *why, size_t n)
{
  const tn_problem *prob = env->problem;
  int M = (int)prob->size.dims[0], N = (int)prob->size.dims[1];
  double beta = c->beta;
  unsigned grid[3];
  tn_devptr ref, stats, c0 = beta != 0.0 ? env->dev_init[c->buf_c] : 0;
  size_t nblocks, i, worst = 0;
  double *st = NULL, bad = 0.0;
  int rc = -1;

  grid[0] = (unsigned)((N + REF_TILE - 1) / REF_TILE);
  grid[1] = (unsigned)((M + REF_TILE - 1) / REF_TILE);
  grid[2] = 1;
  nblocks = (size_t)grid[0] * grid[1];
  if (beta != 0.0 && c0 == 0) {
    snprintf(why, n, "gemm: no device copy of C's starting values");
    return -1;
  }
  if (env->alloc(env, (size_t)M * (size_t)N * 8, &ref) != 0 ||
      env->alloc(env, nblocks * REF_STATS * 8, &stats) != 0) {
    snprintf(why, n, "gemm: no device memory for the reference");
    return -1;
  }
  rc = blas_reference(env, c, c0, ref, stats, grid, why, n);
  if (rc < 0 ||
      (rc > 0 && kernel_reference(env, c, c0, ref, stats, grid, why, n) != 0))
    return -1;
  rc = -1;
  st = malloc(nblocks * REF_STATS * sizeof(double));
  if (st == NULL) {
    snprintf(why, n, "gemm: out of memory for the reference's results");
    return -1;
  }
  if (env->download(env, st, stats, nblocks * REF_STATS * 8) != 0) {
    snprintf(why, n, "gemm: reading the reference's results failed");
    goto cleanup;
  }
  for (i = 0; i < nblocks; i++) {
    bad += st[i * REF_STATS];
    if (st[i * REF_STATS + 1] > st[worst * REF_STATS + 1])
      worst = i;
  }
  if (check_reference(env, c, ref, 256, why, n) != 0)
    goto cleanup;
  if (bad == 0.0) {
    rc = 0;
  } else {
    const double *w = st + worst * REF_STATS;
    long long idx = (long long)w[2];
    snprintf(why, n,
             "%.0f of %lld elements off by more than %s; worst C[%lld][%lld] "
             "= %.9g, expected %.17g (bound %.3g, error %.3g x bound)",
             bad, (long long)M * N, c->bound_text, idx / N, idx % N, w[5],
             w[3], w[4], w[1]);
    rc = 1;
  }
cleanup:
  free(st);
  return rc;
}

int tn_gemm_buffers(const tn_problem *prob, tn_elem_type in,
                    tn_elem_type out_type, double beta, tn_buffer_desc *out)
{
  size_t m = (size_t)prob->size.dims[0], n = (size_t)prob->size.dims[1];
  size_t k = (size_t)prob->size.dims[2];
  out[0].name = "A";
  out[0].bytes = m * k * (size_t)tn_elem_bytes(in);
  out[0].role = TN_BUF_IN;
  out[0].elem = in;
  out[1].name = "B";
  out[1].bytes = k * n * (size_t)tn_elem_bytes(in);
  out[1].role = TN_BUF_IN;
  out[1].elem = in;
  out[2].name = "C";
  out[2].bytes = m * n * (size_t)tn_elem_bytes(out_type);
  out[2].role = beta == 0.0 ? TN_BUF_OUT : TN_BUF_INOUT;
  out[2].elem = out_type;
  return 3;
}

int tn_gemm_is_fp8(tn_elem_type t)
{
  return t == TN_ELEM_E4M3 || t == TN_ELEM_E5M2;
}

/* fp8 inputs: the bound of gemm_ref.h, promoted or fast. */
static void fp8_bound(const tn_verify_env *env, const tn_gemm_tc_problem *g,
                      tn_gemm_check_spec *c)
{
  double k = (double)env->problem->size.dims[2];
  double chains = ceil(k / 32.0);
  int bf16 = c->out == TN_ELEM_BF16;
  c->alpha = g->alpha * g->scale;
  c->u_acc = 0.0;
  c->u_out = bf16 ? ldexp(1.0, -8) : 0.0;
  if (!g->fast_accum) {
    c->u_fixed = chains * ldexp(1.0, -24) + ldexp(1.0, -21);
    c->bound_text = bf16 ? "(ceil(K/32) * 2^-24 + 2^-21 + 2^-8) * absref"
                         : "(ceil(K/32) * 2^-24 + 2^-21) * absref";
    return;
  }
  c->u_fixed = ldexp(1.0, -21);
  c->u_far = (k + 2.0 * chains) * ldexp(1.0, -13);
  c->exact_below = 256.0;
  c->bound_text =
      bf16 ? "(2^-21 + 2^-8 + (K + 2 ceil(K/32)) * 2^-13 where sum |a||b| "
             ">= 2^8) * absref"
           : "(2^-21 + (K + 2 ceil(K/32)) * 2^-13 where sum |a||b| >= 2^8) "
             "* absref";
}

int tn_gemm_tc_verify(tn_verify_env *env, const tn_gemm_tc_problem *g,
                      char *why, size_t n)
{
  tn_gemm_check_spec c;
  memset(&c, 0, sizeof(c));
  c.in = g->in;
  c.out = g->out;
  c.buf_a = 0;
  c.buf_b = 1;
  c.buf_c = 2;
  c.trans_a = g->trans_a;
  c.trans_b = g->trans_b;
  c.alpha = g->alpha;
  c.beta = g->beta;
  c.u_acc = ldexp(1.0, -23);
  c.u_out = c.out == TN_ELEM_F32    ? 0.0
            : c.out == TN_ELEM_BF16 ? ldexp(1.0, -8)
                                    : ldexp(1.0, -11);
  c.bound_text = c.out == TN_ELEM_F32 ? "(K + 2) * 2^-23 * absref"
                 : c.out == TN_ELEM_BF16
                     ? "((K + 2) * 2^-23 + 2^-8) * absref"
                     : "((K + 2) * 2^-23 + 2^-11) * absref";
  if (tn_gemm_is_fp8(g->in))
    fp8_bound(env, g, &c);
  return tn_gemm_check(env, &c, why, n);
}

int tn_gemm_tc_baseline(const char *family, const char *name,
                        tn_baseline_env *env, const tn_gemm_tc_problem *g,
                        char *why, size_t n)
{
  const tn_problem *prob = env->problem;
  if (strcmp(name, "cublas") != 0) {
    snprintf(why, n, "%s has no baseline '%s'", family, name);
    return -1;
  }
  if (tn_gemm_is_fp8(g->in)) {
    if (env->gemm_fp8 == NULL) {
      snprintf(why, n, "%s: no fp8 GEMM baseline here", family);
      return -1;
    }
    return env->gemm_fp8(
        env, g->in, g->out, (int)prob->size.dims[0],
        (int)prob->size.dims[1], (int)prob->size.dims[2], (float)g->alpha,
        env->dev[0], env->dev[1], (float)g->beta, env->dev[2],
        env->dev[TN_GEMM_BUF_SCALE_A], env->dev[TN_GEMM_BUF_SCALE_B],
        g->fast_accum, why, n);
  }
  return env->gemm(env, g->in, g->out, g->trans_a, g->trans_b,
                   (int)prob->size.dims[0], (int)prob->size.dims[1],
                   (int)prob->size.dims[2], (float)g->alpha, env->dev[0],
                   env->dev[1], (float)g->beta, env->dev[2], why, n);
}

/* sweep.c -- the shared-memory stride sweep of `tuner calibrate`. */
#define _POSIX_C_SOURCE 200809L
#include "calibrate/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "calibrate/predict.h"

#define CU(call) tn_cuda_failed(&g->cu, &g->st, g->cu.call, #call)

static const int widths[TN_CALIB_N_WIDTHS] = {4, 8, 16};

int tn_calib_sweep_predict(tn_calib_profile *p)
{
  const tn_arch *arch = tn_arch_find(p->arch);
  int w, s;
  /* an architecture the table lacks has the 32 banks of all others */
  for (w = 0; w < TN_CALIB_N_WIDTHS; w++) {
    p->smem[w].width = widths[w];
    for (s = 0; s < TN_CALIB_MAX_STRIDE; s++) {
      tn_calib_stride *st = &p->smem[w].s[s];
      tn_calib_predicted pr;
      if (tn_calib_predict(widths[w], s + 1, arch, &pr) != 0)
        return -1;
      st->stride = s + 1;
      st->predicted_wavefronts = pr.wavefronts;
      st->predicted_degree = pr.degree;
      st->predicted_ratio = pr.ratio;
    }
  }
  return 0;
}

/* Blocks of the many-warps sweep on one SM: as many as its shared memory
 * (with the 1 KiB a block reserves) and threads hold, at most 4 (32
 * warps: enough to keep the shared-memory pipeline busy). */
static int blocks_per_sm(const tn_calib_profile *p)
{
  int by_smem = p->smem_per_sm / (TN_CALIB_SMEM_BYTES + 1024);
  int by_threads = p->max_threads_per_sm / TN_CALIB_BLOCK;
  int n = 4;
  if (by_smem < n)
    n = by_smem;
  if (by_threads < n)
    n = by_threads;
  return n < 1 ? 1 : n;
}

/* Least-squares slope of y over x. */
static double slope(const double *x, const double *y, int n)
{
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  int i;
  for (i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  for (i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : 0.0;
}

typedef struct {
  CUfunction fn;
  CUdeviceptr out, cycles;
  long long *host_cycles; /* one a block */
  double *a, *b, *c;      /* samples, repetitions each */
} sweep_bufs;

/* The largest block's cycles of the last launch (blocks of it). */
static int read_cycles(tn_calib_gpu *g, sweep_bufs *sb, int blocks,
                       double *out)
{
  long long most = 0;
  int i;
  if (CU(cuMemcpyDtoH(sb->host_cycles, sb->cycles,
                      sizeof(long long) * (size_t)blocks)))
    return -1;
  for (i = 0; i < blocks; i++)
    if (sb->host_cycles[i] > most)
      most = sb->host_cycles[i];
  *out = (double)most;
  return 0;
}

/* One stride at one width: one warp, then many warps. */
static int one_stride(tn_calib_gpu *g, tn_calib_profile *p, sweep_bufs *sb,
                      tn_calib_stride *st)
{
  int stride = st->stride, loads = TN_CALIB_SWEEP_LOADS, r;
  int bps = p->smem_blocks_per_sm, blocks = p->sm_count * bps;
  double warp_loads = (double)loads * bps * (TN_CALIB_BLOCK / 32);
  void *args[4] = {&stride, &loads, &sb->out, &sb->cycles};
  for (r = 0; r < g->repetitions; r++) {
    double ms, cyc;
    if (tn_calib_time(g, sb->fn, 1, 32, args, 1, r == 0, &ms) ||
        read_cycles(g, sb, 1, &cyc))
      return -1;
    sb->a[r] = cyc / loads;
  }
  tn_calib_stat_from(sb->a, g->repetitions, &st->warp_cycles);
  for (r = 0; r < g->repetitions; r++) {
    double ms, cyc;
    if (tn_calib_time(g, sb->fn, (unsigned)blocks, TN_CALIB_BLOCK, args, 1,
                      r == 0, &ms) ||
        read_cycles(g, sb, blocks, &cyc))
      return -1;
    /* per warp-wide load of one SM: the SM's loads run interleaved */
    sb->b[r] = ms * 1e6 / warp_loads;
    sb->c[r] = cyc / warp_loads;
  }
  tn_calib_stat_from(sb->b, g->repetitions, &st->sm_ns);
  tn_calib_stat_from(sb->c, g->repetitions, &st->sm_cycles);
  return 0;
}

static void fit(tn_calib_width *cw)
{
  double x[TN_CALIB_MAX_STRIDE], y[TN_CALIB_MAX_STRIDE];
  double base_w = cw->s[0].warp_cycles.median;
  double base_s = cw->s[0].sm_ns.median;
  int s;
  for (s = 0; s < TN_CALIB_MAX_STRIDE; s++) {
    tn_calib_stride *st = &cw->s[s];
    st->warp_ratio = base_w > 0 ? st->warp_cycles.median / base_w : 0.0;
    st->sm_ratio = base_s > 0 ? st->sm_ns.median / base_s : 0.0;
    x[s] = st->predicted_wavefronts;
  }
  for (s = 0; s < TN_CALIB_MAX_STRIDE; s++)
    y[s] = cw->s[s].warp_cycles.median;
  cw->warp_cycles_per_wavefront = slope(x, y, TN_CALIB_MAX_STRIDE);
  for (s = 0; s < TN_CALIB_MAX_STRIDE; s++)
    y[s] = cw->s[s].sm_ns.median;
  cw->sm_ns_per_wavefront = slope(x, y, TN_CALIB_MAX_STRIDE);
  for (s = 0; s < TN_CALIB_MAX_STRIDE; s++)
    y[s] = cw->s[s].sm_cycles.median;
  cw->sm_cycles_per_wavefront = slope(x, y, TN_CALIB_MAX_STRIDE);
}

int tn_calib_sweep(tn_calib_gpu *g, tn_calib_profile *p, tn_err *err)
{
  sweep_bufs sb;
  int w, s, blocks, rc = -1;

  memset(&sb, 0, sizeof(sb));
  if (tn_calib_sweep_predict(p) != 0)
    return tn_errf(err, TN_ETOOL, "the wavefront model refuses a load of "
                                  "the stride sweep");
  p->smem_loads = TN_CALIB_SWEEP_LOADS;
  p->smem_blocks_per_sm = blocks_per_sm(p);
  blocks = p->sm_count * p->smem_blocks_per_sm;
  sb.host_cycles = malloc(sizeof(long long) * (size_t)blocks);
  sb.a = malloc(sizeof(double) * (size_t)g->repetitions);
  sb.b = malloc(sizeof(double) * (size_t)g->repetitions);
  sb.c = malloc(sizeof(double) * (size_t)g->repetitions);
  if (!sb.host_cycles || !sb.a || !sb.b || !sb.c) {
    tn_errf(err, TN_ETOOL, "out of memory");
    goto done;
  }
  if (CU(cuMemAlloc(&sb.out, (size_t)blocks * TN_CALIB_BLOCK * 4)) ||
      CU(cuMemAlloc(&sb.cycles, sizeof(long long) * (size_t)blocks)))
    goto fail;
  for (w = 0; w < TN_CALIB_N_WIDTHS; w++) {
    char name[32];
    snprintf(name, sizeof(name), "tn_cal_smem_w%d", widths[w]);
    fprintf(stderr, "calibrate: shared-memory stride sweep, %d bytes\n",
            widths[w]);
    sb.fn = tn_calib_fn(g, name);
    /* all the shared memory an SM has goes to shared memory, not L1, so
     * that blocks_per_sm blocks fit */
    if (sb.fn == NULL ||
        CU(cuFuncSetAttribute(
            sb.fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            100)))
      goto fail;
    for (s = 0; s < TN_CALIB_MAX_STRIDE; s++)
      if (one_stride(g, p, &sb, &p->smem[w].s[s]))
        goto fail;
    fit(&p->smem[w]);
  }
  rc = 0;
  goto done;
fail:
  tn_calib_fail(g, err);
done:
  if (sb.out)
    g->cu.cuMemFree(sb.out);
  if (sb.cycles)
    g->cu.cuMemFree(sb.cycles);
  free(sb.host_cycles);
  free(sb.a);
  free(sb.b);
  free(sb.c);
  return rc ? TN_ETOOL : 0;
}

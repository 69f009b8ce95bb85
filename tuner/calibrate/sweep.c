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

/* the kernels' rings hold 32 loads (16 of 16 bytes) */
_Static_assert(TN_CALIB_SWEEP_LOADS % 32 == 0,
               "the sweep's loads fill whole rings");

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

/* The kernels write three values a block: clock64 at its start and end,
 * and its SM's id.  SM ids below MAX_SMID are told apart (%smid is below
 * %nsmid, a little above the SM count on every GPU so far). */
#define MAX_SMID 1024

typedef struct {
  CUfunction fn;
  CUdeviceptr out, clk;
  long long *host_clk;       /* 3 a block */
  long long first[MAX_SMID], last[MAX_SMID];
  int count[MAX_SMID];       /* blocks each SM ran */
  double *a, *b, *c, *span;  /* samples: repetitions each; span: SMs */
} sweep_bufs;

/* Of the last launch (blocks of warps_per_block warps, `loads` loads a
 * thread): the SM cycles per warp-wide load, each SM's span over its own
 * loads, median of SMs, into *cycles, and the most blocks one SM ran. */
static int read_clocks(tn_calib_gpu *g, sweep_bufs *sb, int blocks,
                       int warps_per_block, int loads, double *cycles,
                       int *most)
{
  tn_calib_stat st;
  int i, n = 0;
  if (CU(cuMemcpyDtoH(sb->host_clk, sb->clk,
                      3 * sizeof(long long) * (size_t)blocks)))
    return -1;
  memset(sb->count, 0, sizeof(sb->count));
  *most = 0;
  for (i = 0; i < blocks; i++) {
    long long t0 = sb->host_clk[3 * i], t1 = sb->host_clk[3 * i + 1];
    long long id = sb->host_clk[3 * i + 2];
    if (id < 0 || id >= MAX_SMID)
      continue;
    if (sb->count[id] == 0 || t0 < sb->first[id])
      sb->first[id] = t0;
    if (sb->count[id] == 0 || t1 > sb->last[id])
      sb->last[id] = t1;
    if (++sb->count[id] > *most)
      *most = sb->count[id];
  }
  for (i = 0; i < MAX_SMID; i++)
    if (sb->count[i] > 0)
      sb->span[n++] = (double)(sb->last[i] - sb->first[i]) /
                      ((double)sb->count[i] * warps_per_block * loads);
  tn_calib_stat_from(sb->span, n, &st);
  *cycles = st.median;
  return 0;
}

/* One stride at one width: one warp, then many warps. */
static int one_stride(tn_calib_gpu *g, tn_calib_profile *p, sweep_bufs *sb,
                      tn_calib_width *cw, tn_calib_stride *st)
{
  int stride = st->stride, loads = TN_CALIB_SWEEP_LOADS, r, most;
  int blocks = p->sm_count * cw->blocks_per_sm;
  int warps = TN_CALIB_BLOCK / 32;
  void *args[4] = {&stride, &loads, &sb->out, &sb->clk};
  for (r = 0; r < g->repetitions; r++) {
    double ms;
    if (tn_calib_time(g, sb->fn, 1, 32, args, 1, r == 0, &ms) ||
        read_clocks(g, sb, 1, 1, loads, &sb->a[r], &most))
      return -1;
  }
  tn_calib_stat_from(sb->a, g->repetitions, &st->warp_cycles);
  for (r = 0; r < g->repetitions; r++) {
    double ms;
    if (tn_calib_time(g, sb->fn, (unsigned)blocks, TN_CALIB_BLOCK, args, 1,
                      r == 0, &ms) ||
        read_clocks(g, sb, blocks, warps, loads, &sb->c[r], &most))
      return -1;
    /* the launch lasts as long as its busiest SM: per warp-wide load of
     * that SM, whose loads run interleaved */
    sb->b[r] = ms * 1e6 / ((double)loads * warps * (most > 0 ? most : 1));
    if (most > cw->most_blocks_seen)
      cw->most_blocks_seen = most;
  }
  tn_calib_stat_from(sb->b, g->repetitions, &st->sm_ns);
  tn_calib_stat_from(sb->c, g->repetitions, &st->sm_cycles);
  return 0;
}

static void fit(tn_calib_width *cw)
{
  double x[TN_CALIB_MAX_STRIDE], y[TN_CALIB_MAX_STRIDE];
  double base_w = cw->s[0].warp_cycles.median;
  double base_c = cw->s[0].sm_cycles.median;
  double base_s = cw->s[0].sm_ns.median;
  int s;
  for (s = 0; s < TN_CALIB_MAX_STRIDE; s++) {
    tn_calib_stride *st = &cw->s[s];
    st->warp_ratio = base_w > 0 ? st->warp_cycles.median / base_w : 0.0;
    st->sm_ratio = base_c > 0 ? st->sm_cycles.median / base_c : 0.0;
    st->sm_ns_ratio = base_s > 0 ? st->sm_ns.median / base_s : 0.0;
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
  sweep_bufs *sb = calloc(1, sizeof(*sb));
  int w, s, most = 0, rc = -1;

  if (sb == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory");
  if (tn_calib_sweep_predict(p) != 0) {
    free(sb);
    return tn_errf(err, TN_ETOOL, "the wavefront model refuses a load of "
                                  "the stride sweep");
  }
  p->smem_loads = TN_CALIB_SWEEP_LOADS;
  /* the launch with the most blocks: 8 a SM at most (2048 threads) */
  most = p->sm_count * 8;
  sb->host_clk = malloc(3 * sizeof(long long) * (size_t)most);
  sb->a = malloc(sizeof(double) * (size_t)g->repetitions);
  sb->b = malloc(sizeof(double) * (size_t)g->repetitions);
  sb->c = malloc(sizeof(double) * (size_t)g->repetitions);
  sb->span = malloc(sizeof(double) * MAX_SMID);
  if (!sb->host_clk || !sb->a || !sb->b || !sb->c || !sb->span) {
    tn_errf(err, TN_ETOOL, "out of memory");
    goto done;
  }
  if (CU(cuMemAlloc(&sb->out, (size_t)most * TN_CALIB_BLOCK * 4)) ||
      CU(cuMemAlloc(&sb->clk, 3 * sizeof(long long) * (size_t)most)))
    goto fail;
  for (w = 0; w < TN_CALIB_N_WIDTHS; w++) {
    tn_calib_width *cw = &p->smem[w];
    char name[32];
    snprintf(name, sizeof(name), "tn_cal_smem_w%d", widths[w]);
    fprintf(stderr, "calibrate: shared-memory stride sweep, %d bytes\n",
            widths[w]);
    sb->fn = tn_calib_fn(g, name);
    /* all the shared memory an SM has goes to shared memory, not L1, so
     * that as many blocks fit as its size allows; at most 4 (32 warps:
     * enough to keep the shared-memory pipeline busy) */
    if (sb->fn == NULL ||
        CU(cuFuncSetAttribute(
            sb->fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            100)) ||
        tn_calib_resident_blocks(g, p, sb->fn, 4, &cw->blocks_per_sm))
      goto fail;
    for (s = 0; s < TN_CALIB_MAX_STRIDE; s++)
      if (one_stride(g, p, sb, cw, &cw->s[s]))
        goto fail;
    fit(cw);
  }
  rc = 0;
  goto done;
fail:
  tn_calib_fail(g, err);
done:
  if (sb->out)
    g->cu.cuMemFree(sb->out);
  if (sb->clk)
    g->cu.cuMemFree(sb->clk);
  free(sb->host_clk);
  free(sb->a);
  free(sb->b);
  free(sb->c);
  free(sb->span);
  free(sb);
  return rc ? TN_ETOOL : 0;
}

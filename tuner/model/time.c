/* time.c -- the time model: a roofline with overlap over the resources a
 * launch uses, at a device profile's rates, with occupancy from the CUDA
 * toolkit's calculator. */
#include "model/time.h"

#include <math.h>
#include <string.h>

#include <cuda_occupancy.h>

int tn_time_occupancy_why(const tn_arch *arch, int sms, int threads,
                          int regs, int smem_static, int smem_dynamic,
                          const char **limited_by)
{
  cudaOccDeviceProp prop;
  cudaOccFuncAttributes attr;
  cudaOccDeviceState state;
  cudaOccResult res;
  unsigned why;

  memset(&prop, 0, sizeof(prop));
  memset(&attr, 0, sizeof(attr));
  memset(&state, 0, sizeof(state));
  memset(&res, 0, sizeof(res));
  prop.computeMajor = arch->major;
  prop.computeMinor = arch->minor;
  prop.maxThreadsPerBlock = arch->max_threads_per_block;
  prop.maxThreadsPerMultiprocessor = arch->max_threads_per_sm;
  prop.regsPerBlock = arch->regs_per_sm;
  prop.regsPerMultiprocessor = arch->regs_per_sm;
  prop.warpSize = 32;
  prop.sharedMemPerBlock = (size_t)arch->smem_static_max;
  prop.sharedMemPerMultiprocessor = (size_t)arch->smem_per_sm;
  prop.numSms = sms;
  prop.sharedMemPerBlockOptin = (size_t)arch->smem_per_block;
  /* the 1 KiB a block's system use takes from sm_80 on */
  prop.reservedSharedMemPerBlock = arch->major >= 8 ? 1024 : 0;
  attr.maxThreadsPerBlock = arch->max_threads_per_block;
  attr.numRegs = regs > 0 ? regs : 32;
  attr.sharedSizeBytes = (size_t)smem_static;
  attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attr.maxDynamicSharedSizeBytes = (size_t)smem_dynamic;
  attr.numBlockBarriers = 1;
  state.cacheConfig = CACHE_PREFER_NONE;
  state.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;
  if (limited_by)
    *limited_by = "nothing fits";
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state,
                                              threads,
                                              (size_t)smem_dynamic) !=
      CUDA_OCC_SUCCESS)
    return 0;
  /* of the factors at the limit, the first in this order */
  why = res.limitingFactors;
  if (limited_by)
    *limited_by = why & OCC_LIMIT_WARPS           ? "threads"
                  : why & OCC_LIMIT_BLOCKS        ? "blocks"
                  : why & OCC_LIMIT_SHARED_MEMORY ? "shared memory"
                  : why & OCC_LIMIT_REGISTERS     ? "registers"
                  : why & OCC_LIMIT_BARRIERS      ? "barriers"
                                                  : "threads";
  return res.activeBlocksPerMultiprocessor;
}

int tn_time_occupancy(const tn_arch *arch, int sms, int threads, int regs,
                      int smem_static, int smem_dynamic)
{
  return tn_time_occupancy_why(arch, sms, threads, regs, smem_static,
                               smem_dynamic, NULL);
}

/* Which end of each range: 0 the median, -1 the slow end (the lower rate,
 * the longer launch), +1 the fast end. */
static double pick(const tn_range *r, int end, int rate)
{
  if (end == 0)
    return r->mid;
  /* for a rate the fast end is the high one; for a time, the low one */
  return (end > 0) == (rate != 0) ? r->hi : r->lo;
}

/* What one launch costs, resource by resource, before the waves: each
 * per-SM resource's time for the whole launch at every SM's full rate,
 * DRAM's at the GPU's bandwidth, and the chains a block waits through
 * whatever else runs (its barriers, its loads' latency). */
typedef struct {
  double all_sms[TN_N_BOUNDS]; /* smem, fma, tensor, issue, tma: the
                                  launch's work over every SM at full
                                  rate */
  double dram;                 /* the launch's bytes at the bandwidth */
  double chain;                /* one block's barriers one after another */
  double latency;              /* one block's loads by Little's law */
  double ring;                 /* one block's k-tiles at the ring's pace */
} launch_cost;

/* One wave of n blocks on the busiest SM, its DRAM traffic dram (ms at
 * the bandwidth): its time, and each resource's share of it into terms.
 * The per-SM resources take the busiest SM's n blocks' work at its rate;
 * a block's chains are waited once a wave. */
static double wave_ms(const tn_time_input *in, const launch_cost *lc,
                      double sms, double dram, double n, double *terms)
{
  double x[TN_N_BOUNDS], per_block = sms / (double)in->blocks;
  double sum = 0, top = 0, warps, alpha;
  int r;

  memset(x, 0, sizeof(x));
  x[TN_BOUND_SMEM] = lc->all_sms[TN_BOUND_SMEM] * per_block * n;
  x[TN_BOUND_FMA] = lc->all_sms[TN_BOUND_FMA] * per_block * n;
  x[TN_BOUND_TENSOR] = lc->all_sms[TN_BOUND_TENSOR] * per_block * n;
  x[TN_BOUND_ISSUE] = lc->all_sms[TN_BOUND_ISSUE] * per_block * n;
  x[TN_BOUND_TMA] = lc->all_sms[TN_BOUND_TMA] * per_block * n;
  x[TN_BOUND_DRAM] = dram;
  if (lc->latency > x[TN_BOUND_DRAM])
    x[TN_BOUND_DRAM] = lc->latency;
  x[TN_BOUND_SYNC] = lc->chain;
  x[TN_BOUND_RING] = lc->ring;
  for (r = 0; r < TN_BOUND_LAUNCH; r++) {
    terms[r] += x[r];
    if (r == TN_BOUND_FMA || r == TN_BOUND_RING)
      continue; /* inside the issue term; a floor, below */
    sum += x[r];
    if (x[r] > top)
      top = x[r];
  }
  /* the fewer warps an SM scheduler has, the less one resource's wait
   * hides behind another's work: a share 1 / warps of the others shows,
   * and at least TN_TIME_OVERLAP_MIN of them however many warps; a warp
   * that keeps ilp independent streams in flight counts as ilp warps */
  warps = n * ((in->threads + 31) / 32) / 4.0 *
          (in->work.ilp > 1 ? in->work.ilp : 1);
  alpha = warps > 0 ? 1.0 / warps : 1.0;
  if (alpha < TN_TIME_OVERLAP_MIN)
    alpha = TN_TIME_OVERLAP_MIN;
  if (alpha > 1)
    alpha = 1;
  /* the ring's loads run behind the compute: the longer of the two, and
   * a little of the other as they near each other */
  {
    double thr = top + alpha * (sum - top), ring = x[TN_BOUND_RING];
    const double q = TN_TIME_RING_SOFTNESS;
    if (ring <= 0 || thr <= 0)
      return fmax(thr, ring);
    return pow(pow(thr, q) + pow(ring, q), 1.0 / q);
  }
}

/* The share of the copy's bandwidth w's DRAM traffic reaches: its rows'
 * (tn_profile_row_share); with the written half in rows of another
 * length, half the bytes at each share, so the harmonic mean of the two
 * (the profile's tiled copies read and write rows of one length). */
static double dram_share(const tn_profile *p, const tn_time_work *w)
{
  double read = tn_profile_row_share(p, w->dram_row_bytes), write;
  if (w->dram_write_row_bytes <= 0 ||
      w->dram_write_row_bytes == w->dram_row_bytes)
    return read;
  write = tn_profile_row_share(p, w->dram_write_row_bytes);
  return 2.0 / (1.0 / read + 1.0 / write);
}

/* One prediction at one end of the profile's ranges. */
static double predict_at(const tn_time_input *in, const tn_profile *p,
                         int bps, int end, tn_time_pred *out)
{
  const tn_model_cost *m = in->smem;
  const tn_time_work *w = &in->work;
  double sms = p->sm_count > 0 ? p->sm_count : 1;
  double clk = pick(&p->clock_mhz, end, 1) * 1e6; /* Hz */
  double fma = pick(&p->fma_tflops, end, 1) * 1e12 / 2; /* lane FMA/s */
  double issue = fma / 32;                 /* warp instructions a second */
  double imad = pick(&p->imad_gops, end, 1) * 1e9;
  double lop = pick(&p->lop3_gops, end, 1) * 1e9;
  /* rows of a tile, far apart in DRAM, move slower than a copy's long
   * runs: at the share the profile's tiled copies measured */
  double bw = pick(&p->copy_gbs, end, 1) * 1e9 * dram_share(p, w);
  double mma = pick(&p->mma_tflops, end, 1) * 1e12;
  double gemm = p->gemm_tflops.mid > 0 ? pick(&p->gemm_tflops, end, 1) * 1e12
                                       : mma;
  double wf = (double)(m->ld_wavefronts + m->st_wavefronts);
  double sinsts = (double)(m->ld_insts + m->st_insts);
  double fma_insts = w->fp32_flops / 2 / 32;
  double insts = fma_insts + sinsts + w->other_insts + w->imad_ops / 32 +
                 w->lop_ops / 32;
  double slots = (double)bps * sms, full, rest, per_block, ms = 0, top = 0;
  double *t = out->term_ms;
  launch_cost lc;
  int b;

  memset(t, 0, sizeof(out->term_ms));
  memset(&lc, 0, sizeof(lc));
  /* every SM serves its blocks' wavefronts one a cycle or so */
  lc.all_sms[TN_BOUND_SMEM] =
      wf * p->smem_cycles_per_wavefront[0] / sms / clk * 1e3;
  lc.dram = w->dram_bytes / bw * 1e3;
  /* Little's law: a block's loads, bytes_in_flight a thread at a time,
   * each batch a latency long */
  if (w->bytes_in_flight > 0 && in->blocks > 0)
    lc.latency = w->load_bytes / (double)in->blocks /
                 ((double)in->threads * w->bytes_in_flight) *
                 TN_TIME_DRAM_LATENCY_NS * 1e-6;
  lc.all_sms[TN_BOUND_FMA] = w->fp32_flops / 2 / fma * 1e3;
  lc.all_sms[TN_BOUND_TENSOR] =
      (mma > 0 ? w->tensor_flops / mma * 1e3 : 0) +
      (gemm > 0 ? w->wgmma_flops / gemm * 1e3 : 0);
  /* one issue slot an instruction; IMAD runs at its own, lower rate */
  lc.all_sms[TN_BOUND_ISSUE] = insts / issue * 1e3;
  if (w->imad_ops / imad * 1e3 > lc.all_sms[TN_BOUND_ISSUE])
    lc.all_sms[TN_BOUND_ISSUE] = w->imad_ops / imad * 1e3;
  if (w->lop_ops / lop * 1e3 > lc.all_sms[TN_BOUND_ISSUE])
    lc.all_sms[TN_BOUND_ISSUE] = w->lop_ops / lop * 1e3;
  /* the copy engine: each SM's share of the boxes, at what a box of
   * their shape costs beyond its bytes (those are DRAM's term).  It is
   * one of a block's phases (its threads wait on the mbarrier for the
   * loads, the store drains before the block ends), so it overlaps the
   * others as they do: in the sum of wave_ms, not as a floor beside it */
  {
    int op;
    for (op = 0; op < TN_PROFILE_TMA_OPS; op++)
      if (w->tma_boxes[op] > 0)
        lc.all_sms[TN_BOUND_TMA] +=
            w->tma_boxes[op] / sms *
            tn_profile_tma_excess_ns(p, op, w->tma_row_bytes[op],
                                     w->tma_box_rows[op], end) *
            1e-6;
  }
  lc.chain = w->syncs * TN_TIME_BARRIER_NS * 1e-6;
  if (w->ring_ahead > 0)
    lc.ring = w->ring_ktiles * TN_TIME_RING_LATENCY_NS / w->ring_ahead *
              1e-6;
  /* whole waves of bps blocks an SM, then a last one of the rest: a last
   * wave of few blocks leaves SMs idle, and its busiest SM runs fewer
   * blocks at once, each with less to hide its waits behind */
  out->waves = in->blocks > 0 ? (double)in->blocks / slots : 0;
  full = floor(out->waves);
  rest = (double)in->blocks - full * slots;
  per_block = in->blocks > 0 ? lc.dram / (double)in->blocks : 0;
  if (full > 0)
    ms += full * wave_ms(in, &lc, sms, per_block * slots, bps, t);
  for (b = 0; b < TN_BOUND_LAUNCH; b++)
    t[b] *= full; /* wave_ms added one wave's terms */
  if (rest > 0)
    ms += wave_ms(in, &lc, sms, per_block * rest, ceil(rest / sms), t);
  out->bound = TN_BOUND_SMEM;
  for (b = 0; b < TN_BOUND_LAUNCH; b++) {
    if (b != TN_BOUND_FMA && t[b] > top) {
      top = t[b];
      out->bound = (tn_bound)b;
    }
  }
  /* the issue bound is fp32 FMA's when FMAs are most of what issues */
  if (out->bound == TN_BOUND_ISSUE && fma_insts > 0.5 * insts)
    out->bound = TN_BOUND_FMA;
  t[TN_BOUND_LAUNCH] = pick(&p->launch_us, end, 0) * 1e-3;
  if (t[TN_BOUND_LAUNCH] > ms)
    out->bound = TN_BOUND_LAUNCH;
  return ms + t[TN_BOUND_LAUNCH];
}

void tn_time_predict(const tn_time_input *in, const tn_arch *arch,
                     const tn_profile *p, tn_time_pred *out)
{
  tn_time_pred side;
  int regs = in->regs > 0 ? in->regs : in->work.regs;
  int bps = tn_time_occupancy(arch, p->sm_count, in->threads, regs,
                              in->smem_static, in->smem_dynamic);

  memset(out, 0, sizeof(*out));
  if (bps < 1)
    bps = 1; /* too many registers estimated: the compile will tell */
  out->blocks_per_sm = bps;
  out->ms = predict_at(in, p, bps, 0, out);
  out->lo_ms = predict_at(in, p, bps, 1, &side) * (1 - TN_TIME_MODEL_ERR);
  out->hi_ms = predict_at(in, p, bps, -1, &side) * (1 + TN_TIME_MODEL_ERR);
}

void tn_time_sum(const tn_time_pred *per, int n, tn_time_pred *total)
{
  double longest = -1;
  int k, b;
  memset(total, 0, sizeof(*total));
  for (k = 0; k < n; k++) {
    total->ms += per[k].ms;
    total->lo_ms += per[k].lo_ms;
    total->hi_ms += per[k].hi_ms;
    for (b = 0; b < TN_N_BOUNDS; b++)
      total->term_ms[b] += per[k].term_ms[b];
    if (per[k].ms > longest) {
      longest = per[k].ms;
      total->bound = per[k].bound;
      total->blocks_per_sm = per[k].blocks_per_sm;
      total->waves = per[k].waves;
    }
  }
}

const char *tn_bound_name(tn_bound b)
{
  static const char *const names[TN_N_BOUNDS] = {
      "smem", "dram", "fma", "tensor", "issue", "sync", "ring", "tma",
      "launch"};
  return (unsigned)b < TN_N_BOUNDS ? names[b] : "?";
}

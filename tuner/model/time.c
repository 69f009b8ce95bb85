/* time.c -- the time model: a roofline with overlap over the resources a
 * launch uses, at a device profile's rates, with occupancy from the CUDA
 * toolkit's calculator. */
#include "model/time.h"

#include <math.h>
#include <string.h>

#include <cuda_occupancy.h>

int tn_time_occupancy(const tn_arch *arch, int sms, int threads, int regs,
                      int smem_static, int smem_dynamic)
{
  cudaOccDeviceProp prop;
  cudaOccFuncAttributes attr;
  cudaOccDeviceState state;
  cudaOccResult res;

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
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state,
                                              threads,
                                              (size_t)smem_dynamic) !=
      CUDA_OCC_SUCCESS)
    return 0;
  return res.activeBlocksPerMultiprocessor;
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
  double bw = pick(&p->copy_gbs, end, 1) * 1e9 *
              tn_profile_row_share(p, in->work.dram_row_bytes);
  double mma = pick(&p->mma_tflops, end, 1) * 1e12;
  double wf = (double)(m->ld_wavefronts + m->st_wavefronts);
  double sinsts = (double)(m->ld_insts + m->st_insts);
  double fma_insts = w->fp32_flops / 2 / 32;
  double insts = fma_insts + sinsts + w->other_insts + w->imad_ops / 32 +
                 w->lop_ops / 32;
  double slots = (double)bps * sms, eff, warps, alpha, sum = 0, top = 0;
  double *t = out->term_ms;
  int b;

  memset(t, 0, sizeof(out->term_ms));
  /* every SM serves its blocks' wavefronts one a cycle or so */
  t[TN_BOUND_SMEM] = wf * p->smem_cycles_per_wavefront[0] / sms / clk * 1e3;
  t[TN_BOUND_DRAM] = w->dram_bytes / bw * 1e3;
  /* Little's law: the loads in flight on every SM over the latency */
  if (w->bytes_in_flight > 0) {
    double flight = sms * bps * in->threads * w->bytes_in_flight;
    double lat = w->load_bytes / (flight / (TN_TIME_DRAM_LATENCY_NS *
                                            1e-9)) * 1e3;
    if (lat > t[TN_BOUND_DRAM])
      t[TN_BOUND_DRAM] = lat;
  }
  t[TN_BOUND_FMA] = w->fp32_flops / 2 / fma * 1e3;
  t[TN_BOUND_TENSOR] = mma > 0 ? w->tensor_flops / mma * 1e3 : 0;
  /* one issue slot an instruction; IMAD runs at its own, lower rate */
  t[TN_BOUND_ISSUE] = insts / issue * 1e3;
  if (w->imad_ops / imad * 1e3 > t[TN_BOUND_ISSUE])
    t[TN_BOUND_ISSUE] = w->imad_ops / imad * 1e3;
  if (w->lop_ops / lop * 1e3 > t[TN_BOUND_ISSUE])
    t[TN_BOUND_ISSUE] = w->lop_ops / lop * 1e3;
  /* each SM runs its share of the blocks bps at a time; a block's
   * barriers follow one another */
  t[TN_BOUND_SYNC] = ceil((double)in->blocks / slots) * w->syncs *
                     TN_TIME_BARRIER_NS * 1e-6;
  /* a last wave of few blocks leaves SMs idle: each term is stretched to
   * the time of whole waves, but the barriers' chain, which counts whole
   * waves already, is not stretched twice */
  out->waves = (double)in->blocks / slots;
  eff = out->waves > 0 ? out->waves / ceil(out->waves) : 1;
  out->bound = TN_BOUND_SMEM;
  for (b = 0; b < TN_BOUND_LAUNCH; b++) {
    double whole = b == TN_BOUND_SYNC ? t[b] : t[b] / eff;
    if (b == TN_BOUND_FMA)
      continue; /* inside the issue term: not a resource of its own */
    sum += whole;
    if (whole > top) {
      top = whole;
      out->bound = (tn_bound)b;
    }
  }
  /* the issue bound is fp32 FMA's when FMAs are most of what issues */
  if (out->bound == TN_BOUND_ISSUE && fma_insts > 0.5 * insts)
    out->bound = TN_BOUND_FMA;
  /* the fewer warps an SM scheduler has, the less one resource's wait
   * hides behind another's work: a share 1 / warps of the others shows,
   * and at least TN_TIME_OVERLAP_MIN of them however many warps */
  warps = (double)bps * ((in->threads + 31) / 32) / 4.0;
  alpha = warps > 0 ? 1.0 / warps : 1.0;
  if (alpha < TN_TIME_OVERLAP_MIN)
    alpha = TN_TIME_OVERLAP_MIN;
  if (alpha > 1)
    alpha = 1;
  t[TN_BOUND_LAUNCH] = pick(&p->launch_us, end, 0) * 1e-3;
  if (t[TN_BOUND_LAUNCH] > top + alpha * (sum - top))
    out->bound = TN_BOUND_LAUNCH;
  return top + alpha * (sum - top) + t[TN_BOUND_LAUNCH];
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
      "smem", "dram", "fma", "tensor", "issue", "sync", "launch"};
  return (unsigned)b < TN_N_BOUNDS ? names[b] : "?";
}

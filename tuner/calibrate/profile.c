/* profile.c -- a device profile as JSON (jansson) and as a summary. */
#define _POSIX_C_SOURCE 200809L
#include "calibrate/profile.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/bench.h"
#include "model/profile.h"

/* the keys written here are the ones the time model reads */
_Static_assert(TN_CALIB_N_TILE_ROWS == TN_PROFILE_N_TILE_ROWS,
               "calibrate's tiled copies and the profile's must agree");

const char *const tn_calib_required_keys[] = {
    "schema",   "tuner_version", "date",         "host",
    "command",  "device",        "toolkit",      "settings",
    "measurements", "shared_memory", NULL};

void tn_calib_stat_from(double *v, int n, tn_calib_stat *s)
{
  tn_timing t;
  /* the same order statistics as every timing of the tuner */
  tn_timing_from_samples(v, n, &t);
  s->median = t.median_ms;
  s->q1 = t.q1_ms;
  s->q3 = t.q3_ms;
  s->min = t.min_ms;
  s->max = t.max_ms;
  s->reps = t.repetitions;
}

static void name(tn_calib_metric *m, const char *key, const char *unit,
                 const char *method)
{
  m->key = key;
  m->unit = unit;
  m->method = method;
}

void tn_calib_profile_init(tn_calib_profile *p)
{
  memset(p, 0, sizeof(*p));
  name(&p->clock, "sm_clock", "MHz",
       "one thread spins on clock64 for 2^22 and 2^24 SM cycles, each "
       "timed with CUDA events; the clock is the difference of cycles "
       "over the difference of times (the launch cancels)");
  name(&p->launch, "launch_overhead", "us",
       "1000 launches of an empty kernel (1 block of 32 threads) back to "
       "back on one stream between two CUDA events, per launch");
  name(&p->copy, "global_copy", "GB/s",
       "a grid-stride float4 copy kernel between two device buffers of "
       "max(256 MiB, 4 x L2) each, filled with 1.0f; bytes read plus "
       "written over the CUDA-event time of one launch");
  name(&p->memcpy_dtod, "memcpy_dtod", "GB/s",
       "cuMemcpyDtoDAsync of the same buffers, bytes read plus written "
       "over the CUDA-event time (the tuner's transpose baseline)");
  {
    int k;
    for (k = 0; k < TN_CALIB_N_TILE_ROWS; k++)
      name(&p->tiles[k], tn_profile_tile_key(k), "GB/s",
           "the square tiles of an 8192 x 8192 float matrix in one buffer "
           "moved to their transposed places in another, each tile row "
           "(the key's bytes) copied as it is, a block of up to 256 "
           "threads a tile, the tile's column fastest in blockIdx.x as a "
           "tiled transpose launches; bytes read plus written over the "
           "CUDA-event time of one launch");
  }
  {
    int op, w, r;
    for (op = 0; op < TN_PROFILE_TMA_OPS; op++)
      for (w = 0; w < TN_PROFILE_TMA_N_WIDTHS; w++)
        for (r = 0; r < TN_PROFILE_TMA_N_ROWS; r++) {
          tn_profile_tma_key(op, w, r, p->tma_keys[op][w][r],
                             sizeof(p->tma_keys[op][w][r]));
          name(&p->tma[op][w][r], p->tma_keys[op][w][r], "ns",
               op ? "the copy engine stores boxes of the key's rows and "
                    "row bytes (under the 32, 64 or 128-byte swizzle of "
                    "their width, none at 256) from shared memory into a "
                    "4 MiB float tensor (2048 x 512, in L2), one thread of "
                    "each block issuing them, two groups in flight "
                    "(cp.async.bulk.wait_group.read 1), as many blocks of "
                    "32 KiB as an SM holds (at most 8) on every SM; the "
                    "CUDA-event time of one launch over the boxes one SM "
                    "stores"
                  : "the copy engine loads boxes of the key's rows and "
                    "row bytes (under the 32, 64 or 128-byte swizzle of "
                    "their width, none at 256) from a 4 MiB float tensor "
                    "(2048 x 512, in L2) into shared memory, one thread of "
                    "each block issuing them, two halves of its 32 KiB in "
                    "flight on two mbarriers, as many blocks as an SM holds "
                    "(at most 8) on every SM; the CUDA-event time of one "
                    "launch over the boxes one SM loads");
        }
  }
  name(&p->fma, "fp32_fma", "TFLOP/s",
       "fmaf chains, 8 independent a thread, 2 flops each, in as many "
       "blocks of 256 threads as one SM holds (threads, registers; at "
       "most 8), on every SM; one launch per repetition");
  name(&p->imad, "int_imad", "Gop/s",
       "PTX mad.lo.u32 chains (SASS IMAD), 8 independent a thread, one "
       "op each, blocks as for fp32_fma");
  name(&p->shift_lop3, "int_shift_lop3", "Gop/s",
       "PTX shl.b32 then lop3.b32 (3-input XOR) chains, 8 independent a "
       "thread, two ops a step (ptxas may issue the shift as IMAD.SHL), "
       "blocks as for fp32_fma");
  name(&p->mma_bf16, "tensor_mma_bf16", "TFLOP/s",
       "mma.sync.aligned.m16n8k16 bf16 x bf16 + fp32, 8 independent "
       "accumulators a warp, 4096 flops each, blocks as for fp32_fma; "
       "register operands of a constant pattern (no shared or global "
       "traffic; random data may draw more power)");
  name(&p->cublas_bf16, "cublas_gemm_ex_bf16", "TFLOP/s",
       "cublasGemmEx 4096^3, bf16 A and B, fp32 C and compute, default "
       "algorithm, 2 M N K flops over the CUDA-event time of one call; "
       "inputs a constant pattern near 2^-7 (random data may draw more "
       "power)");
  p->smem_method =
      "lane l of every warp loads the W-byte element l * s of a 32 KiB "
      "shared buffer with ld.volatile.shared (W = 4, 8, 16; s = 1..64), "
      "loads_per_thread times, keeping a ring of 32 loads (16 of 16 "
      "bytes) in flight and XORing each slot's words into a result "
      "written out before loading it again.  One warp: 1 block of 32 "
      "threads, SM cycles (clock64) of its loads, per load.  Many warps: "
      "blocks_per_sm blocks of 256 threads (as many as fit) on every "
      "SM; ns per load per SM = CUDA-event time of the launch over the "
      "loads of the SM that ran the most blocks (most_blocks_seen); "
      "cycles per load per SM = each SM's clock64 span (first block's "
      "start to last block's end, by %smid) over its own loads, the "
      "median over SMs.  Ratios are medians against s = 1 (warp_ratio: "
      "one warp's cycles; sm_ratio: many warps' cycles; sm_ns_ratio: "
      "their event time, launch included); the predicted "
      "wavefronts are the model's (model/model.c) for the same "
      "addresses; *_per_wavefront is the least-squares slope of time "
      "per load over predicted wavefronts";
}

int tn_calib_metrics(const tn_calib_profile *p,
                     const tn_calib_metric *out[TN_CALIB_MAX_METRICS])
{
  int n = 0, k;
  out[n++] = &p->clock;
  out[n++] = &p->launch;
  out[n++] = &p->copy;
  out[n++] = &p->memcpy_dtod;
  for (k = 0; k < TN_CALIB_N_TILE_ROWS; k++)
    out[n++] = &p->tiles[k];
  {
    int op, w, r;
    for (op = 0; op < TN_PROFILE_TMA_OPS; op++)
      for (w = 0; w < TN_PROFILE_TMA_N_WIDTHS; w++)
        for (r = 0; r < TN_PROFILE_TMA_N_ROWS; r++)
          out[n++] = &p->tma[op][w][r];
  }
  out[n++] = &p->fma;
  out[n++] = &p->imad;
  out[n++] = &p->shift_lop3;
  out[n++] = &p->mma_bf16;
  out[n++] = &p->cublas_bf16;
  return n;
}

static json_t *stat_json(const tn_calib_stat *s)
{
  return json_pack("{s:f, s:f, s:f, s:f, s:f, s:i}", "median", s->median,
                   "q1", s->q1, "q3", s->q3, "min", s->min, "max", s->max,
                   "repetitions", s->reps);
}

static json_t *metric_json(const tn_calib_metric *m)
{
  json_t *o;
  if (!m->measured)
    return json_pack("{s:b, s:s, s:s, s:s}", "measured", 0, "unit", m->unit,
                     "method", m->method, "skipped", m->skipped);
  o = stat_json(&m->stat);
  if (o == NULL)
    return NULL;
  /* spread: the interquartile range against the median */
  if (json_object_set_new(o, "measured", json_true()) ||
      json_object_set_new(o, "unit", json_string(m->unit)) ||
      json_object_set_new(o, "method", json_string(m->method)) ||
      json_object_set_new(o, "spread",
                          json_real(m->stat.median > 0
                                        ? (m->stat.q3 - m->stat.q1) /
                                              m->stat.median
                                        : 0.0)) ||
      json_object_set_new(o, "work", json_real(m->work))) {
    json_decref(o);
    return NULL;
  }
  return o;
}

static json_t *stride_json(const tn_calib_stride *s)
{
  return json_pack("{s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:o, s:o, s:o}",
                   "stride", s->stride, "predicted_wavefronts",
                   s->predicted_wavefronts, "predicted_degree",
                   s->predicted_degree, "predicted_ratio",
                   s->predicted_ratio, "warp_ratio", s->warp_ratio,
                   "sm_ratio", s->sm_ratio, "sm_ns_ratio", s->sm_ns_ratio,
                   "warp_cycles_per_load",
                   stat_json(&s->warp_cycles), "sm_ns_per_load",
                   stat_json(&s->sm_ns), "sm_cycles_per_load",
                   stat_json(&s->sm_cycles));
}

static json_t *smem_json(const tn_calib_profile *p)
{
  json_t *widths = json_array(), *o;
  int w, s;
  if (widths == NULL)
    return NULL;
  for (w = 0; w < TN_CALIB_N_WIDTHS; w++) {
    const tn_calib_width *cw = &p->smem[w];
    json_t *strides = json_array(), *one;
    if (strides == NULL)
      goto fail;
    for (s = 0; s < TN_CALIB_MAX_STRIDE; s++)
      if (json_array_append_new(strides, stride_json(&cw->s[s]))) {
        json_decref(strides);
        goto fail;
      }
    one = json_pack("{s:i, s:i, s:i, s:f, s:f, s:f, s:o}", "width",
                    cw->width, "blocks_per_sm", cw->blocks_per_sm,
                    "most_blocks_seen", cw->most_blocks_seen,
                    "warp_cycles_per_wavefront",
                    cw->warp_cycles_per_wavefront, "sm_ns_per_wavefront",
                    cw->sm_ns_per_wavefront, "sm_cycles_per_wavefront",
                    cw->sm_cycles_per_wavefront, "strides", strides);
    if (json_array_append_new(widths, one))
      goto fail;
  }
  o = json_pack("{s:s, s:i, s:i, s:o}", "method", p->smem_method,
                "loads_per_thread", p->smem_loads, "threads_per_block",
                TN_CALIB_BLOCK, "widths", widths);
  return o;
fail:
  json_decref(widths);
  return NULL;
}

static json_t *profile_json(const tn_calib_profile *p)
{
  const tn_calib_metric *m[TN_CALIB_MAX_METRICS];
  json_t *root, *meas = json_object(), *device;
  char cc[16];
  int i, n = tn_calib_metrics(p, m);

  if (meas == NULL)
    return NULL;
  for (i = 0; i < n; i++)
    if (json_object_set_new(meas, m[i]->key, metric_json(m[i]))) {
      json_decref(meas);
      return NULL;
    }
  snprintf(cc, sizeof(cc), "%d.%d", p->cc_major, p->cc_minor);
  device = json_pack(
      "{s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, "
      "s:i, s:i, s:I}",
      "name", p->name, "arch", p->arch, "cc", cc, "ordinal", p->ordinal,
      "pci_bus_id", p->pci_bus_id, "sm_count", p->sm_count,
      "clock_rate_khz", p->clock_khz, "memory_clock_rate_khz",
      p->mem_clock_khz, "memory_bus_width_bits", p->bus_width_bits,
      "l2_bytes", p->l2_bytes, "smem_per_sm", p->smem_per_sm,
      "smem_per_block_optin", p->smem_per_block_optin,
      "max_threads_per_sm", p->max_threads_per_sm, "regs_per_sm",
      p->regs_per_sm, "warp_size", p->warp_size, "total_mem_bytes",
      (json_int_t)p->total_mem);
  root = json_pack(
      "{s:s, s:s, s:s, s:s, s:s, s:o, s:{s:s, s:s}, s:{s:i, s:i}, s:o, "
      "s:o}",
      "schema", TN_CALIB_SCHEMA, "tuner_version", p->version, "date",
      p->date, "host", p->host, "command", p->command, "device", device,
      "toolkit", "driver", p->driver, "nvrtc", p->nvrtc, "settings",
      "repetitions", p->repetitions, "warmup", p->warmup, "measurements",
      meas, "shared_memory", smem_json(p));
  return root;
}

int tn_calib_write(const tn_calib_profile *p, const char *path, tn_err *err)
{
  json_t *root = profile_json(p);
  char *text;
  int rc;
  /* json_real refuses NaN and infinities, which no guarded division
   * here gives; else this is memory */
  if (root == NULL)
    return tn_errf(err, TN_ETOOL, "cannot build the profile's JSON (out of "
                                  "memory, or a figure that is not finite)");
  text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
  json_decref(root);
  if (text == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory writing the profile");
  /* a newline at the end, as text files have */
  {
    size_t len = strlen(text);
    char *t = realloc(text, len + 2);
    if (t == NULL) {
      free(text);
      return tn_errf(err, TN_ETOOL, "out of memory writing the profile");
    }
    text = t;
    text[len] = '\n';
    text[len + 1] = '\0';
  }
  rc = tn_write_file_atomic(path, text, strlen(text), err);
  free(text);
  return rc;
}

void tn_calib_print(const tn_calib_profile *p, FILE *out)
{
  const tn_calib_metric *m[TN_CALIB_MAX_METRICS];
  int i, w, n = tn_calib_metrics(p, m);

  fprintf(out, "device %d: %s (%s, cc %d.%d), %d SMs, clock %.0f MHz "
               "(attribute), L2 %d KiB; driver %s, NVRTC %s\n",
          p->ordinal, p->name, p->arch, p->cc_major, p->cc_minor,
          p->sm_count, p->clock_khz / 1000.0, p->l2_bytes / 1024,
          p->driver, p->nvrtc);
  for (i = 0; i < n; i++) {
    if (!m[i]->measured) {
      fprintf(out, "  %-22s not measured: %s\n", m[i]->key, m[i]->skipped);
      continue;
    }
    fprintf(out, "  %-22s %10.4g %-8s (q1 %.4g, q3 %.4g, %d reps)\n",
            m[i]->key, m[i]->stat.median, m[i]->unit, m[i]->stat.q1,
            m[i]->stat.q3, m[i]->stat.reps);
  }
  for (w = 0; w < TN_CALIB_N_WIDTHS; w++) {
    const tn_calib_width *cw = &p->smem[w];
    int s;
    fprintf(out, "\nshared loads of %d bytes, lane l at element l*s "
                 "(%d blocks of %d threads a SM): one wavefront adds "
                 "%.3g cycles to one warp, %.3g ns = %.3g cycles to an SM "
                 "of many warps\n",
            cw->width, cw->blocks_per_sm, TN_CALIB_BLOCK,
            cw->warp_cycles_per_wavefront, cw->sm_ns_per_wavefront,
            cw->sm_cycles_per_wavefront);
    fprintf(out, "  (wavefronts and degree: the model's; ratios against "
                 "stride 1: warp = one warp, sm = many warps, in clock64 "
                 "cycles; sm.cycles and sm.ns: per load per SM)\n");
    fprintf(out, "  %6s %10s %6s %10s %10s %10s %10s %10s\n", "stride",
            "wavefronts", "degree", "pred.ratio", "warp.ratio", "sm.ratio",
            "sm.cycles", "sm.ns");
    for (s = 0; s < TN_CALIB_MAX_STRIDE; s++) {
      const tn_calib_stride *st = &cw->s[s];
      fprintf(out, "  %6d %10d %6d %10.2f %10.2f %10.2f %10.3f %10.4f\n",
              st->stride, st->predicted_wavefronts, st->predicted_degree,
              st->predicted_ratio, st->warp_ratio, st->sm_ratio,
              st->sm_cycles.median, st->sm_ns.median);
    }
  }
}

/* profile.c -- device profiles for the time model: read from a calibrate
 * JSON, found by architecture, or derived from the architecture table. */
#define _POSIX_C_SOURCE 200809L
#include "model/profile.h"

#include <math.h>

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The figure at key of the measurements as a range (median, q1, q3).
 * required: a missing or unmeasured one is an error; else it reads as
 * 0.  Returns 0 or TN_EINPUT. */
static int metric(const char *path, json_t *meas, const char *key,
                  int required, tn_range *r, tn_err *err)
{
  json_t *m = json_object_get(meas, key);
  double v[3];
  const char *names[3] = {"median", "q1", "q3"};
  int i;

  memset(r, 0, sizeof(*r));
  if (!required && (m == NULL || json_is_false(json_object_get(m,
                                                               "measured"))))
    return 0;
  if (!json_is_object(m))
    return tn_errf(err, TN_EINPUT,
                   "%s: measurements.%s: missing (expected an object with "
                   "median, q1 and q3)", path, key);
  if (json_is_false(json_object_get(m, "measured")))
    return tn_errf(err, TN_EINPUT,
                   "%s: measurements.%s: not measured; the time model "
                   "needs it", path, key);
  for (i = 0; i < 3; i++) {
    json_t *x = json_object_get(m, names[i]);
    if (!json_is_number(x) || json_number_value(x) <= 0)
      return tn_errf(err, TN_EINPUT,
                     "%s: measurements.%s.%s: expected a positive number",
                     path, key, names[i]);
    v[i] = json_number_value(x);
  }
  if (v[1] > v[0] || v[0] > v[2])
    return tn_errf(err, TN_EINPUT,
                   "%s: measurements.%s: expected q1 <= median <= q3, not "
                   "%g, %g, %g", path, key, v[1], v[0], v[2]);
  r->mid = v[0];
  r->lo = v[1];
  r->hi = v[2];
  return 0;
}

/* An SM count past this is no GPU's: the model multiplies it with block
 * counts in int (cuda_occupancy.h's numSms is one). */
#define MAX_SMS 65536

/* dev.key, when there, an integer in [lo, hi] (checked as the JSON's
 * integer, before it becomes an int: 2^32 must not wrap to 0).  *out 0
 * when absent and optional.  0 or TN_EINPUT naming the file and key. */
static int device_int(const char *path, json_t *dev, const char *key,
                      int required, long long lo, long long hi,
                      long long *out, tn_err *err)
{
  json_t *v = json_object_get(dev, key);
  *out = 0;
  if (v == NULL && !required)
    return 0;
  if (!json_is_integer(v) || json_integer_value(v) < lo ||
      json_integer_value(v) > hi)
    return tn_errf(err, TN_EINPUT,
                   "%s: device.%s: expected an integer in [%lld, %lld]",
                   path, key, lo, hi);
  *out = (long long)json_integer_value(v);
  return 0;
}

static int device_fields(const char *path, json_t *dev, tn_profile *p,
                         tn_err *err)
{
  json_t *arch = json_object_get(dev, "arch");
  json_t *name = json_object_get(dev, "name");
  long long sms, mclk, bus;

  if (!json_is_string(arch) || tn_arch_find(json_string_value(arch)) == NULL)
    return tn_errf(err, TN_EINPUT,
                   "%s: device.arch: expected a known architecture "
                   "(sm_XX)", path);
  /* the memory's clock and bus: 0 where they were not known, and then
   * no DRAM peak (as before these checks) */
  if (device_int(path, dev, "sm_count", 1, 1, MAX_SMS, &sms, err) ||
      device_int(path, dev, "memory_clock_rate_khz", 0, 0, INT_MAX, &mclk,
                 err) ||
      device_int(path, dev, "memory_bus_width_bits", 0, 0, INT_MAX, &bus,
                 err))
    return TN_EINPUT;
  tn_strlcpy(p->arch, json_string_value(arch), sizeof(p->arch));
  tn_strlcpy(p->device, json_is_string(name) ? json_string_value(name) : "?",
             sizeof(p->device));
  p->sm_count = (int)sms;
  /* DDR: two transfers a clock over the bus */
  if (mclk > 0 && bus > 0)
    p->peak_dram_gbs = 2.0 * (double)mclk * 1e3 * (double)bus / 8.0 / 1e9;
  return 0;
}

static int smem_fields(const char *path, json_t *sm, tn_profile *p,
                       tn_err *err)
{
  json_t *widths = json_object_get(sm, "widths");
  size_t i;
  int seen = 0;

  if (!json_is_array(widths))
    return tn_errf(err, TN_EINPUT,
                   "%s: shared_memory.widths: expected an array", path);
  for (i = 0; i < json_array_size(widths); i++) {
    json_t *o = json_array_get(widths, i);
    json_t *wd = json_object_get(o, "width");
    json_t *c = json_object_get(o, "sm_cycles_per_wavefront");
    int k;
    json_int_t wv;
    if (!json_is_integer(wd) || !json_is_number(c) ||
        json_number_value(c) <= 0)
      return tn_errf(err, TN_EINPUT,
                     "%s: shared_memory.widths[%zu]: expected width and a "
                     "positive sm_cycles_per_wavefront", path, i);
    /* compared as the JSON's integer: 2^32 + 4 is not 4 */
    wv = json_integer_value(wd);
    k = wv == 4 ? 0 : wv == 8 ? 1 : wv == 16 ? 2 : -1;
    if (k < 0)
      return tn_errf(err, TN_EINPUT,
                     "%s: shared_memory.widths[%zu].width: expected 4, 8 "
                     "or 16, not %lld", path, i, (long long)wv);
    p->smem_cycles_per_wavefront[k] = json_number_value(c);
    seen |= 1 << k;
  }
  if (seen != 7)
    return tn_errf(err, TN_EINPUT,
                   "%s: shared_memory.widths: expected widths 4, 8 and 16",
                   path);
  return 0;
}

int tn_profile_read(const char *path, tn_profile *out, tn_err *err)
{
  json_error_t je;
  json_t *doc = json_load_file(path, 0, &je), *meas;
  const char *schema;
  int rc = 0;

  memset(out, 0, sizeof(*out));
  if (doc == NULL)
    return tn_errf(err, TN_EINPUT, "%s:%d: not a device profile: %s", path,
                   je.line, je.text);
  schema = json_string_value(json_object_get(doc, "schema"));
  if (schema == NULL || strcmp(schema, TN_PROFILE_SCHEMA) != 0) {
    rc = tn_errf(err, TN_EINPUT, "%s: schema: expected \"%s\" (a profile "
                 "written by `tuner calibrate`)", path, TN_PROFILE_SCHEMA);
    goto cleanup;
  }
  tn_strlcpy(out->path, path, sizeof(out->path));
  rc = device_fields(path, json_object_get(doc, "device"), out, err);
  meas = json_object_get(doc, "measurements");
  if (rc == 0 && !json_is_object(meas))
    rc = tn_errf(err, TN_EINPUT, "%s: measurements: expected an object",
                 path);
  if (rc == 0)
    rc = metric(path, meas, "sm_clock", 1, &out->clock_mhz, err);
  if (rc == 0)
    rc = metric(path, meas, "launch_overhead", 1, &out->launch_us, err);
  if (rc == 0)
    rc = metric(path, meas, "global_copy", 1, &out->copy_gbs, err);
  {
    /* optional: profiles before 2026-12-02 have none */
    int k, have = 0;
    for (k = 0; rc == 0 && k < TN_PROFILE_N_TILE_ROWS; k++) {
      rc = metric(path, meas, tn_profile_tile_key(k), 0,
                  &out->tile_copy_gbs[k], err);
      have += out->tile_copy_gbs[k].mid > 0;
    }
    /* the shares interpolate between the four: a part of them would
     * price some rows and not others */
    if (rc == 0 && have > 0 && have < TN_PROFILE_N_TILE_ROWS)
      rc = tn_errf(err, TN_EINPUT,
                   "%s: measurements.global_tiles_*: %d of the %d tiled "
                   "copies measured; expected all or none", path, have,
                   TN_PROFILE_N_TILE_ROWS);
  }
  {
    /* optional: profiles before 2026-12-03, and GPUs before sm_90, have
     * none; like the tiled copies, all or none */
    int op, w, r, have = 0, all = 0;
    char key[64];
    for (op = 0; op < TN_PROFILE_TMA_OPS; op++)
      for (w = 0; w < TN_PROFILE_TMA_N_WIDTHS; w++)
        for (r = 0; rc == 0 && r < TN_PROFILE_TMA_N_ROWS; r++) {
          tn_profile_tma_key(op, w, r, key, sizeof(key));
          rc = metric(path, meas, key, 0, &out->tma_box_ns[op][w][r], err);
          have += out->tma_box_ns[op][w][r].mid > 0;
          all++;
        }
    if (rc == 0 && have > 0 && have < all)
      rc = tn_errf(err, TN_EINPUT,
                   "%s: measurements.tma_*: %d of the copy engine's %d "
                   "boxes measured; expected all or none", path, have, all);
  }
  if (rc == 0)
    rc = metric(path, meas, "fp32_fma", 1, &out->fma_tflops, err);
  if (rc == 0)
    rc = metric(path, meas, "int_imad", 1, &out->imad_gops, err);
  if (rc == 0)
    rc = metric(path, meas, "int_shift_lop3", 1, &out->lop3_gops, err);
  if (rc == 0)
    rc = metric(path, meas, "tensor_mma_bf16", 0, &out->mma_tflops, err);
  if (rc == 0)
    rc = metric(path, meas, "cublas_gemm_ex_bf16", 0, &out->gemm_tflops,
                err);
  if (rc == 0)
    rc = smem_fields(path, json_object_get(doc, "shared_memory"), out, err);
cleanup:
  json_decref(doc);
  return rc;
}

/* The date a profile's name ends in ("...-20261201.json"), or the name. */
static const char *date_of(const char *name)
{
  size_t len = strlen(name);
  return len > 13 ? name + len - 13 : name;
}

int tn_profile_find(const char *dir, const char *arch, char *out, size_t n)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  char best[1024] = "", prefix[32];
  size_t pl;

  if (d == NULL)
    return 0;
  snprintf(prefix, sizeof(prefix), "%s-", arch ? arch : "sm_");
  if (arch == NULL)
    prefix[3] = '\0'; /* "sm_": any architecture */
  pl = strlen(prefix);
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    int c;
    if (strncmp(e->d_name, prefix, pl) != 0 || len < 5 ||
        len >= sizeof(best) || strcmp(e->d_name + len - 5, ".json") != 0)
      continue;
    c = best[0] ? strcmp(date_of(e->d_name), date_of(best)) : 1;
    if (c > 0 || (c == 0 && strcmp(e->d_name, best) > 0))
      tn_strlcpy(best, e->d_name, sizeof(best));
  }
  closedir(d);
  if (best[0] == '\0')
    return 0;
  snprintf(out, n, "%s/%s", dir, best);
  return 1;
}

/* The vendor figures of arch, or of the nearest older one that has
 * them (NULL if none). */
static const tn_arch *with_figures(const tn_arch *arch)
{
  int i;
  const tn_arch *best = NULL;
  for (i = 0; i < tn_arch_count(); i++) {
    const tn_arch *a = tn_arch_at(i);
    if (a->product_sms > 0 &&
        a->major * 10 + a->minor <= arch->major * 10 + arch->minor)
      best = a;
  }
  return best;
}

/* A time's end of a range: the fast end (+1) is the low one. */
static double pick_time(const tn_range *r, int end)
{
  return end == 0 ? r->mid : end > 0 ? r->lo : r->hi;
}

static void scale(tn_range *r, const tn_range *from, double ratio)
{
  r->mid = from->mid * ratio;
  r->lo = from->lo * ratio;
  r->hi = from->hi * ratio;
}

/* A range of mid with a relative spread of rel either side. */
static tn_range spread(double mid, double rel)
{
  tn_range r;
  r.mid = mid;
  r.lo = mid * (1 - rel);
  r.hi = mid * (1 + rel);
  return r;
}

/* An architecture-specific target ("sm_90a") has its compute
 * capability's figures and profiles: those of the plain entry. */
static const tn_arch *plain_arch(const tn_arch *arch)
{
  const tn_arch *p =
      arch->features ? tn_arch_from_cc(arch->major, arch->minor) : NULL;
  return p != NULL ? p : arch;
}

void tn_profile_derive(const tn_arch *arch, const tn_profile *from,
                       tn_profile *out)
{
  const tn_arch *v, *fa;
  double clk, sms, lanes, tens, vdram, fclk, fsms, used;
  size_t n;
  int k;

  arch = plain_arch(arch);
  v = with_figures(arch);
  memset(out, 0, sizeof(*out));
  out->derived = 1;
  tn_strlcpy(out->arch, arch->name, sizeof(out->arch));
  if (v == NULL)
    v = tn_arch_find("sm_75"); /* the oldest has figures: never NULL */
  snprintf(out->device, sizeof(out->device), "%s (derived)", v->product);
  sms = v->product_sms;
  clk = v->product_boost_mhz;
  lanes = arch->fp32_lanes_per_sm;
  tens = arch->tensor_flops_per_sm_clk;
  vdram = v->product_dram_gbs;
  out->sm_count = (int)sms;
  n = (size_t)snprintf(out->derived_from, sizeof(out->derived_from),
                       "%s's table figures (%s%s%s: %d SMs, %d MHz, %d "
                       "GB/s; %s)", arch->name, v->product,
                       v != arch ? ", the nearest older with figures, " : "",
                       v != arch ? v->name : "", v->product_sms,
                       v->product_boost_mhz, v->product_dram_gbs, v->source);
  if (from == NULL) {
    /* no measurement: the peaks themselves, a wide uncertainty; the
     * launch an assumption of its order (the H200 measured 4.1 us) */
    out->clock_mhz = spread(clk, 0.1);
    out->launch_us = spread(4.0, 0.5);
    out->copy_gbs = spread(vdram, 0.25);
    out->fma_tflops = spread(sms * clk * 1e6 * lanes * 2 / 1e12, 0.25);
    out->imad_gops = spread(sms * clk * 1e6 * lanes / 2 / 1e9, 0.25);
    out->lop3_gops = spread(sms * clk * 1e6 * lanes / 1e9, 0.25);
    out->mma_tflops = spread(sms * clk * 1e6 * (tens ? tens : 4 * lanes) /
                             1e12, 0.4);
    for (k = 0; k < 3; k++)
      out->smem_cycles_per_wavefront[k] = 1.0;
    if (n < sizeof(out->derived_from))
      snprintf(out->derived_from + n, sizeof(out->derived_from) - n,
               ", unscaled: no measured profile");
    return;
  }
  fa = tn_arch_find(from->arch);
  fclk = from->clock_mhz.mid;
  fsms = from->sm_count;
  /* per SM and clock, the measured GPU's ratio of measured to peak */
  scale(&out->clock_mhz, &from->clock_mhz, clk / fclk);
  out->launch_us = from->launch_us;
  scale(&out->copy_gbs, &from->copy_gbs,
        vdram / (from->peak_dram_gbs > 0 ? from->peak_dram_gbs
                                         : from->copy_gbs.mid));
  /* the tiled copies at the copy's scale: their share of it as measured */
  for (k = 0; k < TN_PROFILE_N_TILE_ROWS; k++)
    scale(&out->tile_copy_gbs[k], &from->tile_copy_gbs[k],
          out->copy_gbs.mid / from->copy_gbs.mid);
  /* the copy engine, one an SM, at the SM clock; none before sm_90 */
  if (arch->major >= 9) {
    int op, w, r;
    for (op = 0; op < TN_PROFILE_TMA_OPS; op++)
      for (w = 0; w < TN_PROFILE_TMA_N_WIDTHS; w++)
        for (r = 0; r < TN_PROFILE_TMA_N_ROWS; r++)
          scale(&out->tma_box_ns[op][w][r], &from->tma_box_ns[op][w][r],
                fclk / clk);
  }
  scale(&out->fma_tflops, &from->fma_tflops,
        (sms * clk * lanes) / (fsms * fclk * fa->fp32_lanes_per_sm));
  scale(&out->imad_gops, &from->imad_gops,
        (sms * clk * lanes) / (fsms * fclk * fa->fp32_lanes_per_sm));
  scale(&out->lop3_gops, &from->lop3_gops,
        (sms * clk * lanes) / (fsms * fclk * fa->fp32_lanes_per_sm));
  used = tens > 0 && fa->tensor_flops_per_sm_clk > 0
             ? tens / fa->tensor_flops_per_sm_clk
             : 1.0;
  scale(&out->mma_tflops, &from->mma_tflops, (sms * clk) / (fsms * fclk) *
                                                 used);
  /* the dense GEMM's rate (wgmma's on sm_90) carries only between GPUs
   * whose GEMMs pass mma.sync's, sm_90 and later */
  if (arch->major >= 9 && fa->major >= 9)
    scale(&out->gemm_tflops, &from->gemm_tflops,
          (sms * clk) / (fsms * fclk) * used);
  for (k = 0; k < 3; k++)
    out->smem_cycles_per_wavefront[k] = from->smem_cycles_per_wavefront[k];
  if (n < sizeof(out->derived_from))
    snprintf(out->derived_from + n, sizeof(out->derived_from) - n,
             ", scaled by %.600s measured on %s (%s): bandwidth by its "
             "share of the peak, fp32, integer%s throughput per SM and "
             "clock, the launch and shared memory's cycles per wavefront as measured, "
             "from sm_90 the copy engine's boxes at the clocks' ratio",
             from->path, from->device, from->arch,
             tens > 0 ? " and tensor" : ", tensor (per SM and clock as "
                                        "measured: not in the table)");
}

const char *tn_profile_tile_key(int k)
{
  /* TN_PROFILE_TILE_ROWS's lengths, as the keys name them */
  static const char *const keys[TN_PROFILE_N_TILE_ROWS] = {
      "global_tiles_64", "global_tiles_128", "global_tiles_256",
      "global_tiles_512"};
  return k >= 0 && k < TN_PROFILE_N_TILE_ROWS ? keys[k] : "";
}

void tn_profile_tma_key(int op, int w, int r, char *out, size_t n)
{
  static const int widths[TN_PROFILE_TMA_N_WIDTHS] = TN_PROFILE_TMA_WIDTHS;
  static const int rows[TN_PROFILE_TMA_N_ROWS] = TN_PROFILE_TMA_ROWS;
  snprintf(out, n, "tma_%s_%dx%dB", op ? "store" : "load", rows[r],
           widths[w]);
}

/* ns of one box of rows at width index w: the line through the two
 * measured row counts (at least 0: a box costs no less than nothing). */
static double box_ns_at(const tn_profile *p, int op, int w, double rows,
                        int end)
{
  static const double rs[TN_PROFILE_TMA_N_ROWS] = TN_PROFILE_TMA_ROWS;
  double t0 = pick_time(&p->tma_box_ns[op][w][0], end);
  double t1 = pick_time(&p->tma_box_ns[op][w][1], end);
  double v = t0 + (rows - rs[0]) * (t1 - t0) / (rs[1] - rs[0]);
  return v > 0 ? v : 0;
}

double tn_profile_tma_box_ns(const tn_profile *p, int op, double row_bytes,
                             double rows, int end)
{
  static const double ws[TN_PROFILE_TMA_N_WIDTHS] = TN_PROFILE_TMA_WIDTHS;
  double f;
  int k;
  if (op < 0 || op >= TN_PROFILE_TMA_OPS || rows <= 0 || row_bytes <= 0 ||
      p->tma_box_ns[op][0][0].mid <= 0)
    return 0;
  if (row_bytes <= ws[0])
    return box_ns_at(p, op, 0, rows, end);
  for (k = 1; k < TN_PROFILE_TMA_N_WIDTHS; k++)
    if (row_bytes <= ws[k]) {
      double a = box_ns_at(p, op, k - 1, rows, end);
      double b = box_ns_at(p, op, k, rows, end);
      f = log2(row_bytes / ws[k - 1]) / log2(ws[k] / ws[k - 1]);
      return a + f * (b - a);
    }
  /* wider than measured: the widest's time a byte (its rows at the
   * path's rate) */
  return box_ns_at(p, op, TN_PROFILE_TMA_N_WIDTHS - 1, rows, end) *
         row_bytes / ws[TN_PROFILE_TMA_N_WIDTHS - 1];
}

double tn_profile_tma_excess_ns(const tn_profile *p, int op,
                                double row_bytes, double rows, int end)
{
  static const double ws[TN_PROFILE_TMA_N_WIDTHS] = TN_PROFILE_TMA_WIDTHS;
  static const double rs[TN_PROFILE_TMA_N_ROWS] = TN_PROFILE_TMA_ROWS;
  double t = tn_profile_tma_box_ns(p, op, row_bytes, rows, end), least = 0;
  int w, r;
  if (t <= 0)
    return 0;
  for (w = 0; w < TN_PROFILE_TMA_N_WIDTHS; w++)
    for (r = 0; r < TN_PROFILE_TMA_N_ROWS; r++) {
      double per_byte =
          pick_time(&p->tma_box_ns[op][w][r], end) / (ws[w] * rs[r]);
      if (least == 0 || per_byte < least)
        least = per_byte;
    }
  t -= row_bytes * rows * least;
  return t > 0 ? t : 0;
}

double tn_profile_row_share(const tn_profile *p, double row_bytes)
{
  static const double rows[TN_PROFILE_N_TILE_ROWS] = TN_PROFILE_TILE_ROWS;
  double share[TN_PROFILE_N_TILE_ROWS], f, s;
  int k;
  if (row_bytes <= 0 || p->copy_gbs.mid <= 0)
    return 1.0;
  for (k = 0; k < TN_PROFILE_N_TILE_ROWS; k++) {
    if (p->tile_copy_gbs[k].mid <= 0)
      return 1.0; /* not measured */
    share[k] = p->tile_copy_gbs[k].mid / p->copy_gbs.mid;
    if (share[k] > 1)
      share[k] = 1;
  }
  if (row_bytes <= rows[0])
    return share[0];
  for (k = 1; k < TN_PROFILE_N_TILE_ROWS; k++)
    if (row_bytes <= rows[k]) {
      f = log2(row_bytes / rows[k - 1]) / log2(rows[k] / rows[k - 1]);
      s = share[k - 1] + f * (share[k] - share[k - 1]);
      return s;
    }
  return share[TN_PROFILE_N_TILE_ROWS - 1];
}

int tn_profile_for(const char *path, const char *dir, const tn_arch *arch,
                   tn_profile *out, tn_err *err)
{
  char found[4200];
  tn_profile from;
  int rc;

  if (path != NULL)
    return tn_profile_read(path, out, err);
  arch = plain_arch(arch);
  if (tn_profile_find(dir, arch->name, found, sizeof(found)))
    return tn_profile_read(found, out, err);
  if (tn_profile_find(dir, NULL, found, sizeof(found))) {
    rc = tn_profile_read(found, &from, err);
    if (rc != 0)
      return rc;
    tn_profile_derive(arch, &from, out);
    return 0;
  }
  tn_profile_derive(arch, NULL, out);
  return 0;
}

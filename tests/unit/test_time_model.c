/* test_time_model.c -- the time model (model/time.c) on synthetic
 * profiles, the profile reader's errors and a derived profile
 * (model/profile.c), and the pruning by the time model (pipeline/space.c)
 * keeping a layout whose wavefront excess is small against its time. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/profile.h"
#include "model/time.h"
#include "profile_util.h"
#include "test_util.h"

/* A profile's JSON by hand: one measurement M(key, value) with its
 * quartiles equal; the keys every profile needs (PROFILE_HEAD, the
 * measurements left open for more) and the shared memory (PROFILE_TAIL,
 * closing them). */
#define M(k, v) "\"" k "\": {\"median\": " #v ", \"q1\": " #v ", \"q3\": " #v "}"
#define PROFILE_HEAD                                                      \
  "{\"schema\": \"tuner-device-profile/1\", \"device\": {\"arch\": "     \
  "\"sm_90\", \"sm_count\": 132}, \"measurements\": {"                    \
  M("sm_clock", 1980) "," M("launch_overhead", 4) ","                     \
  M("global_copy", 4000) "," M("fp32_fma", 64) ","                        \
  M("int_imad", 16000) "," M("int_shift_lop3", 32000)
#define PROFILE_TAIL                                                      \
  "}, \"shared_memory\": {\"widths\": [{\"width\": 4, "                     \
  "\"sm_cycles_per_wavefront\": 1}, {\"width\": 8, "                       \
  "\"sm_cycles_per_wavefront\": 1}, {\"width\": 16, "                      \
  "\"sm_cycles_per_wavefront\": 1}]}}"

/* An H200-like profile, by hand: the test's own figures. */
static void synthetic(tn_profile *p)
{
  tn_test_profile(p, 0.02);
}

/* A launch of 16384 blocks of 256 threads whose work is mostly DRAM
 * (memory = 1) or mostly fp32 FMA (memory = 0). */
static void launch(tn_time_input *in, tn_model_cost *m, int memory)
{
  memset(in, 0, sizeof(*in));
  memset(m, 0, sizeof(*m));
  in->blocks = 16384;
  in->threads = 256;
  in->smem_static = 8192;
  in->regs = 32;
  m->ld_wavefronts = m->st_wavefronts = 16384LL * 8 * 4;
  m->ld_insts = m->st_insts = 16384LL * 8 * 4;
  in->smem = m;
  in->work.dram_bytes = memory ? 512e6 : 1e6;
  in->work.fp32_flops = memory ? 1e6 : 2e10;
}

static double predict(const tn_time_input *in, const tn_profile *p,
                      tn_time_pred *out)
{
  tn_time_predict(in, tn_arch_find("sm_90"), p, out);
  return out->ms;
}

static void test_bandwidth(void)
{
  tn_profile p, fast;
  tn_time_input in;
  tn_model_cost m;
  tn_time_pred a, b;

  synthetic(&p);
  fast = p;
  fast.copy_gbs = tn_test_range(8000, 0.02);
  launch(&in, &m, 1);
  predict(&in, &p, &a);
  predict(&in, &fast, &b);
  CHECK(a.bound == TN_BOUND_DRAM);
  CHECK(b.ms < 0.7 * a.ms); /* twice the bandwidth: much faster */
  launch(&in, &m, 0);
  predict(&in, &p, &a);
  predict(&in, &fast, &b);
  CHECK(a.bound == TN_BOUND_FMA || a.bound == TN_BOUND_ISSUE);
  CHECK(fabs(b.ms - a.ms) < 0.01 * a.ms); /* compute-bound: no change */
}

static void test_monotone(void)
{
  tn_profile p;
  tn_time_input in;
  tn_model_cost m;
  tn_time_pred prev, now;
  int i;

  synthetic(&p);
  for (i = 0; i < 2; i++) {
    int step;
    launch(&in, &m, i);
    predict(&in, &p, &prev);
    for (step = 1; step <= 256; step *= 2) {
      m.ld_wavefronts = 16384LL * 8 * 4 * step;
      predict(&in, &p, &now);
      CHECK(now.ms >= prev.ms); /* more wavefronts never faster */
      CHECK(now.lo_ms < now.ms && now.ms < now.hi_ms); /* non-empty */
      prev = now;
    }
    CHECK(now.bound == TN_BOUND_SMEM);
  }
}

static void test_occupancy(void)
{
  const tn_arch *a = tn_arch_find("sm_90");
  /* 256 threads x 128 registers: the register file holds 2 blocks */
  CHECK_EQ_INT(tn_time_occupancy(a, 132, 256, 128, 0, 0), 2);
  /* 100 KiB of shared memory a block: 2 fit in 228 KiB */
  CHECK_EQ_INT(tn_time_occupancy(a, 132, 128, 32, 0, 100 * 1024), 2);
  CHECK_EQ_INT(tn_time_occupancy(a, 132, 1024, 32, 0, 0), 2);
}

/* Writes text to a fresh file; returns its path (static). */
static const char *write_tmp(const char *text)
{
  static char path[64];
  FILE *f;
  int fd;
  snprintf(path, sizeof(path), "/tmp/tn_profile_XXXXXX");
  fd = mkstemp(path);
  f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (f == NULL)
    return NULL;
  fputs(text, f);
  fclose(f);
  return path;
}

static void test_reader_errors(void)
{
  static const struct {
    const char *text, *expect;
  } cases[] = {
      {"{", "not a device profile"},
      {"{\"schema\": \"x\"}", "schema"},
      {"{\"schema\": \"tuner-device-profile/1\", \"device\": {\"arch\": "
       "\"sm_1\"}}", "device.arch"},
      {"{\"schema\": \"tuner-device-profile/1\", \"device\": {\"arch\": "
       "\"sm_90\", \"sm_count\": 132}, \"measurements\": {}}",
       "measurements.sm_clock"},
  };
  size_t i;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    tn_err err = {{0}};
    tn_profile p;
    const char *path = write_tmp(cases[i].text);
    CHECK(path != NULL);
    if (path == NULL)
      continue;
    CHECK_EQ_INT(tn_profile_read(path, &p, &err), TN_EINPUT);
    CHECK(strstr(err.msg, cases[i].expect) != NULL);
    CHECK(strstr(err.msg, path) != NULL);
    unlink(path);
  }
}

static void test_derived(void)
{
  tn_profile from, d, none;
  synthetic(&from);
  tn_strlcpy(from.path, "synthetic.json", sizeof(from.path));
  from.peak_dram_gbs = 4800;
  tn_profile_derive(tn_arch_find("sm_80"), &from, &d);
  CHECK(d.derived);
  CHECK_EQ_INT(d.sm_count, 108);
  CHECK(strstr(d.derived_from, "synthetic.json") != NULL);
  /* the A100's 2039 GB/s at the share of its peak the H200-like got */
  CHECK(fabs(d.copy_gbs.mid - 2039 * 4000 / 4800.0) < 1);
  CHECK(d.fma_tflops.mid < from.fma_tflops.mid / 2);
  tn_profile_derive(tn_arch_find("sm_121"), NULL, &none);
  CHECK(none.derived && none.sm_count > 0 && none.copy_gbs.mid > 0);
  CHECK(strstr(none.derived_from, "nearest older") != NULL);
}

/* The k-tile barriers: a block's syncs follow one another, so the term is
 * the waves an SM runs times the syncs times TN_TIME_BARRIER_NS, and a
 * launch with enough of them is bound by it. */
static void test_barriers(void)
{
  tn_profile p;
  tn_time_input in;
  tn_model_cost m;
  tn_time_pred none, some, many;
  double waves;

  synthetic(&p);
  launch(&in, &m, 0);
  predict(&in, &p, &none);
  CHECK(none.term_ms[TN_BOUND_SYNC] == 0);
  in.work.syncs = 256;
  predict(&in, &p, &some);
  waves = ceil((double)in.blocks / (some.blocks_per_sm * p.sm_count));
  CHECK(fabs(some.term_ms[TN_BOUND_SYNC] -
             waves * 256 * TN_TIME_BARRIER_NS * 1e-6) < 1e-9);
  CHECK(some.ms > none.ms);
  in.work.syncs = 1e5;
  predict(&in, &p, &many);
  CHECK(many.bound == TN_BOUND_SYNC);
  CHECK(strcmp(tn_bound_name(TN_BOUND_SYNC), "sync") == 0);
  /* a quarter of one wave: the chain is one wave's barriers, not
   * stretched again by the idle slots (the other terms are) */
  in.blocks = (long long)(many.blocks_per_sm * p.sm_count / 4);
  in.work.fp32_flops = 1e3;
  in.work.dram_bytes = 1e3;
  predict(&in, &p, &many);
  CHECK(many.waves < 0.3);
  CHECK(fabs(many.term_ms[TN_BOUND_SYNC] - 1e5 * TN_TIME_BARRIER_NS * 1e-6) <
        1e-9);
  CHECK(many.bound == TN_BOUND_SYNC);
  CHECK(many.ms < 1.5 * many.term_ms[TN_BOUND_SYNC]);
}

/* Grids smaller than the GPU: a block runs on an SM of its own, so the
 * per-SM work of a launch of b <= SMs blocks is one block's, whatever the
 * occupancy; one block more than the SMs doubles the busiest SM's. */
static void test_small_grids(void)
{
  tn_profile p;
  tn_time_input in;
  tn_model_cost m;
  tn_time_pred half, all, one_more;
  double launch_ms;

  synthetic(&p);
  launch(&in, &m, 0); /* FMA-bound */
  in.work.fp32_flops = 2e10 / 16384 * 66; /* the same work a block */
  in.blocks = 66;
  m.ld_wavefronts = m.st_wavefronts = 66LL * 8 * 4;
  m.ld_insts = m.st_insts = 66LL * 8 * 4;
  predict(&in, &p, &half);
  in.work.fp32_flops *= 2;
  in.blocks = 132;
  m.ld_wavefronts *= 2;
  m.st_wavefronts *= 2;
  m.ld_insts *= 2;
  m.st_insts *= 2;
  predict(&in, &p, &all);
  launch_ms = all.term_ms[TN_BOUND_LAUNCH];
  CHECK(half.blocks_per_sm > 1 && half.waves < 0.5);
  /* every busy SM runs one block: half the grid, the same time */
  CHECK(fabs(half.ms - all.ms) < 1e-9 * all.ms);
  CHECK(fabs(half.term_ms[TN_BOUND_FMA] - all.term_ms[TN_BOUND_FMA]) <
        1e-9 * all.ms);
  /* one block's FMAs at an SM's rate, not the launch's stretched over
   * the share of the slots that is used */
  CHECK(fabs(all.term_ms[TN_BOUND_FMA] -
             in.work.fp32_flops / (p.fma_tflops.mid * 1e12) * 1e3 *
                 p.sm_count / (double)in.blocks) < 1e-9 * all.ms);
  in.work.fp32_flops = in.work.fp32_flops / 132 * 133;
  in.blocks = 133;
  predict(&in, &p, &one_more);
  CHECK(fabs((one_more.ms - launch_ms) - 2 * (all.ms - launch_ms)) <
        0.05 * all.ms);
}

/* A ring of cp.async stages: each k-tile waits its loads' latency over
 * the stages in flight ahead of it.  A launch with little work is bound
 * by it (a third of it with three stages ahead than with one); one whose
 * compute takes far longer shows it barely. */
static void test_ring(void)
{
  tn_profile p;
  tn_time_input in;
  tn_model_cost m;
  tn_time_pred one, three, busy, none;

  synthetic(&p);
  launch(&in, &m, 0);
  in.blocks = 132; /* one wave */
  in.work.fp32_flops = 1e3;
  in.work.dram_bytes = 1e3;
  m.ld_wavefronts = m.st_wavefronts = m.ld_insts = m.st_insts = 132;
  in.work.ring_ktiles = 512;
  in.work.ring_ahead = 1;
  predict(&in, &p, &one);
  CHECK(one.bound == TN_BOUND_RING);
  CHECK(fabs(one.term_ms[TN_BOUND_RING] -
             512 * TN_TIME_RING_LATENCY_NS * 1e-6) < 1e-9);
  in.work.ring_ahead = 3;
  predict(&in, &p, &three);
  CHECK(fabs(three.term_ms[TN_BOUND_RING] * 3 - one.term_ms[TN_BOUND_RING]) <
        1e-9);
  CHECK(three.ms < one.ms / 2.5);
  CHECK(strcmp(tn_bound_name(TN_BOUND_RING), "ring") == 0);
  /* compute ten times the ring: the ring adds well under 1% */
  in.work.fp32_flops = 2e10 / 16384 * 132 * 40;
  in.work.ring_ktiles = 0;
  predict(&in, &p, &none);
  in.work.ring_ktiles = none.ms / 10 / (TN_TIME_RING_LATENCY_NS * 1e-6) * 3;
  predict(&in, &p, &busy);
  CHECK(busy.ms > none.ms && busy.ms < 1.001 * none.ms);
  CHECK(busy.bound != TN_BOUND_RING);
}

/* One warp a scheduler (a 128-thread block alone on an SM) overlaps its
 * resources less than many do; a warp with two independent streams of
 * work (ilp 2) overlaps them as two warps would. */
static void test_ilp(void)
{
  tn_profile p;
  tn_time_input in;
  tn_model_cost m;
  tn_time_pred one, two, warps8;

  synthetic(&p);
  launch(&in, &m, 0);
  in.blocks = 132;
  in.threads = 128;
  in.work.fp32_flops = 2e10 / 16384 * 132 / 2;
  /* shared memory about as long as the FMAs, few instructions */
  m.ld_wavefronts = 132LL * 2500;
  m.st_wavefronts = 0;
  m.ld_insts = m.st_insts = 132;
  predict(&in, &p, &one);
  in.work.ilp = 2;
  predict(&in, &p, &two);
  CHECK(two.ms < one.ms);
  in.work.ilp = 0;
  in.threads = 256; /* two warps a scheduler, the same work */
  predict(&in, &p, &warps8);
  CHECK(fabs(warps8.ms - two.ms) < 1e-9 * two.ms);
}

/* A tiled kernel's DRAM rows: the profile's tiled copies against its
 * copy, log-linear between the lengths measured, the nearest beyond
 * them, at most 1; none measured (older profiles) or a row of 0: the
 * copy's; some measured and not all: the reader's error. */
static void test_tile_rows(void)
{
  static const char text[] =
      PROFILE_HEAD "," M("global_tiles_64", 2800) ","
      M("global_tiles_128", 3600) "," M("global_tiles_256", 3880) ","
      M("global_tiles_512", 3900) PROFILE_TAIL;
  tn_err err = {{0}};
  tn_profile p, plain, d;
  tn_time_input in;
  tn_model_cost m;
  tn_time_pred rows0, rows128;
  const char *path = write_tmp(text);
  CHECK(path != NULL);
  if (path == NULL)
    return;
  CHECK_EQ_INT(tn_profile_read(path, &p, &err), 0);
  unlink(path);
  CHECK(fabs(p.tile_copy_gbs[1].mid - 3600) < 1e-9);
  CHECK(fabs(tn_profile_row_share(&p, 64) - 0.7) < 1e-9);
  CHECK(fabs(tn_profile_row_share(&p, 32) - 0.7) < 1e-9);
  CHECK(fabs(tn_profile_row_share(&p, 128) - 0.9) < 1e-9);
  CHECK(fabs(tn_profile_row_share(&p, 96) - (0.7 + log2(1.5) * 0.2)) <
        1e-9);
  CHECK(fabs(tn_profile_row_share(&p, 512) - 0.975) < 1e-9);
  CHECK(fabs(tn_profile_row_share(&p, 4096) - 0.975) < 1e-9);
  CHECK(fabs(tn_profile_row_share(&p, 0) - 1) < 1e-9);
  {
    tn_profile over = p; /* a tiled copy above the copy: at most 1 */
    over.tile_copy_gbs[3].mid = 4400;
    CHECK(fabs(tn_profile_row_share(&over, 512) - 1) < 1e-9);
  }
  synthetic(&plain);
  CHECK(fabs(tn_profile_row_share(&plain, 128) - 1) < 1e-9);
  /* a DRAM-bound launch in rows of 128 bytes: its DRAM term over 0.9 */
  launch(&in, &m, 1);
  predict(&in, &p, &rows0);
  in.work.dram_row_bytes = 128;
  predict(&in, &p, &rows128);
  CHECK(fabs(rows128.term_ms[TN_BOUND_DRAM] * 0.9 -
             rows0.term_ms[TN_BOUND_DRAM]) < 1e-9);
  CHECK(rows128.ms > rows0.ms);
  {
    /* read in rows of 128 bytes, written in rows of 64: half the bytes
     * at each share, 1 / 0.9 and 1 / 0.7 averaged */
    tn_time_pred rect, flip;
    in.work.dram_write_row_bytes = 64;
    predict(&in, &p, &rect);
    CHECK(fabs(rect.term_ms[TN_BOUND_DRAM] -
               rows0.term_ms[TN_BOUND_DRAM] * (1 / 0.9 + 1 / 0.7) / 2) <
          1e-9);
    in.work.dram_row_bytes = 64; /* the other way round: the same */
    in.work.dram_write_row_bytes = 128;
    predict(&in, &p, &flip);
    CHECK(fabs(flip.term_ms[TN_BOUND_DRAM] - rect.term_ms[TN_BOUND_DRAM]) <
          1e-12);
    in.work.dram_row_bytes = 128;
    in.work.dram_write_row_bytes = 0;
  }
  /* a derived profile keeps the measured shares */
  tn_profile_derive(tn_arch_find("sm_80"), &p, &d);
  CHECK(fabs(tn_profile_row_share(&d, 128) - 0.9) < 1e-9);
  {
    /* three of the four: refused, naming the file and the keys */
    char partial[sizeof(text)];
    char *at;
    tn_strlcpy(partial, text, sizeof(partial));
    at = strstr(partial, "global_tiles_512");
    CHECK(at != NULL);
    if (at != NULL) {
      memcpy(at, "global_tiles_999", 16);
      path = write_tmp(partial);
      CHECK(path != NULL);
      if (path != NULL) {
        memset(&err, 0, sizeof(err));
        CHECK_EQ_INT(tn_profile_read(path, &d, &err), TN_EINPUT);
        CHECK(strstr(err.msg, "global_tiles") != NULL);
        CHECK(strstr(err.msg, "3 of the 4") != NULL);
        CHECK(strstr(err.msg, path) != NULL);
        unlink(path);
      }
    }
  }
}

/* The copy engine's boxes: the reader takes all sixteen or none; a box's
 * time is linear in its rows through the two measured, log-linear in its
 * row bytes; what it costs beyond its bytes is that less its bytes at the
 * least ns a byte measured; a launch's boxes are a per-SM term of boxes /
 * SMs at that excess; a profile without them (older, or before sm_90) prices none; a
 * derived sm_90-class profile scales them by the clocks, an sm_80 one
 * has none. */
static void test_tma(void)
{
  static const char head[] = PROFILE_HEAD;
  static const char tail[] = PROFILE_TAIL;
  char text[8192], key[64];
  size_t len;
  int op, w, r, n;
  tn_err err = {{0}};
  tn_profile p, d, older;
  tn_time_input in;
  tn_model_cost m;
  tn_time_pred none, some;
  const char *path;

  /* a box: 50 ns + 1 ns a row at 32 bytes, twice that at each width
   * doubling; stores 1.5 times the loads */
  for (n = 0; n < 2; n++) {
    len = (size_t)snprintf(text, sizeof(text), "%s", head);
    for (op = 0; op < TN_PROFILE_TMA_OPS; op++)
      for (w = 0; w < TN_PROFILE_TMA_N_WIDTHS; w++)
        for (r = 0; r < TN_PROFILE_TMA_N_ROWS; r++) {
          double v = (50.0 + (r ? 64 : 8)) * (1 << w) * (op ? 1.5 : 1);
          if (n == 1 && op == 1 && w == 3 && r == 1)
            continue; /* the second text lacks one */
          tn_profile_tma_key(op, w, r, key, sizeof(key));
          len += (size_t)snprintf(text + len, sizeof(text) - len,
                                  ", \"%s\": {\"median\": %g, \"q1\": %g, "
                                  "\"q3\": %g}",
                                  key, v, v * 0.9, v * 1.1);
        }
    snprintf(text + len, sizeof(text) - len, "%s", tail);
    path = write_tmp(text);
    CHECK(path != NULL);
    if (path == NULL)
      return;
    memset(&err, 0, sizeof(err));
    if (n == 0) {
      CHECK_EQ_INT(tn_profile_read(path, &p, &err), 0);
    } else {
      CHECK_EQ_INT(tn_profile_read(path, &d, &err), TN_EINPUT);
      CHECK(strstr(err.msg, "15 of the copy engine's 16") != NULL);
      CHECK(strstr(err.msg, path) != NULL);
    }
    unlink(path);
  }
  tn_profile_tma_key(1, 2, 0, key, sizeof(key));
  CHECK(strcmp(key, "tma_store_8x128B") == 0);
  CHECK(fabs(tn_profile_tma_box_ns(&p, 0, 32, 8, 0) - 58) < 1e-9);
  CHECK(fabs(tn_profile_tma_box_ns(&p, 0, 32, 64, 0) - 114) < 1e-9);
  CHECK(fabs(tn_profile_tma_box_ns(&p, 0, 32, 32, 0) - 82) < 1e-9);
  CHECK(fabs(tn_profile_tma_box_ns(&p, 0, 32, 128, 0) - 178) < 1e-9);
  CHECK(fabs(tn_profile_tma_box_ns(&p, 1, 128, 8, 0) - 58 * 4 * 1.5) < 1e-9);
  CHECK(fabs(tn_profile_tma_box_ns(&p, 0, 16, 8, 0) - 58) < 1e-9);
  /* beyond the widest, its time a byte: twice 256 bytes' at 512 */
  CHECK(fabs(tn_profile_tma_box_ns(&p, 0, 512, 8, 0) - 58 * 8 * 2) < 1e-9);
  CHECK(fabs(tn_profile_tma_box_ns(&p, 0, 45.254834, 8, 0) - 58 * 1.5) <
        1e-4); /* 2^5.5 bytes: halfway in log */
  /* the fast end is the quartile below, the slow one above */
  CHECK(fabs(tn_profile_tma_box_ns(&p, 0, 32, 8, 1) - 58 * 0.9) < 1e-9);
  CHECK(fabs(tn_profile_tma_box_ns(&p, 0, 32, 8, -1) - 58 * 1.1) < 1e-9);
  /* beyond its bytes: less 1024 bytes at the least ns a byte measured
   * (64 rows: 114 ns for 2048 bytes at every width; stores 1.5 times) */
  CHECK(fabs(tn_profile_tma_excess_ns(&p, 0, 32, 32, 0) - 25) < 1e-9);
  CHECK(fabs(tn_profile_tma_excess_ns(&p, 1, 32, 32, 0) - 37.5) < 1e-9);
  CHECK(fabs(tn_profile_tma_excess_ns(&p, 0, 256, 64, 0)) < 1e-9);
  CHECK(fabs(tn_profile_tma_excess_ns(&p, 0, 32, 8, 0) - (58 - 256 * 114.0 /
                                                          2048)) < 1e-9);
  /* a launch of 132 x 1000 load boxes of 32 rows of 32 bytes, and as
   * many stores: 1000 of each an SM, 25 + 37.5 us beyond their bytes */
  launch(&in, &m, 1);
  in.blocks = 132 * 64; /* whole waves: the per-SM terms add exactly */
  predict(&in, &p, &none);
  CHECK(none.term_ms[TN_BOUND_TMA] == 0);
  for (op = 0; op < 2; op++) {
    in.work.tma_boxes[op] = 132.0 * 1000;
    in.work.tma_box_rows[op] = 32;
    in.work.tma_row_bytes[op] = 32;
  }
  predict(&in, &p, &some);
  CHECK(fabs(some.term_ms[TN_BOUND_TMA] - (25 + 37.5) * 1e-3) < 1e-9);
  CHECK(some.ms > none.ms);
  CHECK(strcmp(tn_bound_name(TN_BOUND_TMA), "tma") == 0);
  /* a profile without them prices none */
  synthetic(&older);
  predict(&in, &older, &none);
  CHECK(none.term_ms[TN_BOUND_TMA] == 0);
  /* derived: a newer architecture's at the clocks' ratio; none at sm_80 */
  tn_profile_derive(tn_arch_find("sm_100"), &p, &d);
  CHECK(d.tma_box_ns[0][0][0].mid > 0);
  CHECK(fabs(d.tma_box_ns[0][0][0].mid * d.clock_mhz.mid - 58 * 1980) <
        1e-6 * 58 * 1980);
  tn_profile_derive(tn_arch_find("sm_80"), &p, &d);
  CHECK(tn_profile_tma_box_ns(&d, 0, 32, 8, 0) == 0);
}

/* wgmma's flops at the profile's dense-GEMM rate (cublasGemmEx), mma.sync's
 * at its own; a profile without the first prices both at mma.sync's.  The
 * reader takes the rate from cublas_gemm_ex_bf16 and leaves it 0 where it
 * was not measured; a derived profile carries it to sm_90, not to sm_80. */
static void test_wgmma_rate(void)
{
  tn_profile p, d;
  tn_time_input in;
  tn_model_cost m;
  tn_time_pred out;
  double plain, wg, sync;
  tn_err err = {{0}};
  const char *path;

  synthetic(&p);
  launch(&in, &m, 0);
  in.work.fp32_flops = 0;
  in.work.wgmma_flops = 1e12;
  plain = predict(&in, &p, &out);
  CHECK(out.bound == TN_BOUND_TENSOR);
  p.gemm_tflops = tn_test_range(800, 0.02);
  wg = predict(&in, &p, &out);
  /* 640 against 800 TFLOP/s, the launch and the others' share beside */
  CHECK(wg / plain > 0.78 && wg / plain < 0.82);
  in.work.wgmma_flops = 0;
  in.work.tensor_flops = 1e12;
  sync = predict(&in, &p, &out);
  CHECK(fabs(sync - plain) < 1e-9 * plain);

  path = write_tmp(PROFILE_HEAD "," M("cublas_gemm_ex_bf16", 795) PROFILE_TAIL);
  CHECK(path != NULL);
  if (path != NULL) {
    CHECK_EQ_INT(tn_profile_read(path, &d, &err), 0);
    CHECK(fabs(d.gemm_tflops.mid - 795) < 1e-9);
    unlink(path);
  }
  path = write_tmp(PROFILE_HEAD ", \"cublas_gemm_ex_bf16\": {\"measured\": "
                   "false}" PROFILE_TAIL);
  CHECK(path != NULL);
  if (path != NULL) {
    CHECK_EQ_INT(tn_profile_read(path, &d, &err), 0);
    CHECK(d.gemm_tflops.mid == 0);
    unlink(path);
  }

  tn_profile_derive(tn_arch_find("sm_90"), &p, &d);
  CHECK(d.gemm_tflops.mid > 0 && d.mma_tflops.mid > 0);
  CHECK(fabs(d.gemm_tflops.mid / d.mma_tflops.mid - 800.0 / 640) < 1e-6);
  tn_profile_derive(tn_arch_find("sm_80"), &p, &d);
  CHECK(d.gemm_tflops.mid == 0 && d.mma_tflops.mid > 0);
}

int main(void)
{
  test_bandwidth();
  test_monotone();
  test_occupancy();
  test_barriers();
  test_small_grids();
  test_ring();
  test_ilp();
  test_reader_errors();
  test_derived();
  test_tile_rows();
  test_tma();
  test_wgmma_rate();
  TEST_DONE();
}

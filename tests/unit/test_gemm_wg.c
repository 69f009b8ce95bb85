/* test_gemm_wg.c -- the wgmma GEMM family's fp8 problems without a GPU:
 * the rules (k32 steps, K-major operands, the swizzles a k-tile of bytes
 * takes, promotion's registers, its second set of partial sums), the
 * problems check_problem refuses, the macros the template gets (a 16-bit
 * problem's unchanged), the tensor
 * maps of bytes, the buffers with the scales, the arguments, and the plan
 * of epilogue 1's staging stores, which the model prices for fp8 inputs
 * as for bf16 (the same stores, after rings of half the bytes).  Exits 0
 * when every check passes. */
#include <stdio.h>
#include <string.h>

#include "base/arch.h"
#include "family/family.h"
#include "family/gemm_wg_shape.h"
#include "family_util.h"
#include "test_util.h"

extern const tn_family tn_family_gemm_wg;
static const tn_family *f = &tn_family_gemm_wg;

/* The problem M x N x K with options name=value (a choice by name). */
static tn_problem problem(long long m, long long n, long long k,
                          const char *const *opts)
{
  tn_problem prob = mnk_problem(f, m, n, k);
  int i;
  for (i = 0; opts && opts[i]; i += 2) {
    int o = tn_problem_option_index(f, opts[i]);
    CHECK(o >= 0);
    if (o < 0)
      continue;
    if (f->options[o].kind == TN_OPT_CHOICE)
      prob.opt[o] = tn_option_choice_index(&f->options[o], opts[i + 1]);
    else
      sscanf(opts[i + 1], "%lf", &prob.opt[o]);
  }
  return prob;
}

static const char *const e4m3_opts[] = {"trans_b", "1", "input", "e4m3",
                                        "output", "bf16", NULL};
/* bf16 inputs and C */
static const char *const bf16_c_opts[] = {"output", "input", NULL};
static const char *const e5m2_fast_opts[] = {
    "trans_b", "1", "input", "e5m2", "output", "f32", "fast_accum", "1",
    "scale_a", "0.5", "scale_b", "3", NULL};

/* The point bm x bn x bk of two consumers and a producer, 4 stages,
 * swizzle, epilogue; prepare()'s answer (why). */
static int point(tn_params *p, const tn_problem *prob, long long bm,
                 long long bn, long long bk, long long swizzle,
                 long long epilogue, char *why, size_t n)
{
  default_point(f, p);
  p->v[WG_BM].i = bm;
  p->v[WG_BN].i = bn;
  p->v[WG_BK].i = bk;
  p->v[WG_CONSUMERS].i = 2;
  p->v[WG_STAGES].i = 4;
  p->v[WG_SWIZZLE].i = swizzle;
  p->v[WG_PRODUCER].i = 1;
  p->v[WG_EPILOGUE].i = epilogue;
  why[0] = '\0';
  return f->prepare(f, p, prob, why, n);
}

/* The point bm x bn x 128, swizzle 128, with setmaxnreg (the consumers
 * take the producer's registers); prepare()'s answer. */
static int wide(tn_params *p, const tn_problem *prob, long long bm,
                long long bn, char *why, size_t n)
{
  point(p, prob, bm, bn, 128, 128, 0, why, n);
  p->v[WG_MAXNREG].i = 1;
  return f->prepare(f, p, prob, why, n);
}

/* prepare() refuses the point with a reason holding text. */
static void refused(const tn_problem *prob, long long bm, long long bn,
                    long long bk, long long swizzle, const char *text)
{
  tn_params p;
  char why[512];
  int rc = point(&p, prob, bm, bn, bk, swizzle, 0, why, sizeof(why));
  if (rc != 1 || strstr(why, text) == NULL) {
    fprintf(stderr, "  %lldx%lldx%lld sw%lld: rc %d '%s', expected '%s'\n",
            bm, bn, bk, swizzle, rc, why, text);
    CHECK(0);
  }
}

static void check_rules(void)
{
  tn_problem e4 = problem(4096, 4096, 4096, e4m3_opts);
  tn_problem fast = problem(4096, 4096, 4096, e5m2_fast_opts);
  static const char *const nk[] = {"input", "e4m3", "output", "bf16", NULL};
  tn_problem nkmajor = problem(4096, 4096, 4096, nk);
  tn_params p;
  char why[512];

  CHECK_EQ_INT(point(&p, &e4, 128, 128, 128, 128, 0, why, sizeof(why)), 0);
  CHECK_EQ_INT(point(&p, &e4, 128, 128, 64, 64, 0, why, sizeof(why)), 0);
  CHECK_EQ_INT(point(&p, &e4, 128, 128, 64, 32, 0, why, sizeof(why)), 0);
  refused(&e4, 128, 128, 16, 32, "power of two of 32 or more (k32 steps)");
  refused(&e4, 128, 128, 64, 128, "64 bytes along its contiguous dimension");
  /* promotion doubles the accumulators: 64 x 256 a consumer does not fit,
   * without it it does */
  refused(&e4, 128, 256, 128, 128, "partial sums");
  CHECK_EQ_INT(point(&p, &fast, 128, 256, 128, 128, 0, why, sizeof(why)),
               0);
  refused(&nkmajor, 128, 128, 128, 128, "must be K-major");
  /* wgmma's n of 192: 96 accumulators and as many partial sums fit with
   * setmaxnreg, and B's 192 rows keep the swizzle's 1024-byte repeat;
   * an n not a multiple of 16 does not (check_widths has the others) */
  CHECK_EQ_INT(wide(&p, &e4, 128, 192, why, sizeof(why)), 0);
  refused(&e4, 128, 200, 128, 128, "bn 64 to 256 by 16");
  refused(&e4, 256, 192, 128, 128, "holds 192 fp32 accumulators");
  /* 128 x 128 a consumer: its two slabs take turns in one set of 64
   * partial sums beside 128 accumulators */
  CHECK_EQ_INT(wide(&p, &e4, 256, 128, why, sizeof(why)), 0);
  refused(&e4, 256, 256, 128, 128, "accumulators per thread");
  /* without setmaxnreg 384 threads get 168 registers: 192 sums spill,
   * 64 + 64 do not */
  p.v[WG_MAXNREG].i = 0;
  CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 1);
  CHECK(strstr(why, "more than 128 of the 168 registers") != NULL);
  CHECK_EQ_INT(point(&p, &e4, 128, 128, 128, 128, 0, why, sizeof(why)), 0);
  /* a second set of partial sums: promotion's only, 3 x 64 registers for
   * 64 x 128 a consumer */
  {
    tn_problem bf16 = problem(4096, 4096, 4096, NULL);
    tn_defines d;
    CHECK_EQ_INT(wide(&p, &e4, 128, 128, why, sizeof(why)), 0);
    p.v[WG_PARTIALS].i = 2;
    CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 0);
    tn_family_macros(f, &p, &e4, &d);
    CHECK(define_of(&d, "TN_PARTIALS") != NULL &&
          strcmp(define_of(&d, "TN_PARTIALS"), "2") == 0);
    p.v[WG_PROMOTE_RUN].i = 3; /* runs of 3 k-tiles */
    CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 0);
    tn_family_macros(f, &p, &e4, &d);
    CHECK(define_of(&d, "TN_PROMOTE_RUN") != NULL &&
          strcmp(define_of(&d, "TN_PROMOTE_RUN"), "3") == 0);
    p.v[WG_PARTIALS].i = 1; /* the run would change nothing */
    CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 1);
    CHECK(strstr(why, "promote_run 3 shapes the runs of partials 2") != NULL);
    p.v[WG_PARTIALS].i = 2;
    p.v[WG_PROMOTE_RUN].i = 4;
    {
      /* the time model's ring: stages - 1 k-tiles ahead, over the
       * k-tiles of the busiest block's tiles (32 a tile at 4096 / 128;
       * 1024 tiles: one a block, or ceil(1024 / 132) = 8 persistent) */
      tn_time_work w;
      f->estimate(f, &p, &e4, &w);
      CHECK(w.ring_ktiles == 32 && w.ring_ahead == 3 &&
            w.bytes_in_flight == 0);
      p.v[WG_PERSISTENT].i = 132;
      p.v[WG_STAGES].i = 6;
      CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 0);
      f->estimate(f, &p, &e4, &w);
      CHECK(w.ring_ktiles == 32 * 8 && w.ring_ahead == 5);
      p.v[WG_PERSISTENT].i = 0;
      p.v[WG_STAGES].i = 4;
    }
    CHECK_EQ_INT(f->prepare(f, &p, &fast, why, sizeof(why)), 1);
    CHECK(strstr(why, "none (fast_accum)") != NULL);
    CHECK_EQ_INT(f->prepare(f, &p, &bf16, why, sizeof(why)), 1);
    CHECK(strstr(why, "none (16-bit inputs)") != NULL);
    p.v[WG_PRODUCER].i = 0;
    p.v[WG_MAXNREG].i = 0;
    CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 1);
    CHECK(strstr(why, "partials 2 needs a producer") != NULL);
    p.v[WG_PRODUCER].i = 1; /* 64 + 2 x 64 sums in 168 registers */
    CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 1);
    CHECK(strstr(why, "128 partial sums") != NULL);
    p.v[WG_CONSUMERS].i = 1; /* 128 x 128 a consumer: two slabs */
    CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 1);
    CHECK(strstr(why, "partials 2 takes one m64 slab") != NULL);
  }

  /* what no point of the space can take */
  CHECK_EQ_INT(f->check_problem(f, &e4, why, sizeof(why)), 0);
  CHECK_EQ_INT(f->check_problem(f, &fast, why, sizeof(why)), 0);
  CHECK_EQ_INT(f->check_problem(f, &nkmajor, why, sizeof(why)), 1);
  CHECK(strstr(why, "trans_b = false") != NULL);
  {
    static const char *const out_in[] = {"trans_b", "1", "input", "e5m2",
                                         "output", "input", NULL};
    static const char *const bf16_scaled[] = {"scale_a", "2", NULL};
    static const char *const bf16_out[] = {"output", "bf16", NULL};
    tn_problem a = problem(256, 256, 256, out_in);
    tn_problem b = problem(256, 256, 256, bf16_scaled);
    tn_problem c = problem(256, 256, 256, bf16_out);
    tn_problem d = problem(256, 256, 256, NULL);
    CHECK_EQ_INT(f->check_problem(f, &a, why, sizeof(why)), 1);
    CHECK(strstr(why, "C e5m2") != NULL);
    CHECK_EQ_INT(f->check_problem(f, &b, why, sizeof(why)), 1);
    CHECK(strstr(why, "are for fp8 inputs") != NULL);
    CHECK_EQ_INT(f->check_problem(f, &c, why, sizeof(why)), 1);
    CHECK_EQ_INT(f->check_problem(f, &d, why, sizeof(why)), 0);
  }
}

/* The template's macros, the tensor maps, buffers and arguments. */
static void check_render(void)
{
  tn_problem e4 = problem(4096, 2048, 1024, e4m3_opts);
  tn_problem fast = problem(4096, 2048, 1024, e5m2_fast_opts);
  tn_problem bf = problem(4096, 2048, 1024, NULL);
  tn_tmap_desc maps[TN_MAX_TMAPS];
  tn_buffer_desc bufs[TN_MAX_BUFFERS];
  tn_devptr dev[TN_MAX_BUFFERS] = {0x1000, 0x2000, 0x3000, 0x4000, 0x5000};
  tn_defines d;
  tn_params p;
  tn_args a;
  char why[512];
  int n;

  CHECK_EQ_INT(point(&p, &e4, 128, 128, 128, 128, 1, why, sizeof(why)), 0);
  memset(&d, 0, sizeof(d));
  tn_family_macros(f, &p, &e4, &d);
  CHECK(define_of(&d, "TN_IN_FP8") &&
        !strcmp(define_of(&d, "TN_IN_FP8"), "1"));
  CHECK(define_of(&d, "TN_PROMOTE") &&
        !strcmp(define_of(&d, "TN_PROMOTE"), "1"));
  CHECK(!strcmp(define_of(&d, "TN_TRANS_B"), "1"));
  CHECK(!strcmp(define_of(&d, "TN_OUT_F32"), "0"));
  CHECK(!strcmp(define_of(&d, "TN_IN_F16"), "0"));
  /* 1024 of slack, 4 stages of 128 x 128 bytes of A and of B, two
   * consumers' staging of 64 x 128 bf16, 8 mbarriers */
  CHECK(!strcmp(define_of(&d, "TN_SMEM_BYTES"), "164928"));
  n = f->tensor_maps(f, &p, &e4, maps);
  CHECK_EQ_INT(n, 3);
  CHECK(maps[0].elem == TN_ELEM_E4M3 && maps[1].elem == TN_ELEM_E4M3);
  CHECK_EQ_INT(maps[0].dims[0], 1024); /* K innermost: K-major */
  CHECK_EQ_INT(maps[0].strides[0], 1024); /* a row of K bytes */
  CHECK_EQ_INT(maps[1].dims[1], 2048);
  CHECK_EQ_INT(maps[0].box[0], 128); /* one 128-byte swizzle row */
  CHECK_EQ_INT(maps[1].box[1], 128);
  CHECK_EQ_INT(tn_tmap_box_bytes(&maps[0]), 128 * 128);
  CHECK(maps[2].elem == TN_ELEM_BF16 && maps[2].box[0] == 64);
  memset(bufs, 0, sizeof(bufs));
  n = f->buffers(f, &e4, bufs);
  CHECK_EQ_INT(n, 5);
  CHECK_EQ_INT(bufs[0].bytes, 4096 * 1024);
  CHECK(bufs[0].elem == TN_ELEM_E4M3 && bufs[1].elem == TN_ELEM_E4M3);
  CHECK(bufs[2].elem == TN_ELEM_BF16 && bufs[2].role == TN_BUF_OUT);
  CHECK(!strcmp(bufs[3].name, "scale_a") && bufs[3].bytes == 4 &&
        bufs[3].init.kind == TN_INIT_CONSTANT && bufs[3].init.a == 1.0);
  memset(&a, 0, sizeof(a));
  f->args(f, &p, &e4, dev, &a);
  CHECK_EQ_INT(a.n, 8); /* C, M, N, K, alpha, beta, scale_a, scale_b */
  CHECK(!a.overflow && memcmp(a.ptrs[6], &dev[3], sizeof(dev[3])) == 0);

  /* e5m2, fast accumulation, fp32 C, scales */
  CHECK_EQ_INT(point(&p, &fast, 128, 256, 128, 128, 0, why, sizeof(why)), 0);
  memset(&d, 0, sizeof(d));
  tn_family_macros(f, &p, &fast, &d);
  CHECK(!strcmp(define_of(&d, "TN_IN_FP8"), "2"));
  CHECK(!strcmp(define_of(&d, "TN_PROMOTE"), "0"));
  CHECK(!strcmp(define_of(&d, "TN_OUT_F32"), "1"));
  memset(bufs, 0, sizeof(bufs));
  CHECK_EQ_INT(f->buffers(f, &fast, bufs), 5);
  CHECK(bufs[3].init.a == 0.5 && bufs[4].init.a == 3.0);
  n = f->tensor_maps(f, &p, &fast, maps);
  CHECK_EQ_INT(n, 2);
  CHECK(maps[0].elem == TN_ELEM_E5M2);

  /* a 16-bit problem: no fp8 macro, three buffers, six arguments */
  CHECK_EQ_INT(point(&p, &bf, 128, 256, 64, 128, 0, why, sizeof(why)), 0);
  memset(&d, 0, sizeof(d));
  tn_family_macros(f, &p, &bf, &d);
  CHECK(define_of(&d, "TN_IN_FP8") == NULL);
  CHECK(define_of(&d, "TN_PROMOTE") == NULL);
  memset(bufs, 0, sizeof(bufs));
  CHECK_EQ_INT(f->buffers(f, &bf, bufs), 3);
  memset(&a, 0, sizeof(a));
  f->args(f, &p, &bf, dev, &a);
  CHECK_EQ_INT(a.n, 6);
}

/* Epilogue 1's staging stores, the only threads' shared accesses: for a
 * bf16 C, stmatrix.x4 of 16 rows by two n8 blocks, bn / 16 of them per
 * m64 slab and warp, 4 warps a consumer, every tile once; 128-byte rows
 * under SWIZZLE_128B, so each is 4 conflict-free wavefronts.  fp8 inputs
 * change where the staging starts (after the rings, half the bytes) and
 * nothing of its stores; fp32 C: st.shared.v2 of a pair. */
static void check_plan(void)
{
  tn_problem e4 = problem(4096, 4096, 4096, e4m3_opts);
  tn_problem bf = problem(4096, 4096, 4096, bf16_c_opts);
  tn_problem fast = problem(4096, 4096, 4096, e5m2_fast_opts);
  const tn_arch *arch = tn_arch_find("sm_90");
  long long tiles = 32 * 32, per_tile = 2 * 4 * 1 * (128 / 16);
  tn_model_cost c8, c16, c32, c0;
  wg_geometry g;
  tn_params p;
  char why[512];

  CHECK(arch != NULL);
  if (arch == NULL)
    return;
  CHECK_EQ_INT(point(&p, &e4, 128, 128, 128, 128, 1, why, sizeof(why)), 0);
  tn_gemm_wg_geometry(&p, &e4, &g);
  CHECK_EQ_INT(g.in_bytes, 1);
  CHECK_EQ_INT(g.a_stage, 128 * 128);
  CHECK_EQ_INT(g.c_staging, 64 * 128 * 2);
  CHECK_EQ_INT(tn_family_model(f, &p, &e4, arch, &c8, why, sizeof(why)), 0);
  CHECK_EQ_INT(c8.st_insts, tiles * per_tile);
  CHECK_EQ_INT(c8.st_wavefronts, 4 * tiles * per_tile);
  CHECK_EQ_INT(c8.ideal_wavefronts, c8.st_wavefronts);
  CHECK_EQ_INT(c8.max_degree, 1);
  CHECK_EQ_INT(c8.ld_insts, 0);
  /* the same tile of bf16 inputs and C: the same stores */
  CHECK_EQ_INT(point(&p, &bf, 128, 128, 64, 128, 1, why, sizeof(why)), 0);
  CHECK_EQ_INT(tn_family_model(f, &p, &bf, arch, &c16, why, sizeof(why)), 0);
  CHECK_EQ_INT(c16.st_insts, c8.st_insts);
  CHECK_EQ_INT(c16.st_wavefronts, c8.st_wavefronts);
  /* fp32 C: bn / 8 x 2 pairs per slab and warp; a store's 8 rows put 32
   * bytes each in 16-byte chunks 2q and 2q + 1 xor the row, so rows r and
   * r ^ 1 take the same two chunks: 2-way, four wavefronts where two
   * would do */
  CHECK_EQ_INT(point(&p, &fast, 128, 128, 128, 128, 1, why, sizeof(why)), 0);
  CHECK_EQ_INT(tn_family_model(f, &p, &fast, arch, &c32, why, sizeof(why)),
               0);
  CHECK_EQ_INT(c32.st_insts, tiles * 2 * 4 * (128 / 8) * 2);
  CHECK_EQ_INT(c32.st_wavefronts, 4 * c32.st_insts);
  CHECK_EQ_INT(c32.ideal_wavefronts, 2 * c32.st_insts);
  CHECK_EQ_INT(c32.max_degree, 2);
  /* epilogue 0: nothing the threads store in shared memory */
  CHECK_EQ_INT(point(&p, &e4, 128, 128, 128, 128, 0, why, sizeof(why)), 0);
  CHECK_EQ_INT(tn_family_model(f, &p, &e4, arch, &c0, why, sizeof(why)), 0);
  CHECK_EQ_INT(c0.st_insts + c0.ld_insts, 0);
}

/* c_ring: epilogue 1's staging as a ring of a consumer's 128-byte
 * columns.  An fp32 C's 128 x 256 tile stages 2 x 64 KB whole, which
 * leaves 2 stages of A and B; a ring of 2 columns (2 x 16 KB) fits beside
 * 4.  The stores are the same, into fewer buffers: the same wavefronts. */
static void check_ring(void)
{
  tn_problem bf = problem(4096, 4096, 4096, NULL);
  tn_problem bc = problem(4096, 4096, 4096, bf16_c_opts);
  const tn_arch *arch = tn_arch_find("sm_90a");
  tn_model_cost whole, ring;
  wg_geometry g;
  tn_defines d;
  tn_params p;
  char why[512];

  CHECK(arch != NULL);
  if (arch == NULL)
    return;
  CHECK_EQ_INT(point(&p, &bf, 128, 256, 64, 128, 1, why, sizeof(why)), 0);
  p.v[WG_C_RING].i = 2;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 0);
  tn_gemm_wg_geometry(&p, &bf, &g);
  CHECK_EQ_INT(g.c_subs, 8);
  CHECK_EQ_INT(g.c_bufs, 2);
  CHECK_EQ_INT(g.c_staging, 64 * 128 * 2);
  /* 1024 of slack, 4 stages of 16 KB of A and 32 KB of B, two consumers'
   * ring of 2 x 8 KB, 8 mbarriers: under sm_90a's 232448 */
  CHECK_EQ_INT(g.smem_bytes, 1024 + 4 * 49152 + 2 * 16384 + 64);
  CHECK(g.smem_bytes <= arch->smem_per_block);
  memset(&d, 0, sizeof(d));
  tn_family_macros(f, &p, &bf, &d);
  CHECK(define_of(&d, "TN_C_RING") && !strcmp(define_of(&d, "TN_C_RING"),
                                               "2"));
  CHECK(define_of(&d, "TN_SMEM_BYTES") &&
        !strcmp(define_of(&d, "TN_SMEM_BYTES"), "230464"));
  CHECK_EQ_INT(tn_family_model(f, &p, &bf, arch, &ring, why, sizeof(why)),
               0);
  /* the whole staging at 2 stages: the same stores and wavefronts */
  p.v[WG_C_RING].i = 0;
  p.v[WG_STAGES].i = 2;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 0);
  tn_gemm_wg_geometry(&p, &bf, &g);
  CHECK_EQ_INT(g.c_staging, 64 * 256 * 4);
  CHECK_EQ_INT(tn_family_model(f, &p, &bf, arch, &whole, why, sizeof(why)),
               0);
  CHECK(ring.st_insts > 0);
  CHECK_EQ_INT(ring.st_insts, whole.st_insts);
  CHECK_EQ_INT(ring.st_wavefronts, whole.st_wavefronts);
  /* the rules: epilogue 1 only; a ring that divides the columns (8 of
   * fp32, 4 of bf16 at bn 256) and is fewer */
  p.v[WG_STAGES].i = 4;
  p.v[WG_C_RING].i = 3;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 1);
  CHECK(strstr(why, "must divide the 8 128-byte columns") != NULL);
  p.v[WG_C_RING].i = 8;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 1);
  p.v[WG_C_RING].i = 4;
  CHECK_EQ_INT(f->prepare(f, &p, &bc, why, sizeof(why)), 1);
  CHECK(strstr(why, "the 4 128-byte columns") != NULL);
  p.v[WG_C_RING].i = 2;
  CHECK_EQ_INT(f->prepare(f, &p, &bc, why, sizeof(why)), 0);
  p.v[WG_EPILOGUE].i = 0;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 1);
  CHECK(strstr(why, "rings epilogue 1's staging") != NULL);
}

/* persistent -1: a block per tile computed is the most, and the launch is
 * marked to fit the grid to the GPU in whole clusters. */
static void check_fit(void)
{
  tn_problem bf = problem(4096, 4096, 4096, NULL);
  tn_launch l;
  wg_geometry g;
  tn_defines d;
  tn_params p;
  char why[512];

  CHECK_EQ_INT(point(&p, &bf, 128, 256, 64, 128, 0, why, sizeof(why)), 0);
  p.v[WG_MAXNREG].i = 1;
  p.v[WG_CLUSTER].i = 4;
  p.v[WG_MULTICAST].i = 1;
  p.v[WG_PERSISTENT].i = -1;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 0);
  tn_gemm_wg_geometry(&p, &bf, &g);
  /* 32 tile rows in units of 4 by 16 columns: 128 units of 4 tiles */
  CHECK_EQ_INT(g.units, 128);
  CHECK_EQ_INT(g.blocks, 512);
  f->launch(f, &p, &bf, &l);
  CHECK_EQ_INT(l.grid[0], 512);
  CHECK_EQ_INT(l.fit_grid, 1);
  CHECK_EQ_INT(l.cluster, 4);
  memset(&d, 0, sizeof(d));
  tn_family_macros(f, &p, &bf, &d);
  CHECK(define_of(&d, "TN_PERSISTENT") &&
        !strcmp(define_of(&d, "TN_PERSISTENT"), "-1"));
  /* a count stays the count, not fitted */
  p.v[WG_PERSISTENT].i = 132;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 0);
  f->launch(f, &p, &bf, &l);
  CHECK_EQ_INT(l.grid[0], 132);
  CHECK_EQ_INT(l.fit_grid, 0);
  /* ping-pong's padding tiles depend on the grid: it needs a count */
  CHECK_EQ_INT(point(&p, &bf, 128, 128, 64, 128, 1, why, sizeof(why)), 0);
  p.v[WG_MAXNREG].i = 1;
  p.v[WG_PINGPONG].i = 1;
  p.v[WG_PERSISTENT].i = 132;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 0);
  p.v[WG_PERSISTENT].i = -1;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 1);
  CHECK(strstr(why, "persistent > 0 (a count") != NULL);
}

/* stream_k: persistent blocks fed by a producer, no ping-pong; the
 * launch asks for its workspace (a slot of flags and a tile of fp32 sums
 * a block) and for every block at once; the macro reaches the source,
 * and at 0 the point's text is as before. */
static void check_stream_k(void)
{
  tn_problem bf = problem(4096, 4096, 4096, NULL);
  tn_launch l;
  tn_defines d;
  tn_params p;
  char why[512], text[512];

  CHECK_EQ_INT(point(&p, &bf, 128, 256, 64, 128, 0, why, sizeof(why)), 0);
  p.v[WG_MAXNREG].i = 1;
  p.v[WG_PERSISTENT].i = 132;
  tn_params_format(f->params, f->n_params, &p, text, sizeof(text));
  CHECK(strstr(text, "stream_k") == NULL);
  f->launch(f, &p, &bf, &l);
  CHECK_EQ_INT((int)l.workspace_block, 0);
  CHECK_EQ_INT(l.co_resident, 0);
  p.v[WG_STREAM_K].i = 1;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 0);
  f->launch(f, &p, &bf, &l);
  CHECK_EQ_INT((int)l.workspace_block, 4 * (32 + 128 * 256));
  CHECK_EQ_INT(l.co_resident, 1);
  CHECK_EQ_INT(l.grid[0], 132);
  memset(&d, 0, sizeof(d));
  tn_family_macros(f, &p, &bf, &d);
  CHECK(define_of(&d, "TN_STREAM_K") &&
        !strcmp(define_of(&d, "TN_STREAM_K"), "1"));
  p.v[WG_PERSISTENT].i = 0;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 1);
  CHECK(strstr(why, "persistent (not 0)") != NULL);
  p.v[WG_PERSISTENT].i = -1;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 0);
  p.v[WG_PRODUCER].i = 0;
  p.v[WG_MAXNREG].i = 0;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 1);
  CHECK(strstr(why, "producer 1") != NULL);
  CHECK_EQ_INT(point(&p, &bf, 128, 128, 64, 128, 1, why, sizeof(why)), 0);
  p.v[WG_MAXNREG].i = 1;
  p.v[WG_PINGPONG].i = 1;
  p.v[WG_PERSISTENT].i = 132;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 0);
  p.v[WG_STREAM_K].i = 2;
  CHECK_EQ_INT(f->prepare(f, &p, &bf, why, sizeof(why)), 1);
  CHECK(strstr(why, "pingpong 0") != NULL);
}

/* wgmma's other widths (n 64 to 256 by 16).  A 128 x 144 fp8 tile holds
 * 72 accumulators and 72 partial sums a thread; its bf16 C's row, 288
 * bytes, is not whole 128-byte columns, so epilogue 1 stages it in 9
 * columns of 32 bytes under the 32-byte swizzle, one TMA box of 16 x 64
 * each, and the template is told TN_C_COL (a 128-byte column's source
 * does not change).  stmatrix stays conflict-free there (a matrix's 8
 * rows of 32 bytes, the last four's chunk flipped, cover the 32 banks
 * once: 4 wavefronts an x4).  An fp32 C's row of 144 (576 bytes) goes in
 * 64-byte columns: a pair's half-warp of 4 rows puts rows r and r ^ 2 on
 * the same 8 banks, 2-way, 4 wavefronts a store where 2 would do, as the
 * 128-byte columns' rows r and r ^ 1. */
static void check_widths(void)
{
  tn_problem e4 = problem(4096, 4096, 4096, e4m3_opts);
  tn_problem fast = problem(4096, 4096, 4096, e5m2_fast_opts);
  tn_problem bc = problem(4096, 4096, 4096, bf16_c_opts);
  const tn_arch *arch = tn_arch_find("sm_90a");
  long long tiles = 32 * ((4096 + 143) / 144);
  tn_tmap_desc maps[TN_MAX_TMAPS];
  tn_model_cost c;
  wg_geometry g;
  tn_defines d;
  tn_params p;
  char why[512];

  CHECK(arch != NULL);
  if (arch == NULL)
    return;
  /* promotion's registers: 144 and 176 fit with setmaxnreg, 208 not */
  CHECK_EQ_INT(wide(&p, &e4, 128, 176, why, sizeof(why)), 0);
  refused(&e4, 128, 208, 128, 128, "partial sums");
  CHECK_EQ_INT(wide(&p, &e4, 128, 144, why, sizeof(why)), 0);
  p.v[WG_EPILOGUE].i = 1;
  CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 0);
  tn_gemm_wg_geometry(&p, &e4, &g);
  CHECK_EQ_INT(g.c_col, 32);
  CHECK_EQ_INT(g.c_subs, 9);
  CHECK_EQ_INT(g.c_staging, 64 * 32 * 9);
  CHECK_EQ_INT(g.b_stage, 144 * 128);
  memset(&d, 0, sizeof(d));
  tn_family_macros(f, &p, &e4, &d);
  CHECK(define_of(&d, "TN_C_COL") != NULL &&
        strcmp(define_of(&d, "TN_C_COL"), "32") == 0);
  CHECK(define_of(&d, "TN_BN") != NULL &&
        strcmp(define_of(&d, "TN_BN"), "144") == 0);
  CHECK_EQ_INT(tn_gemm_wg_tensor_maps(f, &p, &e4, maps), 3);
  CHECK_EQ_INT(maps[1].box[1], 144);
  CHECK_EQ_INT(maps[2].box[0], 16);
  CHECK_EQ_INT(maps[2].box[1], 64);
  CHECK_EQ_INT(maps[2].swizzle, 32);
  CHECK_EQ_INT(tn_family_model(f, &p, &e4, arch, &c, why, sizeof(why)), 0);
  CHECK_EQ_INT(c.st_insts, tiles * 2 * 4 * (144 / 16));
  CHECK_EQ_INT(c.st_wavefronts, 4 * c.st_insts);
  CHECK_EQ_INT(c.max_degree, 1);
  /* a ring of 3 of the 9 columns; 2 does not divide them */
  p.v[WG_C_RING].i = 3;
  CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 0);
  tn_gemm_wg_geometry(&p, &e4, &g);
  CHECK_EQ_INT(g.c_staging, 64 * 32 * 3);
  p.v[WG_C_RING].i = 2;
  CHECK_EQ_INT(f->prepare(f, &p, &e4, why, sizeof(why)), 1);
  CHECK(strstr(why, "the 9 32-byte columns") != NULL);
  /* 128-byte columns: no TN_C_COL, the source as it was */
  CHECK_EQ_INT(wide(&p, &e4, 128, 192, why, sizeof(why)), 0);
  p.v[WG_EPILOGUE].i = 1;
  memset(&d, 0, sizeof(d));
  tn_family_macros(f, &p, &e4, &d);
  CHECK(define_of(&d, "TN_C_COL") == NULL);
  /* fp32 C in 64-byte columns: 2-way */
  CHECK_EQ_INT(point(&p, &fast, 128, 144, 128, 128, 1, why, sizeof(why)), 0);
  tn_gemm_wg_geometry(&p, &fast, &g);
  CHECK_EQ_INT(g.c_col, 64);
  CHECK_EQ_INT(g.c_subs, 9);
  CHECK_EQ_INT(tn_gemm_wg_tensor_maps(f, &p, &fast, maps), 3);
  CHECK_EQ_INT(maps[2].box[0], 16);
  CHECK_EQ_INT(maps[2].swizzle, 64);
  CHECK_EQ_INT(tn_family_model(f, &p, &fast, arch, &c, why, sizeof(why)),
               0);
  CHECK_EQ_INT(c.st_insts, tiles * 2 * 4 * (144 / 8) * 2);
  CHECK_EQ_INT(c.st_wavefronts, 4 * c.st_insts);
  CHECK_EQ_INT(c.ideal_wavefronts, 2 * c.st_insts);
  CHECK_EQ_INT(c.max_degree, 2);
  /* a bf16 C's 160 columns: 320 bytes, five of 64 (B MN-major: its
   * 320-byte rows take the 64-byte swizzle, not the 128) */
  refused(&bc, 128, 160, 64, 128, "not whole 128-byte swizzle rows");
  CHECK_EQ_INT(point(&p, &bc, 128, 160, 64, 64, 1, why, sizeof(why)), 0);
  tn_gemm_wg_geometry(&p, &bc, &g);
  CHECK_EQ_INT(g.c_col, 64);
  CHECK_EQ_INT(g.c_subs, 5);
}

int main(void)
{
  check_rules();
  check_render();
  check_plan();
  check_ring();
  check_fit();
  check_stream_k();
  check_widths();
  if (tn_test_failures == 0)
    fprintf(stderr, "gemm_wg fp8: rules, problems, macros, tensor maps, "
                    "buffers, arguments and the staging's plan; c_ring; a fitted "
                    "grid; stream_k; wgmma's other widths\n");
  TEST_DONE();
}

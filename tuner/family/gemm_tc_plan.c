/* gemm_tc_plan.c -- the tensor-core GEMM family's shared-memory access
 * plan: lane by lane, every shared-memory instruction of
 * templates/gemm_tc.cu.  The template never skips one at the matrix edges
 * (copies past them store zeros), so one block's plan, times the blocks
 * and k-tiles, is the launch's.
 *
 * A cp.async copy is planned as what it is, cp.async.cg with its global
 * offsets (model_async.c's rule: a global line written into two shared
 * rows, as a pad does, takes a wavefront in each, two where the chunks
 * rotate by an odd count).  Unlike the fp32 GEMM's (gemm_plan.c says
 * why), these copies count as Nsight Compute counts them: on the
 * gemm-bf16-layouts launches of run 17 (results/logs/run17/model_vs_ncu/)
 * ncu counted 14.7, 20.5, 28.3 and 34.1 M copy wavefronts for the
 * layouts without a pad, with pad_a, with pad_b and with both, the rule
 * 16.8, 24.1, 30.4 and 37.7 M, the 16-byte store 12.6 M for every one.
 * The model counts them apart (async_wavefronts); the element-wise copies
 * of unaligned matrices are those same 16-byte stores, not marked.  The epilogues'
 * reads and writes of C itself are global, not planned. */
#include <stdint.h>
#include <string.h>

#include "family/gemm_tc_shape.h"
#include "../../templates/smem_layout.h"

static uint32_t byte_addr(const tc_operand *o, int stage, int row, int col)
{
  int off = tn_smem_offset(row, col, o->width, o->pad, o->sw.b, o->sw.m,
                           o->sw.s);
  return 2u * (uint32_t)(o->base + stage * o->elems + off);
}

/* Warp w's copies of one operand's k-tile into `stage`: chunk c = tid +
 * it * threads is row c / (width / 8), 16-byte column c % (width / 8).
 * pitch: the operand's leading dimension in elements, when the copies are
 * cp.async (read from the first block's first k-tile), else 0. */
static void plan_copies(const tc_geometry *g, const tc_operand *o, int w,
                        int stage, long long pitch, long long times,
                        tn_access_sink *sink)
{
  int cpr = o->width / 8, chunks = o->rows * cpr;
  int iters = (chunks + g->threads - 1) / g->threads, it, lane;
  for (it = 0; it < iters; it++) {
    tn_warp_access st;
    tn_warp_access_init(&st, pitch ? TN_OP_CP_ASYNC_CG : TN_OP_ST, 16);
    for (lane = 0; lane < 32; lane++) {
      int c = w * 32 + lane + it * g->threads;
      int row = (c / cpr) % o->rows, col = 8 * (c % cpr);
      if (c >= chunks)
        continue;
      st.addr[lane] = byte_addr(o, stage, row, col);
      st.gaddr[lane] = (uint32_t)(2 * ((long long)row * pitch + col));
      st.active |= 1u << lane;
    }
    if (st.active)
      tn_sink_access(sink, &st, times);
  }
}

/* The ldmatrix.x4 of warp w for one k-step kk: MI for A (16 x 16 at
 * (wm0 + 16 i, kk)), NI / 2 for B (16 x 16 at (wn0 + 16 j, kk)).  Lane l
 * gives the row of matrix l / 8 (the template's a_frag_addr and
 * b_frag_addr). */
static void plan_fragments(const tc_geometry *g, int wm0, int wn0, int kk,
                           int stage, long long times, tn_access_sink *sink)
{
  const tc_operand *A = &g->op[0], *B = &g->op[1];
  int i, lane;
  for (i = 0; i < g->mi; i++) {
    tn_warp_access a;
    tn_warp_access_init(&a, TN_OP_LDMATRIX, 16);
    a.matrices = 4;
    a.trans = !A->kcontig;
    a.active = 0xffffffffu;
    for (lane = 0; lane < 32; lane++) {
      int j = lane / 8, r = lane % 8, m = wm0 + 16 * i;
      a.addr[lane] = A->kcontig
                         ? byte_addr(A, stage, m + (j & 1) * 8 + r,
                                     kk + (j >> 1) * 8)
                         : byte_addr(A, stage, kk + (j >> 1) * 8 + r,
                                     m + (j & 1) * 8);
    }
    tn_sink_access(sink, &a, times);
  }
  for (i = 0; i < g->ni / 2; i++) {
    tn_warp_access b;
    tn_warp_access_init(&b, TN_OP_LDMATRIX, 16);
    b.matrices = 4;
    b.trans = !B->kcontig;
    b.active = 0xffffffffu;
    for (lane = 0; lane < 32; lane++) {
      int j = lane / 8, r = lane % 8, nn = wn0 + 16 * i;
      b.addr[lane] = B->kcontig
                         ? byte_addr(B, stage, nn + (j >> 1) * 8 + r,
                                     kk + (j & 1) * 8)
                         : byte_addr(B, stage, kk + (j & 1) * 8 + r,
                                     nn + (j >> 1) * 8);
    }
    tn_sink_access(sink, &b, times);
  }
}

/* Epilogue 1, warp w: per 16-row slice i, the float2 stores of its
 * fragments (lane g = lane / 4 at rows g and g + 8, columns 8 j + 2 t),
 * then the float4 loads of the slice's rows, 32 runs at a time. */
static void plan_epilogue(const tc_geometry *g, int w, long long times,
                          tn_access_sink *sink)
{
  int sp = g->wn + g->pad_c, i, j, h, q, lane;
  uint32_t base = 4u * (uint32_t)(w * 16 * sp);
  for (i = 0; i < g->mi; i++) {
    for (j = 0; j < g->ni; j++)
      for (h = 0; h < 2; h++) {
        tn_warp_access st;
        tn_warp_access_init(&st, TN_OP_ST, 8);
        st.active = 0xffffffffu;
        for (lane = 0; lane < 32; lane++)
          st.addr[lane] = base + 4u * (uint32_t)((lane / 4 + 8 * h) * sp +
                                                 8 * j + 2 * (lane % 4));
        tn_sink_access(sink, &st, times);
      }
    for (q = 0; q < 16 * (g->wn / 4); q += 32) {
      tn_warp_access ld;
      tn_warp_access_init(&ld, TN_OP_LD, 16);
      ld.active = 0xffffffffu;
      for (lane = 0; lane < 32; lane++) {
        int e = q + lane, r = e / (g->wn / 4), c = 4 * (e % (g->wn / 4));
        ld.addr[lane] = base + 4u * (uint32_t)(r * sp + c);
      }
      tn_sink_access(sink, &ld, times);
    }
  }
}

/* Epilogue 2, warp w: per 16-row slice, the ni / 2 stmatrix.x4 of its 16 x
 * 16 blocks of 16-bit elements (rows of wn + pad_c): lane l gives row
 * l % 8 of matrix l / 8, at row 8 ((l / 8) & 1) + l % 8 and column
 * 16 jj + 8 ((l / 8) >> 1) (the template's epilogue_staged_b16); then the
 * 16-byte loads of the slice's rows, 8 elements each, 32 at a time. */
static void plan_epilogue_b16(const tc_geometry *g, int w, long long times,
                              tn_access_sink *sink)
{
  int sp = g->wn + g->pad_c, i, jj, q, lane;
  uint32_t base = 2u * (uint32_t)(w * 16 * sp);
  for (i = 0; i < g->mi; i++) {
    for (jj = 0; jj < g->ni / 2; jj++) {
      tn_warp_access st;
      tn_warp_access_init(&st, TN_OP_STMATRIX, 16);
      st.matrices = 4;
      st.active = 0xffffffffu;
      for (lane = 0; lane < 32; lane++) {
        int mq = lane / 8, mr = lane % 8;
        st.addr[lane] = base + 2u * (uint32_t)((8 * (mq & 1) + mr) * sp +
                                               16 * jj + 8 * (mq >> 1));
      }
      tn_sink_access(sink, &st, times);
    }
    for (q = 0; q < 16 * (g->wn / 8); q += 32) {
      tn_warp_access ld;
      tn_warp_access_init(&ld, TN_OP_LD, 16);
      ld.active = 0xffffffffu;
      for (lane = 0; lane < 32; lane++) {
        int e = q + lane, r = e / (g->wn / 8), c = 8 * (e % (g->wn / 8));
        ld.addr[lane] = base + 2u * (uint32_t)(r * sp + c);
      }
      tn_sink_access(sink, &ld, times);
    }
  }
}

void tn_gemm_tc_plan(const tn_params *p, const tn_problem *prob,
                     tn_access_sink *sink)
{
  tc_geometry g;
  long long blocks, ktiles;
  int s, w, kk;
  long long pitch_a, pitch_b;

  tn_gemm_tc_geometry(p, prob, &g);
  /* as the template decides: an operand whose leading dimension is a
   * multiple of 8 is copied by cp.async, else element by element through
   * st.shared (the buffers themselves are 256-byte aligned) */
  pitch_a = TC_TRANS_A(prob) ? g.m : g.k;
  pitch_b = TC_TRANS_B(prob) ? g.k : g.n;
  if (pitch_a % 8)
    pitch_a = 0;
  if (pitch_b % 8)
    pitch_b = 0;
  blocks = ((g.m + g.bm - 1) / g.bm) * ((g.n + g.bn - 1) / g.bn);
  ktiles = (g.k + g.bk - 1) / g.bk;
  /* tile t is copied into and read from stage t % stages */
  for (s = 0; s < g.stages; s++) {
    long long per_stage = ktiles / g.stages + (s < ktiles % g.stages);
    long long times = blocks * per_stage;
    if (per_stage == 0)
      continue;
    for (w = 0; w < g.threads / 32; w++) {
      int wm0 = (w / g.warps_n) * g.wm, wn0 = (w % g.warps_n) * g.wn;
      plan_copies(&g, &g.op[0], w, s, pitch_a, times, sink);
      plan_copies(&g, &g.op[1], w, s, pitch_b, times, sink);
      for (kk = 0; kk < g.bk; kk += 16)
        plan_fragments(&g, wm0, wn0, kk, s, times, sink);
    }
  }
  for (w = 0; g.epilogue && w < g.threads / 32; w++) {
    if (g.epilogue == 2)
      plan_epilogue_b16(&g, w, blocks, sink);
    else
      plan_epilogue(&g, w, blocks, sink);
  }
}

/* gemm_plan.c -- the GEMM family's shared-memory access plan: lane by
 * lane, every shared-memory instruction of templates/gemm.cu.  The
 * template never skips them at the matrix edges (it stores zeros there,
 * or the copy engine does), so one block's plan, times the blocks and
 * k-tiles, is the launch's.  The copy engine's writes (pipeline 3) are no
 * instruction of the threads: the plan has the loads alone there. */
#include <stdint.h>
#include <string.h>

#include "family/gemm_shape.h"
#include "../../templates/gemm_lanes.h"
#include "../../templates/smem_layout.h"

static uint32_t byte_addr(const operand *o, int buffer, int row, int col)
{
  int off = tn_smem_offset(row, col, o->width, o->pad, o->sw.b, o->sw.m,
                           o->sw.s);
  return 4u * (uint32_t)(o->base + buffer * o->elems + off);
}

/* The textbook kernel: per warp and tile, the stores As[ty][tx] and
 * Bs[ty][tx], then for every k step a load of tb_vec floats of As row ty
 * and a 4-byte load Bs[k][tx]. */
static void plan_textbook(const geometry *g, long long times,
                          tn_access_sink *sink)
{
  const operand *A = &g->op[0], *B = &g->op[1];
  int tile = g->bm, w, lane, k;

  for (w = 0; w * 32 < g->threads; w++) {
    tn_warp_access sa, sb;
    tn_warp_access_init(&sa, TN_OP_ST, 4);
    tn_warp_access_init(&sb, TN_OP_ST, 4);
    for (lane = 0; lane < 32 && w * 32 + lane < g->threads; lane++) {
      int t = w * 32 + lane, tx = t % tile, ty = t / tile;
      sa.addr[lane] = byte_addr(A, 0, ty, tx);
      sb.addr[lane] = byte_addr(B, 0, ty, tx);
      sa.active |= 1u << lane;
    }
    sb.active = sa.active;
    tn_sink_access(sink, &sa, times);
    tn_sink_access(sink, &sb, times);
    for (k = 0; k < tile; k++) {
      tn_warp_access la, lb;
      tn_warp_access_init(&la, TN_OP_LD, 4 * g->tb_vec);
      tn_warp_access_init(&lb, TN_OP_LD, 4);
      for (lane = 0; lane < 32 && w * 32 + lane < g->threads; lane++) {
        int t = w * 32 + lane, tx = t % tile, ty = t / tile;
        la.addr[lane] = byte_addr(A, 0, ty, k - k % g->tb_vec);
        lb.addr[lane] = byte_addr(B, 0, k, tx);
        lb.active |= 1u << lane;
      }
      la.active = lb.active;
      if (k % g->tb_vec == 0)
        tn_sink_access(sink, &la, times);
      tn_sink_access(sink, &lb, times);
    }
  }
}

/* The stores of one operand's tile by warp w into buffer `buffer`.  A
 * cp.async copy (pipeline 2) is planned as the 16-byte store of its shared
 * side, not with the cp.async rule of model_async.c: inside a running GEMM
 * Nsight Compute counts a copy's wavefronts by when its data arrives, not
 * by its addresses alone (the same copy counted 4 where alone it counts 8,
 * copies of one shape in one kernel 7 and 17: results/model-validation/
 * README.md); the store's count is what ncu showed on 80 of the 128 GEMM
 * launches with cp.async measured there. */
static void plan_tile_stores(const geometry *g, const operand *o, int w,
                             int buffer, long long times,
                             tn_access_sink *sink)
{
  int it, e, lane;
  for (it = 0; it < o->iters; it++) {
    tn_warp_access st[4];
    for (e = 0; e < 4; e++)
      tn_warp_access_init(&st[e], TN_OP_ST, o->copy ? 16 : 4);
    for (lane = 0; lane < 32; lane++) {
      int s = it * g->threads + w * 32 + lane;
      int oo = s / (o->cl / 4), c = 4 * (s % (o->cl / 4));
      if (s >= o->slots)
        continue;
      for (e = 0; e < (o->copy ? 1 : 4); e++) {
        st[e].addr[lane] = o->copy ? byte_addr(o, buffer, oo, c)
                                   : byte_addr(o, buffer, c + e, oo);
        st[e].active |= 1u << lane;
      }
    }
    for (e = 0; e < (o->copy ? 1 : 4); e++)
      if (st[e].active)
        tn_sink_access(sink, &st[e], times);
  }
}

/* The fragment loads of one operand by warp w from buffer `buffer`:
 * w0 is the warp's first row (A) or column (B) in the tile, a lane's place
 * along this operand's dimension its row (A, rows) or column in the warp's
 * grid (templates/gemm_lanes.h), t is tm (tn), v is vm (vn), lanes_dim lm
 * (ln). */
static void plan_fragment_loads(const geometry *g, const operand *o, int w0,
                                int rows, int t, int v, int lanes_dim,
                                int buffer, long long times,
                                tn_access_sink *sink)
{
  int k, i, lane, place[32];
  for (lane = 0; lane < 32; lane++)
    place[lane] = tn_gemm_lane_pos(lane, g->lm, g->lane_order, rows);
  if (o->kmajor) {
    for (k = 0; k < g->bk; k++) {
      for (i = 0; i < t / v; i++) {
        tn_warp_access a;
        tn_warp_access_init(&a, TN_OP_LD, 4 * v);
        a.active = 0xffffffffu;
        for (lane = 0; lane < 32; lane++)
          a.addr[lane] = byte_addr(o, buffer, k, w0 + i * lanes_dim * v +
                                                     place[lane] * v);
        tn_sink_access(sink, &a, times);
      }
    }
  } else {
    for (k = 0; k < g->bk; k += 4) {
      for (i = 0; i < t; i++) {
        tn_warp_access a;
        tn_warp_access_init(&a, TN_OP_LD, 16);
        a.active = 0xffffffffu;
        for (lane = 0; lane < 32; lane++) {
          int r = w0 + (i / v) * lanes_dim * v + place[lane] * v + i % v;
          a.addr[lane] = byte_addr(o, buffer, r, k);
        }
        tn_sink_access(sink, &a, times);
      }
    }
  }
}

void tn_gemm_plan(const tn_params *p, const tn_problem *prob,
                 tn_access_sink *sink)
{
  geometry g;
  long long blocks, ktiles;
  int w, b;

  tn_gemm_geometry(p, prob, &g);
  blocks = ((g.m + g.bm - 1) / g.bm) * ((g.n + g.bn - 1) / g.bn);
  ktiles = (g.k + g.bk - 1) / g.bk;
  if (g.kernel == 0) {
    plan_textbook(&g, blocks * ktiles, sink);
    return;
  }
  /* tile t is stored into and read from buffer t % stages */
  for (b = 0; b < g.stages; b++) {
    long long times = blocks * ((ktiles - b + g.stages - 1) / g.stages);
    for (w = 0; w < g.threads / 32; w++) {
      int wr = (w / g.warps_n) * g.wm, wc = (w % g.warps_n) * g.wn;
      if (!g.tma) {
        plan_tile_stores(&g, &g.op[0], w, b, times, sink);
        plan_tile_stores(&g, &g.op[1], w, b, times, sink);
      }
      plan_fragment_loads(&g, &g.op[0], wr, 1, g.tm, g.vm, g.lm, b, times,
                          sink);
      plan_fragment_loads(&g, &g.op[1], wc, 0, g.tn, g.vn, g.ln, b, times,
                          sink);
    }
  }
}

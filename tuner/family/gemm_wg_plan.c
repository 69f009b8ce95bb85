/* gemm_wg_plan.c -- the wgmma GEMM family's shared-memory access plan:
 * the warp instructions of templates/gemm_wg.cu that touch shared memory,
 * lane by lane.
 *
 * The copy engine (TMA) writes the rings of A and B, and wgmma reads them
 * through its descriptors: neither is a warp's access (no lane names an
 * address; the swizzle is the hardware's), so the model prices none of
 * it, whatever the swizzle.  The mbarriers' waits and arrivals are
 * synchronisation, not data.  What the threads do store is epilogue 1's
 * staging of C, every tile once: st.shared.v2.f32 of each accumulator
 * pair (fp32 C) or stmatrix.x4 of two n8 blocks by 16 rows (a 16-bit C),
 * into rows of c_col bytes under that width's swizzle (the template's
 * staged_offset), each consumer in its own staging (with c_ring, a ring
 * of the tile's columns: the same stores, into fewer buffers).
 * Epilogue 0 writes C from registers: nothing to plan. */
#include <stdint.h>
#include <string.h>

#include "family/gemm_wg_shape.h"

/* The template's staged_offset: column col / sc (c_col bytes) in buffer
 * (col / sc) % c_bufs of cm rows x c_col bytes, the 16-byte chunk xor
 * the address's bits 7 and up (row % 8 for 128-byte rows, row / 2 % 4
 * for 64, row / 4 % 2 for 32). */
static uint32_t staged_offset(const wg_geometry *g, int row, int col)
{
  int cc = g->c_col, sc = cc / g->out_bytes, sub = (col / sc) % g->c_bufs;
  int within = (col % sc) * g->out_bytes;
  return (uint32_t)(sub * g->cm * cc + row * cc +
                    (((within / 16) ^ (row * cc / 128 % (cc / 16))) * 16) +
                    within % 16);
}

/* Warp w (0..3) of consumer cw, one tile: its staging stores, slab by
 * slab (the template takes them column by column, slabs inside: the same
 * stores, and a store's wavefronts do not depend on its neighbours). */
static void plan_staging(const wg_geometry *g, int cw, int w,
                         long long times, tn_access_sink *sink)
{
  uint32_t base = (uint32_t)(g->stages * (g->a_stage + g->b_stage) +
                             cw * g->c_staging);
  int mc, j, h, jp, lane;
  for (mc = 0; mc < g->cm / 64; mc++) {
    if (g->out_bytes == 4) {
      for (j = 0; j < g->bn / 8; j++)
        for (h = 0; h < 2; h++) {
          tn_warp_access st;
          tn_warp_access_init(&st, TN_OP_ST, 8);
          st.active = 0xffffffffu;
          for (lane = 0; lane < 32; lane++)
            st.addr[lane] =
                base + staged_offset(g, 64 * mc + 16 * w + lane / 4 + 8 * h,
                                     8 * j + 2 * (lane % 4));
          tn_sink_access(sink, &st, times);
        }
      continue;
    }
    for (jp = 0; jp < g->bn / 16; jp++) {
      tn_warp_access st;
      tn_warp_access_init(&st, TN_OP_STMATRIX, 16);
      st.matrices = 4;
      st.active = 0xffffffffu;
      for (lane = 0; lane < 32; lane++) {
        int e = lane / 8;
        st.addr[lane] =
            base + staged_offset(g, 64 * mc + 16 * w + 8 * (e & 1) + lane % 8,
                                 8 * (2 * jp + (e >> 1)));
      }
      tn_sink_access(sink, &st, times);
    }
  }
}

/* The tiles consumer cw stages over the launch: every tile of the grid
 * (each consumer its rows of it), or with ping-pong those of the units it
 * takes: block b walks units b, b + B, b + 2 B, ... (B blocks, or with
 * multicast B / cluster clusters, whose blocks walk the same units) and
 * its consumers take them in turn, a multicast unit's padding tiles
 * staged too. */
static long long staged_tiles(const wg_geometry *g, int cw)
{
  long long per = g->multicast ? g->cluster : 1;
  long long walkers = g->blocks / per, rounds, rest, mine;
  if (!g->pingpong)
    return g->tiles;
  rounds = g->units / walkers; /* units b + r B, r < rounds, every b */
  rest = g->units % walkers;   /* and round `rounds` of the first rest */
  mine = (cw == 0 ? (rounds + 1) / 2 : rounds / 2) * walkers +
         (rounds % 2 == cw ? rest : 0);
  return mine * per;
}

void tn_gemm_wg_plan(const tn_params *p, const tn_problem *prob,
                     tn_access_sink *sink)
{
  wg_geometry g;
  int cw, w;
  tn_gemm_wg_geometry(p, prob, &g);
  if (g.epilogue != 1)
    return;
  /* warps in block order: the producer's (none of these) first */
  for (cw = 0; cw < g.consumers; cw++)
    for (w = 0; w < 4; w++)
      plan_staging(&g, cw, w, staged_tiles(&g, cw), sink);
}

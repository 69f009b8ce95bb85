/* gemm_shape.c -- the shape a point of the GEMM family gives
 * templates/gemm.cu: tiles, threads, each operand's shared array and its
 * bytes (gemm_shape.h).  The family's rules, launch and defines and its
 * access plan all read it. */
#include <string.h>

#include "family/gemm_shape.h"

/* Fills the shape of one operand of the tiled kernel. */
static void operand_shape(operand *o, const geometry *g, int mn,
                          int kcontig, int kmajor, int read_vec, int pad,
                          const tn_swizzle *sw)
{
  o->mn = mn;
  o->kcontig = kcontig;
  o->kmajor = kmajor;
  o->copy = kcontig != kmajor;
  o->cl = kcontig ? g->bk : mn;
  o->slots = mn * g->bk / 4;
  o->iters = (o->slots + g->threads - 1) / g->threads;
  o->rows = kmajor ? g->bk : mn;
  o->width = kmajor ? mn : g->bk;
  o->pad = pad;
  o->elems = o->rows * (o->width + pad);
  /* reads: k-major runs of VM (VN) floats, else float4 along k; stores:
   * float4 when copying, floats when transposing */
  o->vec = kmajor ? read_vec : 4;
  if (o->copy && o->vec < 4)
    o->vec = 4;
  o->sw = *sw;
}

/* Pipeline 3: the copy engine writes each tile as it lies in global
 * memory (rows along the contiguous dimension: the rules make kmajor
 * follow), one box of the whole tile, unpadded; every buffer starts on
 * 1024 bytes, the period of the widest swizzle, so that the hardware's
 * address-based swizzle is the tile's; a full and an empty mbarrier a
 * buffer. */
static void tma_shape(geometry *g)
{
  int i, base = 0;
  for (i = 0; i < 2; i++) {
    operand *o = &g->op[i];
    /* -1: a swizzle the copy engine has not, which the rules refuse */
    int span = tn_swizzle_tma_span(&o->sw);
    o->span = span > 0 ? span : 0;
    o->elems = (o->rows * o->width + 255) / 256 * 256;
    o->base = base;
    base += g->stages * o->elems;
  }
  g->smem_bytes = 4LL * base;
  g->bar_bytes = 16 * g->stages;
}

void tn_gemm_geometry(const tn_params *p, const tn_problem *prob,
                        geometry *g)
{
  memset(g, 0, sizeof(*g));
  g->kernel = (int)p->v[P_KERNEL].i;
  g->bm = (int)p->v[P_BM].i;
  g->bn = (int)p->v[P_BN].i;
  g->bk = (int)p->v[P_BK].i;
  g->tm = (int)p->v[P_TM].i;
  g->tn = (int)p->v[P_TN].i;
  g->lm = (int)p->v[P_LANES_M].i;
  g->ln = 32 / g->lm;
  g->wm = g->lm * g->tm;
  g->wn = g->ln * g->tn;
  g->m = prob->size.dims[0];
  g->n = prob->size.dims[1];
  g->k = prob->size.dims[2];
  if (g->kernel == 0) {
    int tile = g->bm, pa = (int)p->v[P_PAD_A].i;
    const tn_swizzle *sa = &p->v[P_SWIZZLE_A].sw;
    /* TILE x TILE x TILE tiles, one output per thread */
    g->bn = g->bk = tile;
    g->tm = g->tn = 1;
    g->threads = tile * tile;
    g->stages = 1;
    /* the widest load of an As row the padding (and swizzle) keep
     * aligned; the same rule prepare() resolves the swizzle with */
    g->tb_vec = 4;
    while (g->tb_vec > 1 && (tile + pa) % g->tb_vec != 0)
      g->tb_vec /= 2;
    if (sa->kind == TN_SWZ_CUTE && sa->b > 0)
      while (g->tb_vec > (1 << sa->m))
        g->tb_vec /= 2;
    g->op[0].rows = g->op[0].width = tile;
    g->op[0].pad = pa;
    g->op[0].elems = tile * (tile + pa);
    g->op[0].vec = g->tb_vec;
    g->op[0].sw = *sa;
    g->op[1].rows = g->op[1].width = tile;
    g->op[1].pad = (int)p->v[P_PAD_B].i;
    g->op[1].elems = tile * (tile + g->op[1].pad);
    g->op[1].vec = 1;
    g->op[1].base = g->op[0].elems;
    g->op[1].sw = p->v[P_SWIZZLE_B].sw;
    g->smem_bytes = 4LL * (g->op[0].elems + g->op[1].elems);
    return;
  }
  g->threads = (g->bm / g->tm) * (g->bn / g->tn);
  g->tma = p->v[P_PIPELINE].i == 3;
  g->producer = (int)p->v[P_PRODUCER].i;
  g->stages = g->tma ? (int)p->v[P_STAGES].i : p->v[P_PIPELINE].i ? 2 : 1;
  g->vm = p->v[P_RUN_M].i ? (int)p->v[P_RUN_M].i : g->tm < 4 ? g->tm : 4;
  g->lane_order = (int)p->v[P_LANE_ORDER].i;
  g->vn = g->tn < 4 ? g->tn : 4;
  g->warps_n = g->bn / g->wn;
  g->tb_vec = 1;
  operand_shape(&g->op[0], g, g->bm, !GEMM_TRANS_A(prob),
                (int)p->v[P_A_KMAJOR].i, g->vm, (int)p->v[P_PAD_A].i,
                &p->v[P_SWIZZLE_A].sw);
  operand_shape(&g->op[1], g, g->bn, GEMM_TRANS_B(prob) != 0,
                (int)p->v[P_B_KMAJOR].i, g->vn, (int)p->v[P_PAD_B].i,
                &p->v[P_SWIZZLE_B].sw);
  g->op[0].base = 0;
  g->op[1].base = g->stages * g->op[0].elems;
  g->smem_bytes = 4LL * g->stages * (g->op[0].elems + g->op[1].elems);
  if (g->tma)
    tma_shape(g);
}

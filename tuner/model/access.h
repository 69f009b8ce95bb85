/* access.h -- one warp's shared-memory instruction and what it costs: the
 * types that the model (model.c) and its cp.async part (model_async.c)
 * share, kept apart so that neither module includes the other's header
 * back. */
#ifndef TN_ACCESS_H
#define TN_ACCESS_H

#include <stdint.h>
#include <string.h>

typedef enum {
  TN_OP_LD,       /* ld.shared of 1, 2, 4, 8 or 16 bytes */
  TN_OP_ST,       /* st.shared of 1, 2, 4, 8 or 16 bytes */
  TN_OP_LDMATRIX, /* ldmatrix.m8n8.x{1,2,4}[.trans] */
  TN_OP_STMATRIX, /* stmatrix.m8n8.x{1,2,4}[.trans] */
  TN_OP_CP_ASYNC_CA, /* cp.async.ca (LDGSTS) of 4, 8 or 16 bytes */
  TN_OP_CP_ASYNC_CG  /* cp.async.cg (LDGSTS.BYPASS) of 16 bytes */
} tn_op;

typedef struct {
  tn_op op;
  int width;       /* bytes per lane (16 for ldmatrix/stmatrix rows) */
  int matrices;    /* 1, 2 or 4 for ldmatrix/stmatrix, else 0 */
  int trans;       /* .trans (does not change addresses) */
  uint32_t active; /* bit i: lane i takes part */
  uint32_t addr[32]; /* byte offsets in shared memory */
  uint32_t gaddr[32]; /* cp.async only: the global byte offsets read, from
                         a 128-byte-aligned base */
  int async_copy;  /* a store that is the shared side of a cp.async, priced
                      as that store (the plans say why) and counted apart
                      with the cp.async copies (async_wavefronts) */
} tn_warp_access;

typedef struct {
  int wavefronts;   /* passes of the shared-memory pipeline */
  int degree;       /* most distinct 4-byte words asked of one bank in
                       one pass group (1 = conflict-free) */
  uint32_t busiest; /* banks that reach that degree, bit per bank */
  int phases;       /* phases served: the wavefronts without conflicts */
} tn_access_cost;

/* An access of op and width bytes per lane, no lane active yet (the
 * plans fill addr[] and active). */
static inline void tn_warp_access_init(tn_warp_access *a, tn_op op,
                                       int width)
{
  memset(a, 0, sizeof(*a));
  a->op = op;
  a->width = width;
}

#endif

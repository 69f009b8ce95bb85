/* transpose_shape.h -- what the parts of the transpose family share
 * (private to tuner/family/transpose*.c): the parameters' and the
 * option's indices, the element types, and the shape a point gives
 * templates/transpose.cu.  The parts, each calling only those above it:
 *
 *   transpose_check.c  every element compared bit for bit
 *   transpose_plan.c   the shape of a point, the shared-memory access plan
 *   transpose_rules.c  the rules of a point, the copy engine's tensor maps
 *   transpose.c        the family: parameters, launch, defines, buffers,
 *                      units, baseline */
#ifndef TN_TRANSPOSE_SHAPE_H
#define TN_TRANSPOSE_SHAPE_H

#include "family/family.h"

enum {
  TP_TILE,
  TP_ROWS,
  TP_VEC,
  TP_PAD,
  TP_SWIZZLE,
  TP_GROUP,
  TP_TMA,
  TP_TMA_STORE,
  TP_BOX_ROWS,
  TP_BOX_COLS,
  TP_PAD_UNIT,
  TP_PACK,
  TP_CACHE,
  TP_TILE_ROWS,
  TP_SMEM_CLAIM,
  TP_N_PARAMS
};

/* The problem options, in the order of transpose.c's table. */
enum { TP_OPT_ELEM, TP_N_OPTIONS };

/* The element types the option names, in the order of its choices: a
 * transpose moves bits, so each stands for its width (fp8 is moved as
 * bytes, whatever its format). */
enum {
  TP_ELEM_FP32,
  TP_ELEM_FP16,
  TP_ELEM_BF16,
  TP_ELEM_FP8,
  TP_ELEM_INT8,
  TP_ELEM_FP64,
  TP_N_ELEMS
};

/* The buffer type of the problem's element (fp8: bytes, u8). */
tn_elem_type tn_transpose_elem(const tn_problem *prob);
/* Bytes of one element: 1, 2, 4 or 8. */
int tn_transpose_elem_bytes(const tn_problem *prob);

/* The matrices of a problem: its last two dimensions are the rows and
 * columns of each, the dimensions before them (the batched families'
 * batch, heads) count the matrices, each contiguous, one after the
 * other in both buffers. */
typedef struct {
  long long batch; /* matrices: the product of the leading dimensions */
  long long rows, cols;
} tn_transpose_dims;
static inline void tn_transpose_dims_of(const tn_problem *prob,
                                        tn_transpose_dims *d)
{
  int n = prob->size.n_dims < 2 ? 2 : prob->size.n_dims, i;
  d->batch = 1;
  for (i = 0; i < n - 2; i++)
    d->batch *= prob->size.dims[i];
  d->rows = prob->size.dims[n - 2];
  d->cols = prob->size.dims[n - 1];
}

/* The grid's y and z that count batch matrices (block (y, z) transposes
 * matrix y + gridDim.y * z): y the largest divisor of batch of at most
 * 65535 with batch / y at most 65535.  0, or -1 when batch has no such
 * split (the grid's limits: a batch above 65535^2, or one whose divisors
 * all lie past 65535 on one side, such as a prime above 65535). */
int tn_transpose_batch_grid(long long batch, unsigned *y, unsigned *z);

/* What the launch, the template (through defines()) and the plan derive
 * from a point, computed in one place (tn_transpose_shape_of). */
typedef struct {
  int eb;              /* bytes of an element */
  int tile, rpt, vec;  /* tile: the tile's columns */
  int tile_rows;       /* its rows (tile_rows resolved: the square's tile) */
  int pad;             /* padding elements a row (pad_unit resolved) */
  int pack;            /* tile columns one shared load brings (fast path) */
  int nx, by, threads; /* block of nx x by threads */
  int nx2, by2;        /* the same threads along the transposed tile's
                        * rows: tile_rows / vec x tile / rpt */
  int sw;              /* fast-path store width in elements */
  int smem_elems;
  int tma, tma_store;  /* the copy engine's path, and its store */
  int box_rows, box_cols;
} tn_transpose_shape;

/* The pad in elements: pad_unit 0 counts elements, 4 counts 4-byte
 * words (prepare() refuses a pad of words that is no whole number of
 * elements). */
int tn_transpose_pad_elems(const tn_params *p, int eb);
void tn_transpose_shape_of(const tn_params *p, const tn_problem *prob,
                           tn_transpose_shape *s);
/* tn_family.prepare: 0, or 1 with why for a point the kernels cannot
 * take (resolving its swizzle for the element's width). */
int tn_transpose_prepare(const tn_family *fam, tn_params *p,
                         const tn_problem *prob, char *why, size_t n);
/* tn_family.tensor_maps: the copy engine's input map (cols inner, rows
 * outer) and, storing by TMA, the output's (rows inner), in boxes of
 * box_rows x box_cols under the swizzle; 0 on the threads' path. */
int tn_transpose_tensor_maps(const tn_family *fam, const tn_params *p,
                             const tn_problem *prob, tn_tmap_desc *out);
/* Emits every shared-memory warp access of one launch on prob. */
void tn_transpose_plan(const tn_family *fam, const tn_params *p,
                       const tn_problem *prob, tn_access_sink *sink);

#endif

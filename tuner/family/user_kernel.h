/* user_kernel.h -- a kernel family described by a config: the user's own
 * kernel, as data.
 *
 * The config (pipeline/config_user.c, docs/kernels.md) names a .cu file
 * and a kernel, its parameters, its problem's dimensions, the launch,
 * the arguments in the kernel's order, the reference it is checked
 * against, its rate, a baseline, and optionally its shared-memory plan.
 * tn_user_kernel holds that description and the tn_family made from it,
 * so that the space, the model, the compiles, the worker, the results,
 * the headers and the merges take it as they take a family compiled in. */
#ifndef TN_USER_KERNEL_H
#define TN_USER_KERNEL_H

#include "family/family.h"
#include "family/user_expr.h"

#define TN_USER_MAX_ARGS 24
#define TN_USER_MAX_CONSTANTS 8
#define TN_USER_MAX_ARRAYS 8
#define TN_USER_MAX_ACCESSES 32
#define TN_USER_PATH 4096

typedef enum { TN_UARG_BUFFER, TN_UARG_SCALAR } tn_uarg_kind;

typedef struct {
  char name[TN_NAME_LEN];
  int line;
  tn_uarg_kind kind;
  tn_elem_type type;
  /* a buffer */
  tn_uexpr count; /* elements, of the dimensions */
  tn_buffer_init init;
  int output;     /* checked against the reference */
  int has_init;   /* an output given an init is in and out */
  double atol, rtol; /* |x - ref| <= atol + rtol * |ref|; integers exact */
  /* a scalar: an expression, or a floating literal */
  tn_uexpr value;
  int literal;
  double literal_value;
} tn_uarg;

/* A __constant__ symbol of the kernel's module, filled by the host. */
typedef struct {
  char name[TN_NAME_LEN];
  int line;
  tn_elem_type type;
  tn_uexpr count;
  tn_buffer_init init;
} tn_uconstant;

/* How a kernel is launched: grid and block from expressions, dynamic
 * shared memory in bytes. */
typedef struct {
  tn_uexpr grid[3], block[3], smem;
} tn_ulaunch;

/* Another kernel of the user's: the reference or the baseline. */
typedef struct {
  char kernel[128];           /* as written */
  char lowered[256];          /* its symbol (kernel_probe.h) */
  int line;                   /* of its group in the config */
  char file[TN_USER_PATH];    /* resolved; the kernel's file if not given */
  tn_ulaunch launch;
  char *source;               /* its file's text */
} tn_uother;

typedef enum {
  TN_UREF_DEFAULT, /* the space's default point, run once per problem */
  TN_UREF_KERNEL   /* another kernel */
} tn_uref_kind;

typedef enum { TN_UBASE_NONE, TN_UBASE_KERNEL, TN_UBASE_COPY } tn_ubase_kind;

/* The plan: shared arrays and the warp accesses to them. */
typedef struct {
  char name[TN_NAME_LEN];
  int line;
  int elem;                 /* bytes of an element */
  tn_uexpr rows, cols, pad;
  int dynamic;              /* in dynamic shared memory (launch.smem) */
  int swizzle_param;        /* a swizzle parameter's index, or -1 */
  tn_swizzle swizzle;       /* else this fixed one */
} tn_uarray;

/* The most kernel-file lines one access's `line` may name. */
#define TN_USER_MAX_SRC_LINES 8

typedef struct {
  char name[64];            /* "tile load", or "access N" */
  int line;
  char file[TN_USER_PATH];  /* the config (or @include) it is written in */
  int array;
  int op;                   /* tn_op (model/access.h) */
  int width;                /* bytes per lane; 0: width_expr's */
  tn_uexpr width_expr;      /* a width that depends on the point */
  int matrices, trans;      /* ldmatrix / stmatrix */
  tn_uexpr row, col, active, warps, times, global;
  int n_loops;
  char loop_name[TN_USER_MAX_LOOPS][TN_NAME_LEN];
  tn_uexpr loop_count[TN_USER_MAX_LOOPS];
  tn_uscope scope;          /* the plan's names and this access's loops */
  /* `line`: the lines of the kernel's file that hold its instructions,
   * for the check against Nsight Compute (scripts/plan_vs_ncu.py) */
  int n_src_lines;
  int src_line[TN_USER_MAX_SRC_LINES];
} tn_uaccess;

typedef struct tn_user_kernel {
  char name[64];            /* the family's: the config's name */
  char config_path[TN_USER_PATH];
  char file[TN_USER_PATH];  /* the kernel's .cu, resolved */
  char kernel[128];         /* its name as written */
  int kernel_line, args_line; /* in the config, for messages */
  /* its symbol in the compiled module (C++ names are mangled): found by
   * the first compile (pipeline/precheck.c), else the name as written */
  char lowered[256];
  char *source;             /* the kernel file's text */
  /* the space's first valid point (pipeline/kernel_probe.c): the default
   * a reference or baseline kernel is rendered and launched with */
  tn_params default_point;

  int n_params;
  tn_param_desc params[TN_MAX_PARAMS];
  char param_names[TN_MAX_PARAMS][TN_NAME_LEN];
  int n_dims;
  char dim_names[TN_MAX_DIMS][TN_NAME_LEN];
  char dim_list[TN_MAX_DIMS * (TN_NAME_LEN + 2)]; /* "rows, cols" */
  tn_uscope scope;          /* params, dims, threads, smem_bytes */

  tn_ulaunch launch;
  int n_args;
  tn_uarg args[TN_USER_MAX_ARGS];
  int n_constants;
  tn_uconstant constants[TN_USER_MAX_CONSTANTS];

  tn_uref_kind ref_kind;
  tn_uother reference;
  tn_ubase_kind base_kind;
  tn_uother baseline;
  tn_uexpr copy_bytes;

  tn_uexpr work;            /* per launch, in unit_base */
  char unit[16];            /* "GB/s" */
  double unit_scale;        /* 1e9 */

  int has_plan;
  int n_arrays;
  tn_uarray arrays[TN_USER_MAX_ARRAYS];
  int n_accesses;
  tn_uaccess accesses[TN_USER_MAX_ACCESSES];

  const char *baseline_names[1];
  tn_family family;         /* impl points back here */
} tn_user_kernel;

/* The description of f, or NULL for a family compiled in. */
static inline const tn_user_kernel *tn_user_of(const tn_family *f)
{
  return f ? (const tn_user_kernel *)f->impl : NULL;
}

#endif

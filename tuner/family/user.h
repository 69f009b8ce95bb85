/* user.h -- a kernel family described by a config: the user's own kernel.
 *
 * The config (pipeline/config_user.c, docs/kernels.md) names a .cu file
 * and a kernel, its parameters, its problem's dimensions, the launch,
 * the arguments in the kernel's order, the reference it is checked
 * against, its rate, a baseline, and optionally its shared-memory plan.
 * tn_user_kernel holds that description and the tn_family made from it,
 * so that the space, the model, the compiles, the worker, the results,
 * the headers and the merges take it as they take a family compiled in. */
#ifndef TN_USER_H
#define TN_USER_H

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
  int swizzle_param;        /* a swizzle parameter's index, or -1 */
  tn_swizzle swizzle;       /* else this fixed one */
} tn_uarray;

typedef struct {
  char name[64];            /* "tile load", or "access N" */
  int line;
  int array;
  int op;                   /* tn_op (model/access.h) */
  int width;                /* bytes per lane */
  int matrices, trans;      /* ldmatrix / stmatrix */
  tn_uexpr row, col, active, warps, times, global;
  int n_loops;
  char loop_name[TN_USER_MAX_LOOPS][TN_NAME_LEN];
  tn_uexpr loop_count[TN_USER_MAX_LOOPS];
  tn_uscope scope;          /* the plan's names and this access's loops */
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

/* Fills u->family from u's description (after the config is read):
 * name, parameters, dimensions, callbacks.  Returns 0. */
int tn_user_family_init(tn_user_kernel *u, const char *name);

/* Frees what u holds (its compiled expressions, sources); not u. */
void tn_user_kernel_free(tn_user_kernel *u);

/* The slot values of point p on prob: the parameters and dimensions.
 * Swizzle parameters read as their index in the space's list. */
void tn_user_slots(const tn_user_kernel *u, const tn_params *p,
                   const tn_problem *prob, long long *slots);

/* A launch's shape from l on slots.  0, or -1 with why. */
int tn_user_eval_launch(const tn_ulaunch *l, const long long *slots,
                        unsigned grid[3], unsigned block[3], int *smem,
                        char *why, size_t n);

/* The plan's warp accesses of a launch of p on prob, every block priced
 * as the first (family/user_plan.c).  Sets sink->failed with why when an
 * expression fails or an address leaves its array. */
void tn_user_plan(const tn_family *f, const tn_params *p,
                  const tn_problem *prob, tn_access_sink *sink);
/* The same for the plan's access index alone.  0, or -1 (sink->failed). */
int tn_user_plan_access(const tn_family *f, const tn_params *p,
                        const tn_problem *prob, int index,
                        tn_access_sink *sink);

/* The worker's side (family/user_run.c): the buffers of the arguments
 * (and of a copy baseline), the arguments of p, the __constant__
 * symbols, the check of the outputs against the reference's, the copy
 * baseline. */
int tn_user_buffers(const tn_family *f, const tn_problem *prob,
                    tn_buffer_desc *out);
void tn_user_args(const tn_family *f, const tn_params *p,
                  const tn_problem *prob, const tn_devptr *bufs,
                  tn_args *out);
int tn_user_constants(const tn_family *f, const tn_params *p,
                      const tn_problem *prob, tn_constant_desc *out);
int tn_user_verify(tn_verify_env *env, char *why, size_t n);
int tn_user_baseline(const char *name, tn_baseline_env *env, char *why,
                     size_t n);

/* "fp32", ... for t (the config's names). */
const char *tn_user_type_name(tn_elem_type t);
/* The type called name ("fp32", "float32", "f32", "int8", "uint64", ...),
 * or -1. */
int tn_user_type_parse(const char *name);

#endif

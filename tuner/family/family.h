/* family.h -- what a kernel family tells the tuner.
 *
 * One file per family under tuner/family/ fills a tn_family: its parameters,
 * which points of the space are valid, the launch shape, the macros its
 * template reads, the shared-memory access plan the model prices, and on
 * the GPU side its buffers, arguments, reference check and baselines. */
#ifndef TN_FAMILY_H
#define TN_FAMILY_H

#include <jansson.h>
#include <stddef.h>

#include "base/arch.h"
#include "model/model.h"
#include "model/time.h"
#include "family/param.h"
#include "family/size.h"
#include "family/tmap.h"

typedef unsigned long long tn_devptr; /* a CUdeviceptr */

typedef struct {
  unsigned grid[3], block[3];
  int threads;      /* block[0] * block[1] * block[2] */
  int smem_static;  /* bytes of __shared__ the template declares */
  int smem_dynamic; /* bytes of dynamic shared memory at launch */
  /* The oldest compute capability the code runs on, as 10 * major +
   * minor (0: any the tuner knows); a candidate is excluded on older
   * architectures, with `needs` as the reason's subject ("the copy engine
   * (TMA)"). */
  int min_cc;
  const char *needs;
  /* 1: the code also needs the architecture-specific features of min_cc's
   * architecture exactly (wgmma and setmaxnreg: sm_90a), so it is
   * compiled for that target ("sm_90a", tn_arch.features) and excluded
   * everywhere else, later architectures too. */
  int arch_features;
  /* 1: grid[0] is the most blocks; the launch takes as many whole
   * clusters of `cluster` blocks as the GPU runs at once, asked of the
   * driver's occupancy calculator (a kernel that walks its work with the
   * grid's stride, sized for any GPU of a fleet) */
  int fit_grid;
  int cluster; /* blocks per cluster (__cluster_dims__); 0 or 1: none */
  /* Bytes of device memory per block of the grid launched that the
   * kernel takes as its last parameter (a pointer), zero before its first
   * launch; the kernel leaves it so for the next (0: no such parameter). */
  long long workspace_block;
  /* 1: every block of the grid must run at once (blocks wait for others
   * of the launch); a GPU that holds fewer fails the candidate with the
   * counts, rather than hang */
  int co_resident;
} tn_launch;

/* Preprocessor definitions for the rendered source.  A define that does
 * not fit (more than TN_MAX_DEFINES, or a name or value of 48 characters
 * or more) is not added, and sets overflow: the renderer refuses such a
 * list rather than compile a template with macros missing. */
#define TN_MAX_DEFINES 64
typedef struct {
  int n;
  int overflow;
  char name[TN_MAX_DEFINES][48];
  char value[TN_MAX_DEFINES][48];
} tn_defines;
void tn_defines_add(tn_defines *d, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Kernel arguments, packed for cuLaunchKernel.  An argument that does not
 * fit (more than TN_MAX_ARGS, or over 16 bytes) is not added and sets
 * overflow: the launch is then refused, since cuLaunchKernel would read
 * as many pointers as the kernel has parameters, past the array. */
#define TN_MAX_ARGS 32
typedef struct {
  int n;
  int overflow;
  void *ptrs[TN_MAX_ARGS];
  unsigned char storage[TN_MAX_ARGS][16];
  /* Tensor maps (CUtensorMap: 128 bytes, 64-byte aligned, as the driver
   * wants the map it encodes), passed by value as __grid_constant__
   * parameters; ptrs[] of such an argument points here. */
  int n_maps;
  _Alignas(64) unsigned char maps[TN_MAX_TMAPS][128];
} tn_args;
void tn_args_add(tn_args *a, const void *value, size_t size);
/* Adds an argument of the next free map slot and returns that slot for
 * the caller to encode into (NULL, with overflow set, if none is left).
 * The slot lives in a, so a must not move before the launch. */
void *tn_args_add_map(tn_args *a);

typedef enum {
  TN_BUF_IN,   /* filled with fresh random values in [-1, 1), exact in
                  the buffer's element type (tn_random_elem) */
  TN_BUF_OUT,  /* poisoned (NaN) before each check, read back */
  TN_BUF_INOUT /* random like an input, read back like an output; the
                  values it started with are kept for verify() */
} tn_buffer_role;

/* What an input holds.  Zero is the shipped families' inputs: element i
 * is tn_random_elem(seed, i, elem), which a host check can recompute. */
typedef enum {
  TN_INIT_SEEDED = 0,
  TN_INIT_UNIFORM,  /* uniform in [a, b]: integers inclusive, floating
                       values [a, b) (from the seed too) */
  TN_INIT_ZEROS,
  TN_INIT_CONSTANT, /* a */
  TN_INIT_RAMP      /* element i: a + i * b */
} tn_init_kind;

typedef struct {
  tn_init_kind kind;
  double a, b;
} tn_buffer_init;

typedef struct {
  const char *name;
  size_t bytes;        /* a whole number of elements */
  tn_buffer_role role;
  tn_elem_type elem;   /* what the generator writes and the poison is */
  tn_buffer_init init; /* IN and INOUT */
} tn_buffer_desc;
#define TN_MAX_BUFFERS 8

/* A __constant__ symbol of a module, which the host fills. */
typedef struct {
  const char *name;
  size_t bytes;
  tn_elem_type elem;
  tn_buffer_init init;
} tn_constant_desc;
#define TN_MAX_CONSTANTS 8

/* What a family's verify() can use in the worker: the inputs as uploaded,
 * the outputs as read back (host[]), the values INOUT buffers started with
 * (host_init[], NULL for the others), the device copies of the inputs as
 * uploaded (dev[]; outputs there hold the result), and a way to run the
 * family's reference kernels (compiled from reference_source for the
 * device).  Memory from alloc() is freed after verify() returns. */
typedef struct tn_verify_env tn_verify_env;
struct tn_verify_env {
  const struct tn_family *family;
  const tn_problem *problem;
  int n_buffers;
  const tn_buffer_desc *descs;
  void *host[TN_MAX_BUFFERS];
  const void *host_init[TN_MAX_BUFFERS];
  /* with a fixed-inputs family: the reference's outputs on these inputs
   * (on the device, made once per problem), 0 for the inputs */
  tn_devptr expected[TN_MAX_BUFFERS];
  tn_devptr dev[TN_MAX_BUFFERS];
  tn_devptr dev_init[TN_MAX_BUFFERS]; /* INOUT buffers' starting values */
  /* seed of each IN and INOUT buffer: element i started as
   * tn_random_elem(seed[b], i, descs[b].elem).  For verify_device,
   * host[] and host_init[] are NULL: a host check computes the values it
   * needs. */
  unsigned long long seed[TN_MAX_BUFFERS];
  /* Runs kernel `name` of the reference module. Returns 0 or -1. */
  int (*launch)(tn_verify_env *env, const char *name, const unsigned grid[3],
                const unsigned block[3], tn_args *args);
  int (*alloc)(tn_verify_env *env, size_t bytes, tn_devptr *out);
  /* alloc for a faster way that has a fallback: 1 when the device is out
   * of memory (nothing recorded as the job's failure), else as alloc. */
  int (*alloc_spare)(tn_verify_env *env, size_t bytes, tn_devptr *out);
  /* fp64 row-major c = op(a) * op(b) (op(a) m x k, op(b) k x n) by the
   * GPU's BLAS (cuBLAS DGEMM), done when it returns.  0; 1 when there is
   * no BLAS (the family falls back on its own kernels); -1 failed. */
  int (*dgemm)(tn_verify_env *env, int trans_a, int trans_b, int m, int n,
               int k, tn_devptr a, tn_devptr b, tn_devptr c, char *why,
               size_t why_len);
  int (*download)(tn_verify_env *env, void *dst, tn_devptr src, size_t bytes);
  /* Compares count elements of type t at got and want on the GPU:
   * floating values beyond atol + rtol |want| (NaN too), integers in any
   * bit.  0 with how many differ and the first's index, or -1. */
  int (*compare)(tn_verify_env *env, tn_devptr got, tn_devptr want,
                 size_t count, tn_elem_type t, double atol, double rtol,
                 unsigned long long *bad, unsigned long long *first);
  void *impl;
};

/* What a family's baseline can use: the device buffers of the problem
 * (one set; the caller rotates sets), the stream to enqueue on, and the
 * library calls the GPU layer enqueues on it.  A family names no library:
 * the worker fills these. */
typedef struct tn_baseline_env tn_baseline_env;
struct tn_baseline_env {
  const struct tn_family *family;
  const tn_problem *problem;
  const tn_buffer_desc *descs;
  tn_devptr dev[TN_MAX_BUFFERS];
  void *stream; /* CUstream */
  /* A device-to-device copy.  0, or -1 with why. */
  int (*copy)(tn_baseline_env *env, tn_devptr dst, tn_devptr src,
              size_t bytes, char *why, size_t n);
  /* Row-major C = alpha op(A) op(B) + beta C by the GPU's BLAS (cuBLAS:
   * SGEMM with TF32 off for fp32 A, B and C; GemmEx for bf16 or fp16 A
   * and B, C of fp32 or their type, fp32 products and sums): op(A) is
   * m x k (A stored k x m if trans_a), op(B) k x n, C m x n; with beta 0,
   * C is not read.  0, or -1 with why (the library missing: the baseline
   * is reported unavailable). */
  int (*gemm)(tn_baseline_env *env, tn_elem_type in, tn_elem_type out,
              int trans_a, int trans_b, int m, int n, int k, float alpha,
              tn_devptr a, tn_devptr b, float beta, tn_devptr c, char *why,
              size_t why_len);
  /* Row-major C = alpha scale_a scale_b A B^T + beta C with fp8 A (m x k)
   * and B (n x k), both K-major, of type in (e4m3 or e5m2), C of out
   * (bf16 or fp32), the scales fp32 in device memory (scale_a, scale_b),
   * fp32 accumulation promoted out of the tensor cores unless fast_accum
   * (cuBLASLt's fp8 matmul).  0, or -1 with why (as gemm). */
  int (*gemm_fp8)(tn_baseline_env *env, tn_elem_type in, tn_elem_type out,
                  int m, int n, int k, float alpha, tn_devptr a, tn_devptr b,
                  float beta, tn_devptr c, tn_devptr scale_a,
                  tn_devptr scale_b, int fast_accum, char *why,
                  size_t why_len);
  void *impl;
};

/* Every callback gets the family it belongs to: a family described by a
 * config rather than compiled in (family/user.h) keeps its description
 * in impl. */
typedef struct tn_family {
  const char *name;   /* "transpose" */
  const char *kernel; /* entry point in the template */
  const tn_param_desc *params;
  int n_params;
  int n_dims;              /* entries of each problem size */
  const char *dim_names;   /* "rows, cols" */
  const tn_option_desc *options; /* the problem's other keys, or NULL */
  int n_options;
  /* Bit i: option i was added after results files were written.  A file
   * without it means its default, and at its default it is left out of
   * the files and texts that name a problem, so that those of older
   * files match (as tn_param_desc.added does for a parameter). */
  unsigned options_added;

  /* Completes layout parameters of p (resolves "xor" against the tile
   * width) and checks the family's rules.  Returns 0 if p is a valid
   * point, else 1 with the reason in why. */
  int (*prepare)(const struct tn_family *f, tn_params *p,
                 const tn_problem *prob, char *why, size_t n);
  void (*launch)(const struct tn_family *f, const tn_params *p,
                 const tn_problem *prob, tn_launch *out);
  /* Macros for the template beyond TN_<PARAM> of each int parameter and
   * TN_<PARAM>_B/_M/_S of each swizzle (those the renderer adds). */
  void (*defines)(const struct tn_family *f, const tn_params *p,
                  const tn_problem *prob, tn_defines *d);
  /* A problem of one block of p like base (its options kept), for the
   * tests that trace one block against the plan: the tile exactly, or
   * (ragged) cut short in every dimension so that the edge paths run.
   * Returns 0; 1 with why when no launch of p is one block (a cluster of
   * two blocks: the drift tests skip the point, saying so); or -1 with
   * why. */
  int (*one_block)(const struct tn_family *f, const tn_params *p,
                   const tn_problem *base, int ragged, tn_problem *out,
                   char *why, size_t n);
  /* Emits every shared-memory warp access of one launch on prob. */
  void (*plan)(const struct tn_family *f, const tn_params *p,
               const tn_problem *prob, tn_access_sink *sink);
  /* How long p takes NVRTC, relative to the family's other points (the
   * code its unrolled loops make): the compiles go longest first, so that
   * no long one is left for the end.  NULL: all alike. */
  double (*compile_weight)(const struct tn_family *f, const tn_params *p);
  /* What the time model needs of one launch of p on prob beyond the
   * plan (model/time.h): DRAM bytes, flops, and the instructions that are
   * not shared-memory accesses, the layout's own (swizzle arithmetic)
   * included; a register estimate for before the compile.  NULL: the
   * family's work() as DRAM bytes (a GB/s unit) or fp32 flops. */
  void (*estimate)(const struct tn_family *f, const tn_params *p,
                   const tn_problem *prob, tn_time_work *out);

  /* Worker side. */
  /* Describes prob's buffers into out (zeroed by the caller, so a field
   * left alone is 0: elem fp32); returns how many. */
  int (*buffers)(const struct tn_family *f, const tn_problem *prob,
                 tn_buffer_desc *out);
  void (*args)(const struct tn_family *f, const tn_params *p,
               const tn_problem *prob, const tn_devptr *bufs, tn_args *out);
  /* The __constant__ symbols p's module holds, filled before each launch
   * (NULL or 0: none). */
  int (*constants)(const struct tn_family *f, const tn_params *p,
                   const tn_problem *prob, tn_constant_desc *out);
  /* The tensor maps (TMA descriptors) p's kernel takes, into out (at most
   * TN_MAX_TMAPS); returns how many (NULL or 0: none).  They are the
   * kernel's first parameters, in this order, before args()'s; the GPU
   * side encodes each against the buffer it names in the set launched
   * (gpu/tmap.h).  prepare() checks them with tn_tmap_check. */
  int (*tensor_maps)(const struct tn_family *f, const tn_params *p,
                     const tn_problem *prob, tn_tmap_desc *out);
  const char *reference_source; /* NULL or CUDA source of reference kernels */
  /* Compares the output with the reference; 0 if right, else 1 with why.
   * -1 if the check itself could not run. */
  int (*verify)(tn_verify_env *env, char *why, size_t n);
  /* The same check without the buffers on the host (NULL: verify, with
   * everything read back): compares on the GPU with the reference
   * kernels and reads back only what it reports. */
  int (*verify_device)(tn_verify_env *env, char *why, size_t n);
  /* bytes moved, or flops */
  double (*work)(const struct tn_family *f, const tn_problem *prob);
  const char *unit;  /* of work per second, "GB/s" */
  double unit_scale; /* work per second per unit, 1e9 */
  /* 1: the family's kernels need the architecture-specific target of the
   * GPU's architecture (tn_launch.arch_features): a run on a GPU, or with
   * --arch sm_XX, compiles for sm_XXa (base/arch.h) and its results and
   * headers name that target. */
  int arch_features;
  const char *const *baselines;           /* first one is the reference */
  int n_baselines;
  /* Enqueues one run of baseline `name` on env->stream; the caller times
   * it like a candidate.  0, or -1 with why (e.g. the library is missing:
   * the baseline is then reported as unavailable). */
  int (*baseline)(const char *name, tn_baseline_env *env, char *why,
                  size_t n);

  /* Which sizes are worth entries of their own, and how far apart two
   * are (family/size.h): the keys a per-size table is looked up by.
   * NULL: the dimensions themselves. */
  const tn_size_key *size_keys;
  int n_size_keys;
  /* 1: every check of a problem gets the same inputs, so that the
   * outputs of a reference kernel, run once per problem, serve every
   * check (env->expected); 0: fresh values for every check. */
  int fixed_inputs;
  /* 1: each parameter reaches the source as `#define NAME value` under
   * the name the config gives it; 0: as TN_<NAME>. */
  int plain_macros;
  const void *impl; /* NULL for the families compiled in */
  /* The parameters its model (plan, launch) and time model (estimate)
   * do not read, bit k for params[k] (0: it reads every one): the points
   * of a space that differ in these alone are priced once
   * (pipeline/space.c). */
  unsigned model_ignores;
  /* Checks one problem (its size and options) beyond each dimension's
   * range: 0, or 1 with why (no file or line: the caller names where
   * the problem came from, a config's size or a results file's entry).
   * NULL: every size of positive dimensions is valid. */
  int (*check_problem)(const struct tn_family *f, const tn_problem *prob,
                       char *why, size_t n);
} tn_family;

/* f's size keys, complete (its own, or one per dimension). */
static inline void tn_family_size_keys(const tn_family *f, tn_size_keys *out)
{
  tn_size_keys_make(f->size_keys, f->n_size_keys, f->n_dims, f->dim_names,
                    out);
}

/* The 64 random bits of element i of a buffer filled from seed: a
 * counter through splitmix64 (the generators on the GPU compute the
 * same). */
static inline unsigned long long tn_random_u64(unsigned long long seed,
                                              unsigned long long i)
{
  unsigned long long z = seed + i * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Their top 24 bits: what the shipped families' inputs are made of. */
static inline unsigned long long tn_random_bits(unsigned long long seed,
                                               unsigned long long i)
{
  return tn_random_u64(seed, i) >> 40;
}

/* Element i of an fp32 buffer filled from seed: uniform in [-1, 1) on a
 * grid of 2^-23, 24 bits of mantissa, so every value is exact in fp32.
 * The worker's generator kernel (gpu/inputs.c) computes the same values. */
static inline float tn_random_value(unsigned long long seed,
                                    unsigned long long i)
{
  return (float)((double)tn_random_bits(seed, i) * (1.0 / 8388608.0) - 1.0);
}

/* Element i of a buffer of type t filled from seed, exactly as the
 * generator writes it, so that a host check can recompute any input:
 *   F32   tn_random_value(seed, i);
 *   BF16  that float with its bit pattern masked by 0xffff0000 (rounded
 *         toward zero to bf16's 8 bits of mantissa, so exact in bf16);
 *   F16   ((u >> 13) - 1024) / 1024 with u = tn_random_bits(seed, i):
 *         the multiples of 2^-10 in [-1, 1), uniform, exact in fp16
 *         (masking fp32's values as for bf16 would not do: fp16's
 *         exponent ends at 2^-24, and values near 0 go below it);
 *   E4M3, E5M2  ((5 u) >> 24) - 2) / 8: 0, +-1/8, +-1/4, uniform, exact
 *         in both; so small that a GEMM's sums of their products, on a
 *         grid of 2^-6, stay exact through the fp8 tensor cores' 13-bit
 *         accumulation for K up to 2^12 (family/gemm_ref.h says why).
 * Other values of t are read as F32. */
static inline double tn_random_elem(unsigned long long seed,
                                    unsigned long long i, tn_elem_type t)
{
  if (t == TN_ELEM_BF16) {
    union {
      float f;
      unsigned u;
    } v;
    v.f = tn_random_value(seed, i);
    v.u &= 0xffff0000u;
    return v.f;
  }
  if (t == TN_ELEM_F16)
    return ((long long)(tn_random_bits(seed, i) >> 13) - 1024) / 1024.0;
  if (t == TN_ELEM_E4M3 || t == TN_ELEM_E5M2)
    return ((long long)((tn_random_bits(seed, i) * 5) >> 24) - 2) / 8.0;
  return tn_random_value(seed, i);
}

/* count elements of type t at dst as init says, from seed: on the host,
 * the values the GPU's generators write (gpu/inputs.h), for what the host
 * fills itself (__constant__ symbols). */
void tn_init_fill_host(const tn_buffer_init *init, tn_elem_type t,
                       unsigned long long seed, void *dst, size_t count);

/* The seed of buffer b of a job whose inputs come from seed. */
static inline unsigned long long tn_buffer_seed(unsigned long long seed,
                                                int b)
{
  return seed + 0x100000001ULL * (unsigned)(b + 1);
}

/* The family called name, or NULL: the families compiled in, then those
 * registered. */
const tn_family *tn_family_find(const char *name);
/* Registers a family made at run time (a described kernel in a worker)
 * for tn_family_find; f must outlive its use.  A name registered again is
 * replaced.  0, or -1 when TN_MAX_REGISTERED are there. */
#define TN_MAX_REGISTERED 8
int tn_family_register(const tn_family *f);
/* Writes the known names, comma-separated. */
void tn_family_list(char *out, size_t n);

/* Every macro the rendered source of p on prob defines, in order:
 * TN_<NAME> of each int parameter, TN_<NAME>_B/_M/_S of each swizzle,
 * then the family's own (f->defines).  The one list: the renderer
 * (pipeline/render.h) writes it before the template, and the headers of
 * tuner/emit/ give it to a user's build. */
void tn_family_macros(const tn_family *f, const tn_params *p,
                      const tn_problem *prob, tn_defines *out);

/* Model cost of one launch of p on prob.  Returns 0, or -1 with why if the
 * plan contains a malformed access (a bug in the family). */
int tn_family_model(const tn_family *f, const tn_params *p,
                    const tn_problem *prob, const tn_arch *arch,
                    tn_model_cost *cost, char *why, size_t n);

/* Predicted time of one launch of p on prob (its model cost given) for
 * arch and profile; regs: the compiled registers, or 0 for the family's
 * estimate. */
void tn_family_time(const tn_family *f, const tn_params *p,
                    const tn_problem *prob, const tn_arch *arch,
                    const tn_profile *profile, const tn_model_cost *cost,
                    int regs, tn_time_pred *out);

/* Bytes of shared memory a launch of p uses. */
int tn_launch_smem(const tn_launch *l);

/* Rate of total_ms over the problems, in the family's unit (0 if
 * total_ms is not positive). */
double tn_family_rate(const tn_family *f, const tn_problem *probs, int n,
                      double total_ms);

/* ---- Problem options, driven by the family's table. ---- */

/* Index of option name of f, or -1. */
int tn_problem_option_index(const tn_family *f, const char *name);
/* Index of name among choice option d's names, or -1. */
int tn_option_choice_index(const tn_option_desc *d, const char *name);
/* The name a choice option's value v stands for, or NULL if v is not
 * one of its indices. */
const char *tn_option_choice_name(const tn_option_desc *d, double v);
/* d's names as "a, b, c", for messages. */
void tn_option_choices_text(const tn_option_desc *d, char *out, size_t n);
/* The value of choice option d written as text (NULL: the config or the
 * JSON had no string there), one reading and one message for both.
 * Returns 0 with the index in *out, or -1 with "'text' is not one of:
 * a, b" or "expected a string, one of: a, b" in why. */
int tn_option_choice_parse(const tn_option_desc *d, const char *text,
                           double *out, char *why, size_t n);
/* A problem of f with every option at its default and no size. */
void tn_problem_defaults(const tn_family *f, tn_problem *prob);
/* 1 if a and b are the same problem of f (size and options). */
int tn_problem_equal(const tn_family *f, const tn_problem *a,
                     const tn_problem *b);
/* 1 if option i of f is at its default and was added after results
 * files were written (tn_family.options_added): left out of them. */
int tn_option_left_out(const tn_family *f, const tn_problem *prob, int i);
/* Adds prob's options to the JSON object o, each as its kind (a choice
 * as its name; null if its value is not one, a bug the reader reports);
 * an option added later (tn_family.options_added) only when it is not
 * at its default. */
void tn_problem_options_json(const tn_family *f, const tn_problem *prob,
                             json_t *o);
/* A point's parameters as a JSON object, each under its name: an integer,
 * or a swizzle's name (the form results files and `tuner plan` share). */
json_t *tn_params_json(const tn_family *f, const tn_params *p);
/* Reads prob's options from JSON object o: every option must be there
 * (one added later may be missing: its default), of its kind and in
 * range (a choice: a string among its names).
 * Returns 0, or -1 with the offending key and what was expected in why. */
int tn_problem_options_from_json(const tn_family *f, json_t *o,
                                 tn_problem *prob, char *why, size_t n);

#endif

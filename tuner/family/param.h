/* param.h -- parameters, their values, problems.
 *
 * A family declares its parameters (tn_param_desc); a config gives a list
 * of values for some of them (tn_param_values); a candidate holds one value
 * of each (tn_params). */
#ifndef TN_PARAM_H
#define TN_PARAM_H

#include <stddef.h>

#include "family/elem.h"

#define TN_MAX_PARAMS 24
#define TN_MAX_VALUES 1024 /* a range of a parameter may list many */
#define TN_MAX_DIMS 4
#define TN_MAX_SIZES 64
#define TN_MAX_CONSTRAINTS 32
#define TN_NAME_LEN 32
#define TN_REASON_LEN 1024

typedef enum { TN_PARAM_INT, TN_PARAM_SWIZZLE } tn_param_kind;

/* Swizzle choices.  "xor" is relative to the tile it is applied to and is
 * resolved by the family (tn_swizzle_resolve); the others are absolute. */
typedef enum {
  TN_SWZ_NONE,
  TN_SWZ_XOR,   /* column ^= row within the tile's first 32 columns */
  TN_SWZ_SW32,  /* Hopper 32-byte swizzle: Swizzle<1, 4, 3> on bytes */
  TN_SWZ_SW64,  /* Hopper 64-byte swizzle: Swizzle<2, 4, 3> on bytes */
  TN_SWZ_SW128, /* Hopper 128-byte swizzle: Swizzle<3, 4, 3> on bytes */
  TN_SWZ_CUTE   /* explicit "cute(B,M,S)" on element offsets */
} tn_swizzle_kind;

typedef struct {
  tn_swizzle_kind kind;
  int b, m, s; /* Swizzle<b, m, s> on element offsets, once resolved */
} tn_swizzle;

typedef struct {
  const char *name; /* config key; macro TN_<NAME> in the rendered source */
  tn_param_kind kind;
  int is_layout;     /* a shared-memory layout choice (pad, swizzle) */
  long long min, max; /* valid range of an int parameter */
  long long def;      /* value when the config does not list it */
  const char *help;
  /* Last, so that the tables of other parameters stay as they are: a
   * parameter added after results files were written (an int).  A file
   * without it means its default, and at its default it is left out of
   * the parameters' text, so that the texts of those files still match. */
  int added;
} tn_param_desc;

typedef struct {
  long long i;   /* an int parameter's value */
  tn_swizzle sw; /* a swizzle parameter's value */
} tn_value;

/* Values of every parameter of a family, in its declaration order. */
typedef struct {
  tn_value v[TN_MAX_PARAMS];
} tn_params;

typedef struct {
  int n_dims;
  long long dims[TN_MAX_DIMS];
} tn_size;

/* A problem option a family declares beside the size (GEMM's trans_a,
 * alpha, ...): its key in the config's problem group and in the results
 * JSON, its kind, default and range.  A boolean is stored as 0 or 1; a
 * choice (a string in the config and the JSON, one of `choices`) as the
 * index of its name, so that problems compare and copy as numbers. */
#define TN_MAX_OPTIONS 12
typedef enum { TN_OPT_BOOL, TN_OPT_NUMBER, TN_OPT_CHOICE } tn_option_kind;

typedef struct {
  const char *name;
  tn_option_kind kind;
  double def;      /* when the config leaves it out (a choice's index) */
  double min, max; /* range of a number */
  const char *help;
  /* Last, so that the tables of families without a choice stay as they
   * are: a choice's names, n_choices of them. */
  const char *const *choices;
  int n_choices;
} tn_option_desc;

/* One problem: a size and the family's problem options, by the index of
 * the family's option table. */
typedef struct {
  tn_size size;
  double opt[TN_MAX_OPTIONS];
} tn_problem;

/* The values a config lists for one parameter. */
typedef struct {
  int n;
  tn_value values[TN_MAX_VALUES];
  int line; /* where the config lists them, for messages */
} tn_param_values;

const char *tn_swizzle_name(const tn_swizzle *sw, char *buf, size_t n);
/* The copy engine's (TMA's) swizzle in bytes of a swizzle (0: none), or
 * -1 for one it does not have (xor, cute). */
int tn_swizzle_tma_span(const tn_swizzle *sw);
/* Parses "none", "xor", "sw32", "sw64", "sw128" or "cute(B,M,S)".
 * Returns 0, or -1 with a message in why. */
int tn_swizzle_parse(const char *text, tn_swizzle *sw, char *why, size_t n);
/* Resolves a swizzle for a tile `width` elements wide of `elem_bytes`-byte
 * elements into b, m, s.  Returns 0, or -1 with why if it cannot apply. */
int tn_swizzle_resolve(tn_swizzle *sw, int width, int elem_bytes, char *why,
                       size_t n);

/* Formats a size as "8192x8192". */
void tn_size_format(const tn_size *s, char *out, size_t n);
/* Formats params as "tile=32 rows_per_thread=4 pad=1 swizzle=xor". */
void tn_params_format(const tn_param_desc *descs, int n_params,
                      const tn_params *p, char *out, size_t n);
/* Index of the parameter named name, or -1. */
int tn_param_index(const tn_param_desc *descs, int n_params,
                   const char *name);

/* The size arithmetic the families' rules share: x a power of two, and
 * the smallest k with 2^k >= x (log2 of a power of two). */
static inline int tn_is_pow2(long long x)
{
  return x > 0 && (x & (x - 1)) == 0;
}

static inline int tn_log2_ceil(long long x)
{
  int k = 0;
  while ((1LL << k) < x)
    k++;
  return k;
}

#endif

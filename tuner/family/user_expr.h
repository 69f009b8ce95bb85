/* user_expr.h -- the expressions of a kernel described by a config.
 *
 * A user's kernel is described by expressions over its parameters, its
 * problem's dimensions and, in an access plan, each lane's indices.  Each
 * name is a slot of one array of values (tn_uscope), fixed when the
 * expression is compiled, so that a space of 100,000 points evaluates
 * them without looking names up. */
#ifndef TN_USER_EXPR_H
#define TN_USER_EXPR_H

#include <stddef.h>

#include "family/param.h"

#define TN_UEXPR_LEN 256

/* The slots every expression of a kernel may read. */
enum {
  TN_USLOT_PARAM0 = 0,                           /* the parameters */
  TN_USLOT_DIM0 = TN_USLOT_PARAM0 + TN_MAX_PARAMS, /* the dimensions */
  TN_USLOT_THREADS = TN_USLOT_DIM0 + TN_MAX_DIMS, /* of a block */
  TN_USLOT_SMEM,   /* bytes of shared memory a block uses */
  TN_USLOT_BLOCK0, /* the launch's block, x, y, z */
  /* an access plan's, per lane */
  TN_USLOT_LANE = TN_USLOT_BLOCK0 + 3,
  TN_USLOT_WARP,
  TN_USLOT_TID,
  TN_USLOT_TX,
  TN_USLOT_TY,
  TN_USLOT_TZ,
  TN_USLOT_LOOP0, /* an access's loop indices */
  TN_USLOT_COUNT = TN_USLOT_LOOP0 + 4
};
#define TN_USER_MAX_LOOPS (TN_USLOT_COUNT - TN_USLOT_LOOP0)

/* The names in scope: name[i] is slot i's, or empty. */
typedef struct {
  char name[TN_USLOT_COUNT][TN_NAME_LEN];
} tn_uscope;

/* One expression: its text, where it was written, its compiled form. */
typedef struct {
  char text[TN_UEXPR_LEN];
  char what[64]; /* "launch.grid[0]", for messages */
  int line;      /* in the config; 0 when the tuner made it */
  void *code;    /* the compiled form, or NULL when there is none */
} tn_uexpr;

/* Compiles e->text against scope (names outside it are errors).
 * Returns 0, or -1 with why ("unknown name 'x'" and its column). */
int tn_uexpr_compile(tn_uexpr *e, const tn_uscope *scope, char *why,
                     size_t n);

/* Evaluates e on slots.  Returns 0, or -1 with "WHAT \"TEXT\": problem"
 * in why (a division by zero, an overflow). */
int tn_uexpr_eval(const tn_uexpr *e, const long long *slots, long long *out,
                  char *why, size_t n);

/* 1 if e reads slot. */
int tn_uexpr_uses(const tn_uexpr *e, int slot);

/* 1 if e was given (its text is not empty). */
static inline int tn_uexpr_set(const tn_uexpr *e)
{
  return e->text[0] != '\0';
}

/* Sets e to text (for what the tuner fills in itself). */
void tn_uexpr_init(tn_uexpr *e, const char *what, const char *text);

void tn_uexpr_free(tn_uexpr *e);

/* The slot called name in scope, or -1. */
int tn_uscope_find(const tn_uscope *scope, const char *name);

#endif

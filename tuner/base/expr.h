/* expr.h -- integer expressions in configs: constraints, and the launch
 * shapes, sizes, arguments and shared-memory plans of a user's kernel.
 *
 * Grammar, lowest precedence first (C's precedence):
 *   c ? a : b              right-associative
 *   ||   &&                short-circuit, as in C
 *   |   ^   &
 *   == !=                  do not chain: a == b == c is an error
 *   < <= > >=              do not chain: 0 < x < 9 is an error
 *   << >>
 *   + -
 *   * / %                  / and % truncate toward 0, as in C
 *   unary - ! ~
 * operands: decimal or 0x hex integers, names, parentheses, and the
 * functions min(a, b, ...), max(a, b, ...), ceil_div(a, b), abs(a),
 * log2(a), is_pow2(a), ceil(a / b) and floor(a / b).
 *
 * Values are 64-bit signed.  Overflow, division by zero, a shift count out
 * of range (<< takes 0..62, >> 0..63) and log2 of a value <= 0 are errors,
 * never undefined behaviour.  Of the operands of ?: && ||, only the side
 * evaluated can fail.  Errors name the column of the text. */
#ifndef TN_EXPR_H
#define TN_EXPR_H

#include <stddef.h>

/* Resolves an identifier: returns 0 and sets *value, or -1 if unknown. */
typedef int (*tn_expr_lookup)(void *ctx, const char *name, long long *value);

/* Evaluates text.  Returns 0 and sets *out, or -1 with a message naming
 * the column of the problem in why.  Syntax errors and unknown names come
 * before arithmetic errors, wherever they are in the text. */
int tn_expr_eval(const char *text, tn_expr_lookup lookup, void *ctx,
                 long long *out, char *why, size_t why_len);

/* Checks the syntax and the names of text, whatever values they take:
 * arithmetic errors such as division by zero are not reported. */
int tn_expr_check(const char *text, tn_expr_lookup lookup, void *ctx,
                  char *why, size_t why_len);

/* The compiled form, for an expression evaluated many times over changing
 * values.  Names are bound to slots when compiling: the resolver returns a
 * slot >= 0 for a name, or -1 if the name is unknown; a run reads the
 * name's value from slots[slot]. */
typedef struct tn_expr tn_expr;
typedef int (*tn_expr_resolve)(void *ctx, const char *name);

/* Compiles text.  Returns 0 and sets *out (free it with tn_expr_free), or
 * -1 with why (syntax errors, unknown names, out of memory). */
int tn_expr_compile(const char *text, tn_expr_resolve resolve, void *ctx,
                    tn_expr **out, char *why, size_t why_len);

/* Evaluates e over slots (every slot e uses must be there).  Returns 0
 * and sets *out, or -1 with why, naming the column of the operator that
 * failed.  Allocates nothing; e is only read, so threads may share it. */
int tn_expr_run(const tn_expr *e, const long long *slots, long long *out,
                char *why, size_t why_len);

/* 1 if e reads slot (on any side of ?: && ||), else 0. */
int tn_expr_uses(const tn_expr *e, int slot);

/* The slots e reads, in increasing order, each once: sets *slots (owned
 * by e) and returns how many.  A result depends on these values only. */
int tn_expr_slots(const tn_expr *e, const int **slots);

/* e with the slots that varying[slot] marks 0 (of n_slots; beyond, all
 * vary) fixed at their values in slots: what reads only those is
 * computed once, so that runs over changing values of the varying slots
 * do less.  A run of the result gives what a run of e gives, value or
 * error.  Returns it (free it with tn_expr_free), or NULL where it
 * cannot: a condition of ?: && || that reads a varying slot, a part over
 * fixed slots that fails (the run of e reports it), or no memory. */
tn_expr *tn_expr_specialize(const tn_expr *e, const long long *slots,
                            const unsigned char *varying, int n_slots);

/* Runs e for n lanes at once (n <= TN_EXPR_LANES), as n runs would:
 * slot s reads lanes[s][l] in lane l where s < n_lane_slots and
 * lanes[s] is not NULL, else slots[s].  out[l] gets lane l's value, and
 * bit l of *failed is set where lane l's run fails (tn_expr_run on that
 * lane says why).  Returns 0, or -1 when e cannot run so (a condition of
 * ?: && ||, whose lanes may go different ways, or deep code): run it
 * lane by lane then. */
#define TN_EXPR_LANES 32
int tn_expr_run_lanes(const tn_expr *e, const long long *slots,
                      const long long *const *lanes, int n_lane_slots,
                      int n, long long *out, unsigned *failed);

/* 1 and *value if e reads no slot and evaluates without error, else 0. */
int tn_expr_constant(const tn_expr *e, long long *value);

void tn_expr_free(tn_expr *e);

#endif

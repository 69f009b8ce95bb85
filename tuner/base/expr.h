/* expr.h -- integer expressions for constraints in configs.
 *
 * Grammar (C precedence):  || && (== != < <= > >=) (+ -) (* / %) unary(- !)
 * operands: decimal integers, identifiers, parentheses.  64-bit signed
 * arithmetic; overflow and division by zero are errors, not UB. */
#ifndef TN_EXPR_H
#define TN_EXPR_H

#include <stddef.h>

/* Resolves an identifier: returns 0 and sets *value, or -1 if unknown. */
typedef int (*tn_expr_lookup)(void *ctx, const char *name, long long *value);

/* Evaluates text.  Returns 0 and sets *out, or -1 with a message naming
 * the column of the problem in why. */
int tn_expr_eval(const char *text, tn_expr_lookup lookup, void *ctx,
                 long long *out, char *why, size_t why_len);

/* Checks the syntax and the names of text, whatever values they take:
 * arithmetic errors such as division by zero are not reported. */
int tn_expr_check(const char *text, tn_expr_lookup lookup, void *ctx,
                  char *why, size_t why_len);

#endif

/* internal.h -- what the files of tuner/emit/ share: an in-memory text
 * and the sets of #define lines every header is made of.  Not for use
 * outside tuner/emit/ (the public header is emit.h). */
#ifndef TN_EMIT_INTERNAL_H
#define TN_EMIT_INTERNAL_H

#include <stdio.h>

#include "emit/emit.h"

/* A growing text in memory (open_memstream).  NULL with err set. */
FILE *tn__emit_open(char **buf, size_t *len, tn_err *err);
/* Closes it; *text gets the buffer.  0, or TN_ETOOL (buffer freed). */
int tn__emit_close(FILE *o, char **buf, char **text, tn_err *err);
/* Writes text to path atomically, making its folder.  0 or an error. */
int tn__emit_write(const char *path, const char *text, tn_err *err);

/* The family's macros for p on prob beyond the parameters' (the tail of
 * tn_family_macros), into out; none when prob is NULL. */
void tn__emit_derived(const tn_family *f, const tn_params *p,
                      const tn_problem *prob, tn_defines *out);

/* #define PREFIX_PARAM value for every parameter of p (swizzles: _B, _M,
 * _S), then PREFIX_<DERIVED> value for every derived macro of d.  Either
 * may be NULL. */
void tn__emit_values(FILE *o, const tn_family *f, const tn_params *p,
                     const tn_defines *d, const char *prefix);
/* #define TO_X FROM_X for every parameter and derived macro of d. */
void tn__emit_aliases(FILE *o, const tn_family *f, const tn_defines *d,
                      const char *to, const char *from);
/* #define TN_... value: every macro the rendered template of p on prob
 * sees (tn_family_macros). */
void tn__emit_template_macros(FILE *o, const tn_family *f, const tn_params *p,
                              const tn_problem *prob);

/* ---- sizes.c ---- */

/* The family's dimensions as C names ("m", or with upper "M"). */
void tn__emit_dim_names(const tn_family *f, char names[][24], int upper);
/* The nearest-size rule (family/size.h) as C: id_size_distance(),
 * id_size_larger(), id_nearest_size(), guarded by TUNER_<M>_SIZE_RULE so
 * a job's headers define it once. */
void tn__emit_size_rule(FILE *o, const tn_family *f, const char *M,
                        const char *id);
/* A per-architecture header's table by size (arch: "SM_90"): nothing when
 * e has no sizes. */
void tn__emit_arch_sizes(FILE *o, const tn_header_entry *e, const char *M,
                         const char *id, const char *arch);

#endif

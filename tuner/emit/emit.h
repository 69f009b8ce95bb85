/* emit.h -- the C header of a run's winner, for C and CUDA code.
 *
 * results/<arch>/<name>.h defines, for every parameter, NAME_SM_XX_PARAM
 * (always) and NAME_PARAM (unless TUNER_ONLY_ARCH_NAMES is defined, so
 * several architectures' headers can be included together), swizzles as
 * their _B/_M/_S numbers, and says in a comment where the numbers came
 * from.  Written atomically. */
#ifndef TN_EMIT_H
#define TN_EMIT_H

#include "pipeline/tune.h"

/* Writes the header of run's best candidate to run->header_path.
 * Returns 0, or TN_ETOOL. */
int tn_emit_header(const tn_run *run, tn_err *err);

/* The header text (malloc'd) into *text.  Returns 0 or TN_ETOOL. */
int tn_emit_header_text(const tn_run *run, char **text, tn_err *err);

/* "TRANSPOSE" from "transpose", "SM_90" from "sm_90": upper case,
 * letters, digits and '_' only. */
void tn_emit_macro_name(char *out, size_t n, const char *in);

#endif

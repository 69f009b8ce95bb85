/* emit.h -- every header the tool writes, for C and CUDA code, with one
 * rule for the text that goes into them.
 *
 * It takes plain data (tn_header_entry, tn_dispatch): whoever chose a
 * configuration fills one (a run: pipeline/run_header.h; a prediction,
 * a merge: tuner/fleet/).
 *
 * <arch>/<name>.h, from a run, a prediction or a merge (one entry, one
 * writer), defines for every parameter NAME_SM_XX_PARAM (always) and
 * NAME_PARAM (unless TUNER_ONLY_ARCH_NAMES is defined, so several
 * architectures' headers can be included together), swizzles as their
 * _B/_M/_S numbers, NAME_SM_XX_MEASURED or NAME_SM_XX_PREDICTED, and the
 * family's derived macros (tn_family_macros beyond the parameters:
 * NAME_SM_XX_THREADS for TN_THREADS) for the tuned problem.
 *
 * It also holds the entry's table by size: the winner of each size the
 * job tuned as NAME_SM_XX_SIZE<I>_<DIM> and NAME_SM_XX_SIZE<I>_<PARAM>,
 * and name_sm_xx_nearest_size(dims...), the index of the nearest size by
 * the rule of family/size.h (written as C once per job, guarded).
 *
 * <name>_dispatch.h, from a merge, holds every architecture's entry and
 * picks one by __CUDA_ARCH__ at compile time (NAME_<PARAM>), with
 * TUNER_TEMPLATE_MACROS also the TN_<...> macros a shipped template reads,
 * and by device name and compute capability at run time (name_lookup()),
 * and with the problem's size as well (name_lookup_size(): the entry the
 * same chain finds, then its nearest size).
 *
 * Text from outside (device names, paths, reasons) goes into comments
 * through tn_emit_comment and into string literals through
 * tn_emit_cstring, and nowhere else.  Files are written atomically. */
#ifndef TN_EMIT_H
#define TN_EMIT_H

#include <stdio.h>

#include "base/util.h"
#include "family/family.h"
#include "family/param.h"

#define TN_HEADER_MAX_WHY 4

/* One row of an entry's table by size: a size and its winner. */
typedef struct {
  const tn_problem *problem; /* the size (and the problem's options) */
  const tn_params *params;   /* its winner */
  const char *params_text;   /* the parameters as text; NULL: formatted */
  const char *why;           /* how it was chosen, for a comment, or NULL */
} tn_header_size;

/* One configuration: a per-architecture header, or one entry of a
 * dispatch header. */
typedef struct {
  const tn_family *family;
  const char *name;        /* the job's name: <arch>/<name>.h */
  const char *arch;        /* "sm_80"; NULL: the portable default */
  const char *device_name; /* dispatch: an exact device's entry, else NULL */
  int predicted;           /* chosen by the model, not measured */
  const char *devices;     /* where it was measured, or NULL */
  const char *date;        /* ISO time of the (latest) run */
  const char *origin;      /* the config or results file, or NULL */
  const char *why[TN_HEADER_MAX_WHY]; /* how it was chosen; NULL ends */
  const char *params_text; /* the parameters as text; NULL: formatted */
  const tn_params *params;
  const tn_problem *problem; /* the tuned problem, for the family's derived
                                macros; NULL: none */
  int n_sizes;               /* the table by size (none: 0) */
  const tn_header_size *sizes;
} tn_header_entry;

/* The text (malloc'd) of <arch>/<name>.h for e.  Returns 0, TN_EINPUT if
 * the name cannot make C identifiers, or TN_ETOOL. */
int tn_emit_arch_header_text(const tn_header_entry *e, char **text,
                             tn_err *err);

/* Writes it to path (making its folder).  0, TN_EINPUT or TN_ETOOL. */
int tn_emit_arch_header(const tn_header_entry *e, const char *path,
                        tn_err *err);

/* What a dispatch header holds. */
struct tn_dispatch_features;
typedef struct {
  const tn_family *family;
  const char *name;          /* <name>_dispatch.h */
  const tn_problem *problem; /* the problem tuned (the template macros) */
  int n_results;             /* results files merged, for the comment */
  int n_archs;               /* tn_arch_at(0 .. n_archs - 1) */
  const tn_header_entry *const *archs; /* by tn_arch_at index; NULL: none */
  int n_devices;             /* exact devices, newest architecture first */
  const tn_header_entry *const *devices;
  const tn_header_entry *deflt; /* the portable default (arch NULL) */
  /* Another job's entries for architecture-specific targets ("sm_90a":
   * the wgmma family, whose code runs only there), or NULL.  In device
   * code, an entry of features->archs[] (n_archs of them, NULL: none)
   * whose arch is sm_XXa is chosen where __CUDA_ARCH_FEAT_SMXX_ALL is
   * defined (the code is compiled for that target), before this
   * dispatch's chain, which stays the configuration everywhere else: the
   * fallback (the mma.sync family on sm_90).  Each branch says whose it
   * is by NAME_FAMILY_<FAMILY> 1. */
  const struct tn_dispatch_features *features;
} tn_dispatch;

typedef struct tn_dispatch_features {
  const tn_family *family;
  const tn_problem *problem; /* its template macros; NULL: none */
  int n_archs;
  const tn_header_entry *const *archs;
} tn_dispatch_features;

/* The text (malloc'd) of <name>_dispatch.h.  0, TN_EINPUT or TN_ETOOL. */
int tn_emit_dispatch_text(const tn_dispatch *d, char **text, tn_err *err);

/* ---- names and text ---- */

/* "TRANSPOSE" from "transpose", "SM_90" from "sm_90": upper case,
 * letters, digits and '_' only. */
void tn_emit_macro_name(char *out, size_t n, const char *in);

/* NAME's macro prefix ("TRANSPOSE") and C identifier ("transpose").
 * Returns 0, or TN_EINPUT when name is no file name or does not start
 * with a letter ("give --name"). */
int tn_emit_idents(const char *name, char *macro, char *ident, size_t n,
                   tn_err *err);

/* Writes s into a C comment: no comment start or end, no trigraph, no
 * control character (a newline becomes a space). */
void tn_emit_comment(FILE *o, const char *s);

/* Writes s as a C string literal (quotes, escapes, no trigraphs). */
void tn_emit_cstring(FILE *o, const char *s);

#endif

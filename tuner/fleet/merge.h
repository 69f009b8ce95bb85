/* merge.h -- `tuner merge`: the results of many hosts and nights into
 * per-architecture headers and one dispatch header, with a history of
 * every night and a report of regressions.
 *
 *   tuner merge [--output DIR] [--name NAME] [--history DIR]
 *               [--fail-on-regression] RESULTS...
 *
 * RESULTS are results JSON files ("tuner-results/1", measured or
 * predicted) or folders searched for them.  The rules, in short (the
 * reasons are in docs/fleet.md):
 *
 * - A measurement always beats a prediction, whatever the dates.
 * - One "night" is the runs that started within TN_MERGE_NIGHT_S before
 *   the latest one considered; older nights count only when nothing newer
 *   measured the same architecture (or device).
 * - An architecture's entry comes from its most recent night.  One run:
 *   that run's own winner.  Several runs (devices that disagree, hosts,
 *   GPUs): among the configurations every one of them measured, the best
 *   weighted geometric mean of each run's fastest time over the
 *   configuration's time, each device model weighing the same whatever
 *   its number of runs.  That ranks exactly as the geometric mean of % of
 *   baseline.  Ties: chosen as best by more runs, then the parameter text.
 * - A device's entry (run-time lookup by name) follows the same rule over
 *   that device's runs.
 * - Without measurements, the most recent prediction.
 * - A configuration regresses when its median on a GPU (host, name,
 *   ordinal) is slower than on the same GPU's previous night by more than
 *   the noise: the largest of both runs' selection noise (at least the
 *   config's min_noise) and both measurements' relative interquartile
 *   ranges. */
#ifndef TN_MERGE_H
#define TN_MERGE_H

#include "family/family.h"
#include "family/param.h"
#include "base/util.h"

/* Runs that started this close to the latest are one night. */
#define TN_MERGE_NIGHT_S (12 * 3600)

/* Exit status of `tuner merge --fail-on-regression` after a regression
 * (the headers are written all the same). */
#define TN_EXIT_REGRESSION 4

/* `tuner merge ...`: argv[0] is "merge".  Returns the exit status: 0, 1 a
 * tool failed, 2 bad input (nothing written), 4 a regression with
 * --fail-on-regression. */
int tn_merge_main(int argc, char **argv);

/* One chosen configuration, for a per-architecture header. */
typedef struct {
  const tn_family *family;
  const char *name;       /* the job's name: results/<arch>/<name>.h */
  const char *arch;       /* "sm_80" */
  int predicted;          /* chosen by the model, not measured */
  const char *devices;    /* where it was measured, or NULL */
  const char *date;       /* ISO time of the (latest) run */
  const char *origin;     /* the config or results files, for the record */
  const char *why;        /* one line: how it was chosen */
  const tn_params *params;
} tn_merge_header;

/* The text (malloc'd) of results/<arch>/<name>.h for h: the macros of
 * tuner/emit/emit.c (NAME_SM_XX_PARAM always, NAME_PARAM unless
 * TUNER_ONLY_ARCH_NAMES; swizzles as _B/_M/_S) and NAME_SM_XX_MEASURED or
 * NAME_SM_XX_PREDICTED.  Returns 0, TN_EINPUT if name is not a C
 * identifier, or TN_ETOOL. */
int tn_merge_arch_header_text(const tn_merge_header *h, char **text,
                              tn_err *err);

#endif

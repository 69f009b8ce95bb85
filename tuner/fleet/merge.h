/* merge.h -- `tuner merge`: the results of many hosts and nights into
 * per-architecture headers and one dispatch header, with a history of
 * every night and a report of regressions.
 *
 *   tuner merge [--output DIR] [--name NAME] [--history DIR]
 *               [--fail-on-regression] [--features RESULTS]...
 *               [--now TIME] RESULTS...
 *
 * RESULTS are results JSON files ("tuner-results/1", measured or
 * predicted) or folders searched for them.  The rules, in short (the
 * reasons are in docs/fleet.md):
 *
 * - A run that says it started more than TN_MERGE_SKEW_S after now (the
 *   clock, or --now) is refused as an input and left out of the history:
 *   a host's clock that runs ahead cannot make its run the latest night.
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
 * - Headers stay put (with --history): a row's winner replaces the one
 *   recorded for the previous night (DIR/<name>.winners.jsonl) only when
 *   it beats it beyond the selection's noise, both measured on this
 *   night; every row's winner, switch and margin is recorded there.
 * - Without measurements, the most recent prediction.
 * - By size: every entry's table by size (a job of several sizes) is
 *   chosen size by size by the rules above, on each run's winner and
 *   times at that size; a file without best_by_size counts its best as
 *   every size's winner.
 * - A configuration regresses when its median on a GPU (host, name,
 *   ordinal) is slower than on the same GPU's previous night by more than
 *   the noise: the largest of both runs' selection noise (at least the
 *   config's min_noise) and both measurements' relative interquartile
 *   ranges; with several sizes, size by size. */
#ifndef TN_MERGE_H
#define TN_MERGE_H



/* Exit status of `tuner merge --fail-on-regression` after a regression
 * (the headers are written all the same). */
#define TN_EXIT_REGRESSION 4

/* `tuner merge ...`: argv[0] is "merge".  Returns the exit status: 0, 1 a
 * tool failed, 2 bad input (nothing written), 4 a regression with
 * --fail-on-regression. */
int tn_merge_main(int argc, char **argv);

#endif

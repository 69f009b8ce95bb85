/* fleet.h -- what the parts of `tuner merge` share: the runs read, the
 * entries chosen and the merge's context.  Private to tuner/fleet/ (the
 * command's header is merge.h).  The parts, each calling only those
 * before it:
 *
 *   find.c     results files and folders found; the list of runs
 *   json.c     typed access: a key of a kind, a time, a parameter object
 *   check.c    a results file's table agrees with itself
 *   read.c     one results file read and checked (FILE: JSON path: what)
 *   drift.c    its baselines timed through the run, each candidate's
 *              comparison with them, its clocks
 *   winners.c  each row's winner recorded in the history, for the next
 *              night's rule that a near tie keeps the old one
 *   choose.c   the rules: an entry per architecture and device, a default
 *   features.c --features: another job's entries for sm_90a and the like
 *   history.c  the nights kept, and regressions against the last one
 *   outputs.c  every place the merge writes, checked before the first
 *   merge.c    the command: options, loading, writing, the table */
#ifndef TN_FLEET_H
#define TN_FLEET_H

#include <jansson.h>
#include <stdio.h>

#include "base/arch.h"
#include "base/util.h"
#include "family/family.h"
#include "family/param.h"

/* Runs that started this close to the latest are one night. */
#define TN_MERGE_NIGHT_S (12 * 3600)
/* How far a host's clock may run ahead of the merge's: a run may say it
 * started up to this long after the merge's now (the clock, or --now). */
#define TN_MERGE_SKEW_S (15 * 60)

typedef struct {
  int idx;          /* position in "candidates", for messages */
  int id;           /* its "id" (unique in the file) */
  const char *text; /* params_text (borrowed from the document) */
  json_t *params;   /* borrowed */
  int ok;           /* verified and timed */
  double ms;        /* sum of the medians over the problems */
  double spread;    /* largest relative interquartile range */
  double *ms_at;    /* the median at each problem (n_problems; 0 if not
                       ok), in the run's `at` */
  double *spread_at; /* its relative interquartile range there */
  int base_meas;    /* the reference baseline's measurement it is
                       compared with (drift.c), -1: the run's figure */
} mg_cand;

typedef struct {
  char path[4096];
  json_t *doc;
  char *raw;        /* the file's bytes, kept for the history copy */
  size_t raw_len;
  char hash[33];
  const tn_family *family;
  /* a described kernel's family, made from the file's copy of its config
   * (its job owns it), or NULL for a family compiled in */
  struct tn_job *described;
  const char *name;
  const tn_arch *arch;
  int predicted;
  int interrupted;
  const char *device; /* NULL for a prediction */
  const char *host;
  int ordinal;
  const char *started;
  long long t;      /* started, seconds since 1970 (UTC) */
  char day[11];     /* "2026-11-30" */
  const char *driver, *nvrtc;
  int from_input;   /* given on the command line (else: history only) */
  tn_problem problem; /* the first, for the family's rules */
  json_t *problems;
  int n_problems;
  tn_problem problem_list[TN_MAX_SIZES];
  int n_cands;
  mg_cand *cands;
  mg_cand **sorted; /* by text, for lookups */
  int best;         /* index in cands of "best", -1 if none */
  tn_params best_params;
  double noise;     /* best.noise: the run's selection margin */
  double fastest;   /* fastest ok median */
  double baseline_ms; /* the reference baseline, 0 if not measured */
  /* by size (problem index): each size's winner (index in cands, -1 if
   * none), its selection margin and the fastest ok median there.  Files
   * without best_by_size (written before it) count best as every size's
   * winner, with best.noise. */
  double *at;       /* every candidate's ms_at and spread_at */
  int has_sizes;    /* best_by_size was in the file */
  int best_at[TN_MAX_SIZES];
  double noise_at[TN_MAX_SIZES];
  double fastest_at[TN_MAX_SIZES];
  double baseline_at[TN_MAX_SIZES]; /* the reference baseline's median
                                       there, 0 if not measured */
  /* the reference baseline timed through the run (drift.c): each
   * measurement's total and its medians by size ([j * n_problems + k]);
   * none in files before it */
  int n_base_meas;
  double *base_meas_total, *base_meas_at;
  /* run.clocks: 1 read, 0 unknown (clocks_why), -1 a file before it */
  int clocks_known;
  int throttled;
  const char *clocks_why; /* borrowed from the document */
} mg_run;

typedef struct {
  int n, cap;
  mg_run **r;
} mg_runs;

/* How a row's winner stood against the previous night's (winners.c):
 * the previous winner's text ("" when none was recorded), whether the
 * new one replaced it, and the margin the new one beats it by (old time
 * over new, less 1; 0 when not measured both) against the noise. */
typedef struct {
  char prev[512];
  int switched;
  int compared;     /* both measured by every run of the night */
  double margin, noise;
} mg_stay;

/* One size's row of an entry. */
typedef struct {
  tn_params params;
  char text[512];
  char why[200];
  mg_stay stay;
} mg_size_entry;

/* One entry of the dispatch table. */
typedef struct {
  const tn_arch *arch;
  char device_name[256]; /* "" for an architecture's entry */
  int predicted;
  tn_params params;
  char text[512];
  char devices[512];     /* where it was measured */
  char date[32];
  char why[512];
  char origin[4200];     /* the results file it came from (the latest) */
  long long night;       /* the latest run's start (date as seconds) */
  mg_stay stay;          /* against the previous night's single best */
  int n_sizes;           /* its rows by size, chosen size by size by the
                            same rules (0 for the default) */
  mg_size_entry size[TN_MAX_SIZES];
} mg_entry;

#define MG_MAX_ARCHS 64    /* more than the architecture table holds */
#define MG_MAX_DEVICES 256 /* device models with an entry of their own */

typedef struct {
  const char *output;
  const char *name;
  const char *history;
  int fail_on_regression;
  int quiet;
  int n_features;        /* --features FILE_OR_DIR, repeated */
  const char **features;
  long long now;         /* seconds since 1970: --now, else the clock */
  char now_text[32];     /* the same as a UTC time, for messages */
} mg_opts;

/* The features job (--features): another job's results for architecture-
 * specific targets ("sm_90a": the wgmma family), whose entries the
 * dispatch header selects where the code is compiled for that target. */
typedef struct {
  mg_runs runs;
  const tn_family *family;
  char name[64];                  /* its job's name */
  int n;                          /* entries, by tn_arch_at index of the */
  mg_entry *entry[MG_MAX_ARCHS];  /* plain architecture of the same cc */
} mg_features;

/* A winner a merge recorded in the history (winners.c). */
typedef struct {
  const tn_arch *arch;
  char device[256];  /* "" for an architecture's entry */
  int size;          /* -1: the single best; else that size's row */
  long long night;   /* its night: the latest run's start */
  char text[512];    /* its params_text */
} mg_winner;

typedef struct {
  mg_opts opts;
  mg_runs runs;
  int n_prev;           /* the winners recorded in the history */
  mg_winner *prev;
  const tn_family *family;
  char name[64];        /* the job's name */
  char macro[64];       /* "TRANSPOSE" */
  char ident[64];       /* "transpose" */
  int n_arch;           /* architecture entries, by tn_arch_at order */
  mg_entry *arch_entry[MG_MAX_ARCHS]; /* by tn_arch_at() index */
  int n_dev;
  mg_entry *dev_entry[MG_MAX_DEVICES];
  mg_entry deflt;
  char default_why[512];
  int n_inputs;
  int regressions;
  mg_features fx;
} mg_ctx;

typedef struct {
  int n, cap;
  char **p;
} mg_paths;

/* ---- read.c ---- */

/* The longest job name: it names files and macros (mg_ctx.name). */
#define TN_FLEET_NAME_MAX 63
/* A job name (a results file's "name", --name): a letter, then letters,
 * digits, '-', '_' and '.', at most TN_FLEET_NAME_MAX of them: what a
 * config's name becomes, and safe as a file name and in macros.  0, or
 * -1 with why. */
int tn_fleet_check_name(const char *name, char *why, size_t n);

/* A UTC time exactly as the tuner writes it, "2026-11-30T03:48:20Z" (a
 * real date from 1970 on, 00:00:00 to 23:59:59), into seconds since 1970
 * and, unless day is NULL, "2026-11-30".  0, or -1 with why. */
int tn_fleet_parse_time(const char *s, long long *t, char day[11],
                        char *why, size_t n);

/* Reads and checks one results file (keep_raw: its bytes too, for the
 * history).  Another family than first's is an error, or (skip_other) 1:
 * a shared history may hold other jobs.  Returns 0, 1 or TN_EINPUT naming
 * the file and the JSON path (TN_ETOOL when out of memory). */
int tn_fleet_load_run(const char *path, int keep_raw, const mg_run *first,
                      int skip_other, mg_run *r, tn_err *err);
/* The same for a document in memory (text, len bytes; path names it in
 * messages); r keeps no copy of the bytes.  For tests and the fuzzer. */
int tn_fleet_read_doc(const char *path, const char *text, size_t len,
                      const mg_run *first, int skip_other, mg_run *r,
                      tn_err *err);
/* A run that says it started after now + TN_MERGE_SKEW_S (now_text: now
 * as a UTC time) is from a host whose clock runs ahead, or made up: it
 * must not be "the latest night".  0, or TN_EINPUT naming the file,
 * run.started and now. */
int tn_fleet_check_future(const mg_run *r, long long now,
                          const char *now_text, tn_err *err);
/* Frees what a read left in r (also after an error), and r itself. */
void tn_fleet_run_free(mg_run *r);
/* The ok candidate of r with this parameter text, or NULL. */
const mg_cand *tn_fleet_find_cand(const mg_run *r, const char *text);

/* ---- drift.c ---- */

/* The drift's fields of r's document, all optional, checked as untrusted
 * input: baselines[0].measurements (each its index, time, medians,
 * clocks), median_measurement, spread; each ok candidate's timed_at_ms,
 * clocks and comparison with the baseline (baseline_measurement among
 * those measurements, baseline_ms, pct_of_baseline, baseline_noise,
 * vs_baseline), the same of best and best_by_size; run.clocks.  After
 * the candidates and baselines are read.  0, TN_EINPUT naming the file
 * and the JSON path, or TN_ETOOL. */
int tn_fleet_read_drift(mg_run *r, tn_err *err);
/* The reference baseline candidate c is compared with at size k (k < 0:
 * the sum): the measurement nearest in time to it where the file says
 * which, else the run's one figure; 0 when not measured.  c may be
 * NULL. */
double tn_fleet_baseline_of(const mg_run *r, const mg_cand *c, int k);

/* ---- find.c ---- */

int tn_fleet_runs_add(mg_runs *rs, mg_run *r, tn_err *err);
/* A file as given, or a folder's *.json files in name order. */
int tn_fleet_expand_arg(const char *arg, mg_paths *ps, tn_err *err);
/* Every *.json under dir (recursively), except temporaries. */
int tn_fleet_scan_dir(const char *dir, mg_paths *ps, tn_err *err);
void tn_fleet_paths_free(mg_paths *ps);
int tn_fleet_cmp_str(const void *a, const void *b); /* for qsort */
int tn_fleet_ends_with(const char *s, const char *tail);

/* ---- choose.c ---- */

/* The architectures entries are kept for, oldest first (tn_arch_at). */
int tn_fleet_n_archs(void);
/* An entry for every architecture and device measured or predicted (the
 * rules of merge.h).  0, TN_EINPUT (nothing to merge) or TN_ETOOL. */
int tn_fleet_choose_all(mg_ctx *cx, tn_err *err);
/* The entry of architecture a (as the runs' device.arch names it) by
 * those rules over rs, or *out NULL where no run of a has a winner.  0 or
 * TN_ETOOL. */
int tn_fleet_choose_arch(const mg_runs *rs, const tn_arch *a, mg_entry **out,
                         tn_err *err);
/* The portable default into cx->deflt (after tn_fleet_choose_all). */
void tn_fleet_choose_default(mg_ctx *cx, const mg_run *any);
/* The newest architecture entry not newer than arch_index, or NULL. */
const mg_entry *tn_fleet_resolve(const mg_ctx *cx, int arch_index);

/* ---- features.c ---- */

/* Reads the --features results (after the main job's runs) and checks
 * them: every run of a family compiled for an architecture-specific
 * target (sm_90a), one family, name and set of problems, those of the
 * main job (sizes and problem options by name); no main run of such a
 * family.  Then chooses each target's entry by the
 * merge's rules.  0, TN_EINPUT naming the file, or TN_ETOOL. */
int tn_fleet_features_load(mg_ctx *cx, tn_err *err);
/* Frees cx->fx. */
void tn_fleet_features_free(mg_ctx *cx);

/* ---- history.c ---- */

/* A path from a format; TN_ETOOL if it does not fit. */
int tn_fleet_pathf(char *out, size_t n, tn_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The history folder of r, DIR/<day>/<arch>/<device>, into dir.  0 or
 * TN_ETOOL (too long). */
int tn_fleet_history_dir(const mg_ctx *cx, const mg_run *r, char *dir,
                         size_t n, tn_err *err);
/* The name r is kept under there: its file name with characters other
 * than letters, digits, '-', '_', '.' as '_' (no control character
 * reaches a file name), no leading '.', a stem of 200 at most, ".json".
 * 0, or -1 if n is too small (256 is enough). */
int tn_fleet_history_name(const mg_run *r, char *out, size_t n);
/* Keeps r under DIR/<day>/<arch>/<device>/.  0 or an error. */
int tn_fleet_history_copy(const mg_ctx *cx, const mg_run *r, tn_err *err);
/* Compares every input run with the same GPU's previous night; reports
 * on stderr.  Returns the number of regressed configurations, or
 * TN_ETOOL. */
int tn_fleet_regressions(mg_ctx *cx, tn_err *err);
/* 1 if a and b measured on one GPU: host, device name and ordinal. */
int tn_fleet_same_gpu(const mg_run *a, const mg_run *b);
/* The run of now's GPU (host, device, ordinal) of the night before now's
 * (at least TN_MERGE_NIGHT_S earlier, the latest such, not interrupted),
 * or NULL. */
const mg_run *tn_fleet_previous_night(const mg_runs *rs, const mg_run *now);
/* 1 if candidate c of now is slower than the same configuration *p in
 * before beyond *noise: the largest of both runs' selection noise and both
 * measurements' relative interquartile ranges (the regression rule). */
int tn_fleet_slower(const mg_run *now, const mg_run *before,
                    const mg_cand *c, const mg_cand **p, double *noise);
/* The same at size k alone: its medians there, the noise of both runs'
 * winners of that size and both measurements' spreads there.  With one
 * size it is tn_fleet_slower; that one is 1 when some size regressed. */
int tn_fleet_slower_at(const mg_run *now, const mg_run *before,
                       const mg_cand *c, int k, const mg_cand **p,
                       double *noise);

/* ---- outputs.c ---- */

/* Every place merge writes (after tn_fleet_choose_all): its folder a
 * writable one or to be made under one, no folder where a file goes.
 * 0, or TN_EINPUT naming the option and the place. */
int tn_fleet_check_outputs(const mg_ctx *cx, tn_err *err);

/* ---- winners.c: headers that stay put ---- */

/* The history's record of winners of the merge's job:
 * DIR/<name>.winners.jsonl, into out.  0 or TN_ETOOL (too long). */
int tn_fleet_winners_path(const mg_ctx *cx, char *out, size_t n,
                          tn_err *err);
/* Reads that record into cx->prev (none: no history, or no file yet).
 * 0, TN_EINPUT naming FILE:LINE, or TN_ETOOL. */
int tn_fleet_winners_read(mg_ctx *cx, tn_err *err);
/* The text of the winner recorded for the row (arch, device or "", size
 * k or -1) of the latest night at least TN_MERGE_NIGHT_S before night, or
 * NULL. */
const char *tn_fleet_winner_before(const mg_ctx *cx, const tn_arch *arch,
                                   const char *device, int k,
                                   long long night);
/* Appends to the record every row's winner of this merge, with the
 * previous one, whether it switched and the margin (a line already there
 * for the same row, night and winner is not written again); written
 * atomically.  0 or an error. */
int tn_fleet_winners_write(const mg_ctx *cx, tn_err *err);
void tn_fleet_winners_free(mg_ctx *cx);

/* ---- json.c: typed access, messages naming FILE: JSON path ---- */

/* Times past this (ms, about 11 days) are not measurements. */
#define MAX_MS 1e9
/* A selection margin past this (1000 %) is not a noise rule. */
#define MAX_NOISE 10.0

typedef enum {
  K_STRING,
  K_STRING_OR_NULL,
  K_INT,
  K_NUMBER,
  K_BOOL,
  K_OBJECT,
  K_OBJECT_OR_NULL,
  K_ARRAY
} mg_kind;

/* obj[key] of the right kind into *out (where.key names it).  A missing
 * optional key gives NULL.  0 or TN_EINPUT. */
int tn_fleet_get(const char *file, json_t *obj, const char *where,
                 const char *key, mg_kind kind, int optional, json_t **out,
                 tn_err *err);
/* A time: finite and in [0, MAX_MS] (positive if positive).  0 or
 * TN_EINPUT naming file and where.key. */
int tn_fleet_check_ms(const char *file, const char *where, const char *key,
                      double v, int positive, tn_err *err);
/* A parameter object of r's family into p, checked against the family's
 * ranges and rules (which also resolve "xor" against the tile). */
int tn_fleet_parse_params(const mg_run *r, json_t *o, const char *where,
                          tn_params *p, tn_err *err);

/* ---- check.c: the table agrees with itself ---- */

/* Candidate ids are unique.  0, TN_EINPUT or TN_ETOOL. */
int tn_fleet_check_ids(const mg_run *r, tn_err *err);
/* "best" is a candidate of r's table, with its params and text, "ok" and
 * within the noise of the fastest (a prediction's says it is predicted);
 * sets r->best and r->best_params.  0 or TN_EINPUT. */
int tn_fleet_check_best(mg_run *r, json_t *best, tn_err *err);
/* "best_by_size" (by, NULL if the file has none) agrees with the table:
 * one entry per problem, in order, each with that problem's size, a
 * candidate's id and params, "ok" and within its own noise of the fastest
 * at that size (a prediction's: predicted); sets r->best_at, noise_at
 * (without it: best and best.noise for every size).  After
 * tn_fleet_check_best.  0 or TN_EINPUT. */
int tn_fleet_check_sizes(mg_run *r, json_t *by, tn_err *err);

#endif

/* run.h -- the run struct that every stage of one tuning run fills, and
 * the set-up a measured run (tune.c) and a prediction (fleet/predict.c)
 * share: initialisation, the output paths, the space for the architecture
 * with the model's pruning, and NVRTC. */
#ifndef TN_RUN_H
#define TN_RUN_H

#include "base/arch.h"
#include "base/mac.h"
#include "gpu/bench.h"
#include "pipeline/compile.h"
#include "pipeline/config.h"
#include "pipeline/kernel_refs.h"
#include "pipeline/render.h"
#include "pipeline/select.h"
#include "pipeline/space.h"

#define TN_MAX_BASELINES 4

/* One timing of a baseline at every size, at one time of the run. */
typedef struct {
  tn_timing timing[TN_MAX_SIZES];
  double total_ms;   /* sum of the medians over the problems */
  double timed_at;   /* tn_wall_now, the middle of its jobs; 0: unknown */
  int after;         /* candidates benchmarked before it in the run */
  tn_clocks clocks;  /* NVML's readings while it was timed */
} tn_baseline_measure;

/* A baseline, timed at the start of the benchmark and again through it
 * (pipeline/baselines.h): every measurement in meas, in the order taken;
 * timing and total_ms are those of the median measurement (by total), the
 * baseline's figure where one figure stands for the run. */
typedef struct {
  char name[32];
  int status;    /* TN_ST_OK, or TN_ST_FAILED (see reason) */
  char reason[TN_REASON_LEN];
  tn_timing timing[TN_MAX_SIZES];
  double total_ms;
  int n_meas, cap_meas;
  tn_baseline_measure *meas; /* malloc'd; freed by tn_run_free */
} tn_baseline_result;

/* What one size of a job cost in a measured run (results' run.cost.per_size):
 * timed launches (candidates and baselines), candidates raced out there,
 * and the worker's seconds of verification and of warm-up plus timed
 * launches. */
typedef struct {
  int launches, raced_out;
  double verify_s, timed_s;
} tn_size_cost;

typedef struct {
  int device;          /* GPU ordinal (see tn_tune_all_devices for all) */
  const char *arch;    /* --arch, or NULL: the device's (a dry run without
                          a GPU uses TN_DEFAULT_ARCH and says so) */
  int dry_run;
  int no_prune;
  const char *profile; /* --profile: the time model's device profile, or
                          NULL: the default (tn_profile_for) */
  int quiet;
  int verbose;         /* -v: where the compile's time went, and a row
                          for every candidate */
  int all_candidates;  /* --all-candidates: a row for every candidate
                          however many (summary.h) */
  int jobs;            /* compile workers, 0: one per core */
  int use_cache;
  char cache_dir[4096];
  const char *cache_key_path; /* --cache-key: the file of the cache's key */
  int cache_keyed;            /* cache_key read from it (precheck) */
  tn_mac_key cache_key;
  const char *output_dir;  /* overrides the config's */
  const char *resume_path; /* results JSON of an interrupted run */
  int repetitions;     /* overrides the config's, 0: keep */
  int full_protocol;   /* no racing, no adaptive repetitions */
  const char *command; /* the command line, for the record */
} tn_tune_opts;

typedef struct {
  const tn_job *job;
  const tn_tune_opts *opts;
  const tn_arch *arch;
  int have_device;
  tn_device_info device;
  tn_space space;
  int pruned_by_model;
  int pruned_by_measured;    /* while benchmarking (measured.h) */
  int n_baselines;
  tn_baseline_result baselines[TN_MAX_BASELINES];
  tn_selection sel;          /* the single best, over all sizes */
  tn_selection sel_size[TN_MAX_SIZES]; /* the winner of each size */
  tn_size_cost size_cost[TN_MAX_SIZES];
  tn_compile_stats compile;
  tn_compile_pool *pool;     /* the compile workers (tn_run_compilers);
                                NULL: the compile makes its own */
  int compile_in_background; /* set before tn_run_prepare: see there */
  tn_compile_run *compiling; /* while compiling in the background */
  double compile_start_s;    /* when compiling started (tn_now) */
  double compile_wait_s;     /* of it, the time the run waited for it */
  double t0;                 /* the run started (tn_now) */
  double wall_s, bench_s;
  /* where the time went (results' run.cost): the workers' steps summed
   * over jobs, the workers' starts, and the jobs' round trips */
  tn_bench_steps steps;
  double worker_start_s, jobs_s;
  int launches, raced_out;
  char started[32], finished[32];
  char host[256];
  unsigned long long seed;
  int worker_starts;
  int interrupted;
  /* the budget (job.h): candidates this invocation timed, and 1 if the
   * budget stopped the benchmark before the end of its order */
  int budget_timed;
  int budget_stopped;
  int resumed;         /* candidates taken from the resumed run */
  char template_hash[33]; /* of the template's text and headers */
  /* a described kernel's reference and kernel baseline (else empty) */
  tn_kernel_ref ref, base;
  char results_path[4400], journal_path[4400], header_path[4400];
  int files_made; /* the results file and journal exist (run_files.h, or
                     --resume): what --resume continues */
} tn_run;

/* Clears run and fills what every run starts with: job, opts, the start
 * time (t0), the host and the seed of the random inputs (the config's,
 * else from the clock). */
void tn_run_init(tn_run *run, const tn_job *job, const tn_tune_opts *opts);

/* The compile workers of a run, made as soon as the input is checked,
 * before the GPU worker starts and the space is built: *out NULL when
 * the compile is in this process (TUNER_COMPILER=none).  When the run
 * will compile (no cache: --no-cache or none usable; or a cache folder
 * without entries) every worker starts now and pays NVRTC's one-time
 * costs for hint (NULL: TN_DEFAULT_ARCH) while the set-up goes on.  With
 * a cache that has entries, none starts until a candidate misses (then
 * one per request that finds no idle worker), so that a run served from
 * the cache starts none.  Returns 0 or TN_ETOOL. */
int tn_run_compilers(const tn_tune_opts *opts, const tn_arch *hint,
                     tn_compile_pool **out, tn_err *err);

/* Stops the workers (they finish storing) and frees *p; NULL after. */
void tn_run_compilers_close(tn_compile_pool **p);

/* Fills run->results_path, journal_path and header_path for run->arch:
 * <output>/<name>-<arch>-<UTC time>.json (.jsonl), <output>/<arch>/<name>.h
 * (names a measured run claims later: run_files.h), or, with --resume,
 * the resumed files (tn_run_resume_paths) and the header beside them.
 * Returns 0, or TN_EINPUT if a path is too long. */
int tn_run_set_paths(tn_run *run, tn_err *err);

/* The results file and journal that --resume FILE continues: FILE names
 * either, x.json or x.jsonl (any other name is a results file, its
 * journal FILE.jsonl).  The journal alone is enough: the results file is
 * written anew from it.  Returns 0, or -1 if a path does not fit. */
int tn_run_resume_paths(const char *resume, char *results, size_t rn,
                        char *journal, size_t jn);

/* The folder results and headers go to: --output, else beside the file
 * --resume continues, else the config's output.dir. */
void tn_run_output_dir(const tn_run *run, char *out, size_t n);

/* The device profile for run->arch (--profile, else tn_profile_for's
 * default; a profile of another architecture is scaled to it, said on
 * stderr) into run->space.profile, and every candidate predicted with it.
 * Returns 0 or TN_EINPUT. */
int tn_run_predict(tn_run *run, tn_err *err);

/* The space for run->arch (limits, the time model's predictions, then
 * its pruning unless --no-prune), the paths, and every survivor compiled
 * with NVRTC (its registers checked against the architecture; the
 * predictions redone with them).  With --resume, the
 * journal must exist before anything is compiled.  With
 * run->compile_in_background, only the first survivor that compiles is
 * waited for (a template without the kernel is found before any GPU
 * work); the rest compile while the caller measures, each waited for with
 * tn_run_wait.  Returns 0, TN_EINPUT or TN_ETOOL with err. */
int tn_run_prepare(tn_run *run, const tn_template *tpl, tn_err *err);

/* Waits until candidate i is compiled (at once if it is not compiling),
 * then checks its registers against the architecture and predicts it with
 * them.  Returns 0,
 * TN_EINPUT or TN_ETOOL as tn_compile_wait. */
int tn_run_wait(tn_run *run, int i, tn_err *err);

/* Ends compiling in the background and fills run->compile: without
 * cancel every candidate is compiled; with it, what is not compiled yet
 * stays pending.  Nothing if nothing compiles. */
void tn_run_finish_compile(tn_run *run, int cancel);

void tn_run_free(tn_run *run);

#endif

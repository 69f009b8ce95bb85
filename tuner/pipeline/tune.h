/* tune.h -- one tuning run, from a loaded job to results and a header:
 * space -> limits -> model pruning -> NVRTC -> worker (verify, time) ->
 * selection -> results JSON (and its journal) -> per-architecture header. */
#ifndef TN_TUNE_H
#define TN_TUNE_H

#include "base/arch.h"
#include "gpu/bench.h"
#include "pipeline/compile.h"
#include "pipeline/config.h"
#include "pipeline/select.h"
#include "pipeline/space.h"

#define TN_MAX_BASELINES 4
#define TN_DEFAULT_ARCH "sm_90"

typedef struct {
  char name[32];
  int status;    /* TN_ST_OK, or TN_ST_FAILED (see reason) */
  char reason[TN_REASON_LEN];
  tn_timing timing[TN_MAX_SIZES];
  double total_ms;
} tn_baseline_result;

typedef struct {
  int device;          /* GPU ordinal (see tn_tune_all_devices for all) */
  const char *arch;    /* --arch, or NULL: the device's (a dry run without
                          a GPU uses TN_DEFAULT_ARCH and says so) */
  int dry_run;
  int no_prune;
  int quiet;
  int jobs;            /* compile threads, 0: all */
  int use_cache;
  char cache_dir[4096];
  const char *output_dir;  /* overrides the config's */
  const char *resume_path; /* results JSON of an interrupted run */
  int repetitions;     /* overrides the config's, 0: keep */
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
  int n_baselines;
  tn_baseline_result baselines[TN_MAX_BASELINES];
  tn_selection sel;
  tn_compile_stats compile;
  double wall_s, bench_s;
  char started[32], finished[32];
  char host[256];
  unsigned long long seed;
  int worker_starts;
  int interrupted;
  int resumed;         /* candidates taken from the resumed run */
  char results_path[4400], journal_path[4400], header_path[4400];
} tn_run;

/* Runs the job.  Returns 0, or a negative code with err: TN_EINPUT before
 * any work, TN_ENODEV when a GPU is needed and missing, TN_EINTR when
 * interrupted (what was measured is written), TN_ETOOL. */
int tn_tune(const tn_job *job, const tn_tune_opts *opts, tn_run *run,
            tn_err *err);
void tn_run_free(tn_run *run);

/* Tunes on every GPU of the host at once, one worker per GPU, compiling
 * once per architecture.  *runs (malloc'd, *n of them, each to be freed
 * with tn_run_free, then the array with free) holds one run per GPU; with
 * more than one GPU their results are named ...-gpuN.json, and the first
 * GPU of each architecture writes its header.  Returns like tn_tune. */
int tn_tune_all_devices(const tn_job *job, const tn_tune_opts *opts,
                        tn_run **runs, int *n, tn_err *err);


#endif

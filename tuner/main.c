/* main.c -- the tuner's command line.
 *
 *   tuner --config FILE [--device N] [options]   tune a kernel family
 *                                                 (or --dry-run, --predict)
 *   tuner conflicts [--arch sm_XX] [FILE]         wavefront calculator: ld,
 *                                                 st, ldmatrix, stmatrix,
 *                                                 cp.async
 *   tuner plan --config FILE [--json]             a config's declared plan
 *                                                 priced per access and
 *                                                 launch (docs/plan-check.md)
 *   tuner merge [options] RESULTS...              results of many GPUs into
 *                                                 headers (docs/fleet.md)
 *   tuner report [options] RESULTS... -o FILE     one HTML page of runs or a
 *                                                 fleet (docs/report.md)
 *   tuner calibrate [--device N] [--output PATH]  a GPU's device profile
 *                                                 (results/devices/)
 *   tuner __worker N                              (internal) GPU worker
 *   tuner __compile                               (internal) NVRTC worker
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/conflicts.h"
#include "pipeline/plan_cmd.h"
#include "pipeline/config.h"
#include "pipeline/precheck.h"
#include "pipeline/summary.h"
#include "fleet/merge.h"
#include "fleet/predict.h"
#include "report/report.h"
#include "calibrate/calibrate.h"
#include "pipeline/tune.h"
#include "base/util.h"
#include "gpu/worker.h"
#include "pipeline/cache_dir.h"
#include "pipeline/compile_pool.h"
#include "pipeline/compile_serve.h"

static void usage(FILE *out)
{
  char archs[256];
  tn_arch_list(archs, sizeof(archs));
  fprintf(out,
"Usage: tuner --config FILE [--device N] [options]\n"
"  or:  tuner conflicts [--arch sm_XX] [FILE]\n"
"  or:  tuner plan --config FILE [--arch sm_XX] [--ids LIST] [--json]\n"
"  or:  tuner merge [options] RESULTS...\n"
"  or:  tuner report [options] RESULTS... -o report.html\n"
"  or:  tuner calibrate [--device N] [--output PATH]\n"
"\n"
"Tunes the shared-memory tile layout (tile size, padding, swizzle, ...) of a\n"
"CUDA kernel family for a GPU: renders every point of the config's space\n"
"from its template, prunes with a model of shared-memory bank conflicts,\n"
"compiles the survivors with NVRTC in parallel, verifies each against a\n"
"reference and times it against a baseline measured in the same run, then\n"
"writes a results JSON and a C header of the winner for the architecture.\n"
"\n"
"Options:\n"
"  -c, --config FILE     the job (libconfig; see configs/ and docs/config.md)\n"
"  -d, --device N|all    GPU to tune on (default 0); all: every GPU of the\n"
"                        host at once, one worker each, compiling once per\n"
"                        architecture (results ...-gpuN.json)\n"
"  -a, --arch sm_XX      compile for this architecture (default: the GPU's;\n"
"                        known: %s)\n"
"  -n, --dry-run         no GPU work: print the candidates with model and\n"
"                        limits, compile every one; writes no files.\n"
"                        Without --arch and a GPU, compiles for %s\n"
"      --no-prune        compile and time candidates the model (or, while\n"
"                        benchmarking, the measured bound) would prune\n"
"      --profile FILE    the device profile the time model predicts with\n"
"                        (a `tuner calibrate` JSON; default: the newest\n"
"                        results/devices/<arch>-*.json, else one derived\n"
"                        for the architecture from its table figures and\n"
"                        the newest measured profile)\n"
"      --full-protocol   time every candidate with all repetitions (no\n"
"                        racing, no early stop on a tight median)\n"
"  -o, --output DIR      write results here (default: the config's\n"
"                        output.dir, else results/)\n"
"      --budget N|Ts     time the most promising candidates first (by the\n"
"                        time model's prediction) and stop after N of\n"
"                        them, or once the run is T seconds old (120s,\n"
"                        20m, 2h); the results say how many were left\n"
"                        untimed, and --resume continues.  Overrides the\n"
"                        config's bench.budget; none: no budget\n"
"      --resume FILE     continue the interrupted run whose results JSON or\n"
"                        journal (.jsonl, enough alone) is FILE, without\n"
"                        measuring again what it finished\n"
"  -j, --jobs N          compile in N worker processes (default: one per\n"
"                        core)\n"
"      --cache-dir DIR   compile cache (default $TUNER_CACHE_DIR,\n"
"                        $XDG_CACHE_HOME/tuner, ~/.cache/tuner, else\n"
"                        $TMPDIR/tuner-UID; made mode 0700).  A folder\n"
"                        another user owns or others can write is\n"
"                        shared: refused without --cache-key\n"
"      --cache-key FILE  the key of a shared cache (default\n"
"                        $TUNER_CACHE_KEY): entries are stored with an\n"
"                        HMAC-SHA256 by it, and only entries whose MAC\n"
"                        verifies are used (docs/fleet.md)\n"
"      --no-cache        compile everything afresh, store nothing\n"
"  -r, --repetitions N   timed launches per measurement (overrides the\n"
"                        config's bench.repetitions)\n"
"      --warmup N        untimed launches before them (overrides\n"
"                        bench.warmup)\n"
"      --predict         no GPU: predict the winner for --arch from the\n"
"                        model and the architecture table; writes results\n"
"                        marked predicted (docs/fleet.md)\n"
"  -q, --quiet           no progress bar\n"
"  -v, --verbose         also where the compile's time went: the workers'\n"
"                        starts and warm-up, the phase from the first\n"
"                        request to the last result, and the workers'\n"
"                        time in it (compiling, before the first\n"
"                        compile, between compiles, after the last);\n"
"                        and a row for every candidate\n"
"      --all-candidates  a row for every candidate in the table at the\n"
"                        end (default: a row each up to 500, else the\n"
"                        count of each state and the 20 most promising)\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"Subcommands:\n"
"  conflicts             read lines 'OP WIDTH A0 ... A31' (OP: ld, st,\n"
"                        ldmatrix.x1|x2|x4[.trans],\n"
"                        stmatrix.x1|x2|x4[.trans], cp.async.ca or\n"
"                        cp.async.cg; Ai: lane i's byte offset, or - if\n"
"                        inactive) and print the wavefronts, conflict\n"
"                        degree and busiest banks of each; see 'tuner\n"
"                        conflicts --help'\n"
"  plan                  the shared-memory plan a config declares for its\n"
"                        own kernel, priced per access and launch by the\n"
"                        kinds Nsight Compute counts (ld, st, ldsm, stsm,\n"
"                        ldgsts); see 'tuner plan --help' and\n"
"                        docs/plan-check.md\n"
"  merge                 merge results of many GPUs and nights into\n"
"                        per-architecture headers and a dispatch header;\n"
"                        see 'tuner merge --help' and docs/fleet.md\n"
"  report                one self-contained HTML page of runs or of a\n"
"                        fleet and its nights; see 'tuner report --help'\n"
"                        and docs/report.md\n"
"  calibrate             measure a GPU's device profile (shared-memory time\n"
"                        per wavefront by access width, bandwidth, launch\n"
"                        overhead, fp32, integer and tensor-core\n"
"                        throughput) into results/devices/; see 'tuner\n"
"                        calibrate --help'\n"
"\n"
"Exit status: 0 done; 1 a tool failed (I/O, NVRTC, memory); 2 bad input\n"
"(config, template, options, an output that cannot be written, a --resume\n"
"of another run), found before a GPU is touched, nothing written; 3 no\n"
"GPU or driver; 130 interrupted (what was measured is written; see\n"
"--resume).\n",
          archs, TN_DEFAULT_ARCH);
}

static int parse_int(const char *opt, const char *s, int lo, int hi, int *out)
{
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
    fprintf(stderr, "tuner: %s: '%s' is not an integer in [%d, %d]\n", opt, s,
            lo, hi);
    return -1;
  }
  *out = (int)v;
  return 0;
}

static void join_args(int argc, char **argv, char *out, size_t n)
{
  size_t used = 0;
  int i;
  out[0] = '\0';
  for (i = 0; i < argc && used + 1 < n; i++) {
    int w = snprintf(out + used, n - used, "%s%s", i ? " " : "", argv[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

enum { OPT_NO_PRUNE = 256, OPT_RESUME, OPT_CACHE_DIR, OPT_NO_CACHE, OPT_WARMUP,
       OPT_PREDICT, OPT_FULL_PROTOCOL, OPT_PROFILE, OPT_CACHE_KEY,
       OPT_ALL_CANDIDATES, OPT_BUDGET };

/* The worker's described families: the run's config, read in the worker
 * as the run read it.  The job lives as long as the worker does. */
static int load_described_family(const char *path, const char *text,
                                 const tn_family **out, char *why, size_t n)
{
  tn_job *job = calloc(1, sizeof(*job));
  tn_err err = {{0}};
  if (job == NULL) {
    snprintf(why, n, "out of memory");
    return -1;
  }
  if (tn_config_load_string(text, path, job, &err) != 0 ||
      job->user == NULL) {
    snprintf(why, n, "%s", err.msg[0] ? err.msg : "no described kernel");
    free(job);
    return -1;
  }
  *out = job->family;
  return 0;
}

int main(int argc, char **argv)
{
  static const struct option longopts[] = {
      {"config", required_argument, NULL, 'c'},
      {"device", required_argument, NULL, 'd'},
      {"arch", required_argument, NULL, 'a'},
      {"dry-run", no_argument, NULL, 'n'},
      {"no-prune", no_argument, NULL, OPT_NO_PRUNE},
      {"profile", required_argument, NULL, OPT_PROFILE},
      {"full-protocol", no_argument, NULL, OPT_FULL_PROTOCOL},
      {"output", required_argument, NULL, 'o'},
      {"resume", required_argument, NULL, OPT_RESUME},
      {"jobs", required_argument, NULL, 'j'},
      {"cache-dir", required_argument, NULL, OPT_CACHE_DIR},
      {"no-cache", no_argument, NULL, OPT_NO_CACHE},
      {"cache-key", required_argument, NULL, OPT_CACHE_KEY},
      {"repetitions", required_argument, NULL, 'r'},
      {"warmup", required_argument, NULL, OPT_WARMUP},
      {"predict", no_argument, NULL, OPT_PREDICT},
      {"quiet", no_argument, NULL, 'q'},
      {"verbose", no_argument, NULL, 'v'},
      {"all-candidates", no_argument, NULL, OPT_ALL_CANDIDATES},
      {"budget", required_argument, NULL, OPT_BUDGET},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  const char *config = NULL;
  tn_tune_opts opts;
  tn_job *job;
  tn_run single, *runs = &single;
  tn_err err = {{0}};
  char command[8192];
  int c, rc, warmup = -1, all_devices = 0, n_runs = 1, i;
  int predict = 0, budget_given = 0;
  tn_budget budget;
  char why[512];

  if (argc >= 2 && strcmp(argv[1], "__worker") == 0)
    return tn_worker_main(argc, argv, load_described_family);
  if (argc >= 2 && strcmp(argv[1], "__compile") == 0)
    return tn_compile_serve_main(argc, argv);
  tn_compile_pool_serve_self(); /* compile in workers of this program */
  if (argc >= 2 && strcmp(argv[1], "conflicts") == 0)
    return tn_conflicts_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "plan") == 0)
    return tn_plan_cmd_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "merge") == 0)
    return tn_merge_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "report") == 0)
    return tn_report_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "calibrate") == 0)
    return tn_calibrate_main(argc - 1, argv + 1);

  memset(&opts, 0, sizeof(opts));
  opts.device = 0;
  opts.use_cache = 1;
  tn_cache_dir_default(opts.cache_dir, sizeof(opts.cache_dir));
  if (getenv("TUNER_CACHE_KEY") && getenv("TUNER_CACHE_KEY")[0])
    opts.cache_key_path = getenv("TUNER_CACHE_KEY");
  while ((c = getopt_long(argc, argv, "c:d:a:no:j:r:qvhV", longopts, NULL)) !=
         -1) {
    switch (c) {
    case 'c':
      config = optarg;
      break;
    case 'd':
      if (strcmp(optarg, "all") == 0)
        all_devices = 1;
      else if (parse_int("--device", optarg, 0, 1023, &opts.device))
        return TN_EXIT_INPUT;
      break;
    case 'a':
      opts.arch = optarg;
      break;
    case 'n':
      opts.dry_run = 1;
      break;
    case OPT_NO_PRUNE:
      opts.no_prune = 1;
      break;
    case OPT_PROFILE:
      if (optarg[0] == '\0') {
        fprintf(stderr, "tuner: --profile: empty path; name a device "
                        "profile (results/devices/*.json)\n");
        return TN_EXIT_INPUT;
      }
      opts.profile = optarg;
      break;
    case OPT_FULL_PROTOCOL:
      opts.full_protocol = 1;
      break;
    case 'o':
      if (optarg[0] == '\0') {
        fprintf(stderr, "tuner: --output: empty path; name a folder\n");
        return TN_EXIT_INPUT;
      }
      if (strlen(optarg) > 3800) {
        fprintf(stderr, "tuner: --output: path too long\n");
        return TN_EXIT_INPUT;
      }
      opts.output_dir = optarg;
      break;
    case OPT_RESUME:
      if (optarg[0] == '\0') {
        fprintf(stderr, "tuner: --resume: empty path; name a results "
                        "file\n");
        return TN_EXIT_INPUT;
      }
      if (strlen(optarg) > 3800) {
        fprintf(stderr, "tuner: --resume: path too long\n");
        return TN_EXIT_INPUT;
      }
      opts.resume_path = optarg;
      break;
    case 'j':
      if (parse_int("--jobs", optarg, 1, 4096, &opts.jobs))
        return TN_EXIT_INPUT;
      break;
    case OPT_CACHE_DIR:
      tn_strlcpy(opts.cache_dir, optarg, sizeof(opts.cache_dir));
      break;
    case OPT_NO_CACHE:
      opts.use_cache = 0;
      break;
    case OPT_CACHE_KEY:
      opts.cache_key_path = optarg;
      break;
    case 'r':
      if (parse_int("--repetitions", optarg, 1, 100000, &opts.repetitions))
        return TN_EXIT_INPUT;
      break;
    case OPT_PREDICT:
      predict = 1;
      break;
    case OPT_WARMUP:
      if (parse_int("--warmup", optarg, 0, 100000, &warmup))
        return TN_EXIT_INPUT;
      break;
    case 'q':
      opts.quiet = 1;
      break;
    case 'v':
      opts.verbose = 1;
      break;
    case OPT_ALL_CANDIDATES:
      opts.all_candidates = 1;
      break;
    case OPT_BUDGET:
      budget_given = 1;
      if (strcmp(optarg, "none") == 0) {
        memset(&budget, 0, sizeof(budget));
      } else if (tn_config_parse_budget(optarg, &budget, why,
                                        sizeof(why)) != 0) {
        fprintf(stderr, "tuner: --budget: %s\n", why);
        return TN_EXIT_INPUT;
      }
      break;
    case 'h':
      usage(stdout);
      return TN_EXIT_OK;
    case 'V':
      printf("tuner %s\n", TN_VERSION);
      return TN_EXIT_OK;
    default:
      fprintf(stderr, "Try 'tuner --help'.\n");
      return TN_EXIT_INPUT;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "tuner: unexpected argument '%s'; try 'tuner --help'\n",
            argv[optind]);
    return TN_EXIT_INPUT;
  }
  if (config == NULL) {
    fprintf(stderr, "tuner: --config FILE is required; try 'tuner --help'\n");
    return TN_EXIT_INPUT;
  }
  if (all_devices && (opts.dry_run || opts.resume_path || opts.arch)) {
    fprintf(stderr, "tuner: --device all measures every GPU; it takes no "
                    "--dry-run, --resume or --arch\n");
    return TN_EXIT_INPUT;
  }
  if (predict && (all_devices || opts.dry_run || opts.resume_path)) {
    fprintf(stderr, "tuner: --predict measures nothing; it takes no "
                    "--device all, --dry-run or --resume\n");
    return TN_EXIT_INPUT;
  }
  if (budget_given && (opts.dry_run || predict)) {
    fprintf(stderr, "tuner: --budget limits what a run times; a --dry-run "
                    "or --predict times nothing\n");
    return TN_EXIT_INPUT;
  }
  if (opts.dry_run && opts.resume_path) {
    fprintf(stderr, "tuner: --resume measures; it cannot be a --dry-run\n");
    return TN_EXIT_INPUT;
  }
  join_args(argc, argv, command, sizeof(command));
  opts.command = command;

  job = malloc(sizeof(*job));
  if (job == NULL) {
    fprintf(stderr, "tuner: out of memory\n");
    return TN_EXIT_TOOL;
  }
  rc = tn_config_load(config, job, &err);
  if (rc) {
    fprintf(stderr, "tuner: %s\n", err.msg);
    free(job);
    return tn_exit_status(rc);
  }
  if (opts.repetitions > 0)
    job->bench.repetitions = opts.repetitions;
  if (warmup >= 0)
    job->bench.warmup = warmup;
  if (budget_given)
    job->budget = budget;

  rc = tn_precheck_cache(&opts, &err);
  if (rc) {
    fprintf(stderr, "tuner: %s\n", err.msg);
    free(job);
    return tn_exit_status(rc);
  }
  tn_install_interrupt_handler();
  if (predict)
    rc = tn_predict(job, &opts, &single, &err);
  else if (all_devices)
    rc = tn_tune_all_devices(job, &opts, &runs, &n_runs, &err);
  else
    rc = tn_tune(job, &opts, &single, &err);
  for (i = 0; runs && i < n_runs && (rc == 0 || rc == TN_EINTR); i++) {
    const tn_run *run = &runs[i];
    if (!opts.dry_run) {
      fprintf(stderr, "tuner: results: %s\n", run->results_path);
      if (run->sel.best >= 0 && rc == 0)
        fprintf(stderr, "tuner: header:  %s\n", run->header_path);
      else if (run->sel.best < 0)
        fprintf(stderr, "tuner: no candidate was verified and timed: no "
                        "header\n");
    }
    fprintf(stderr,
            "tuner: %d candidates, %d pruned by the model and %d by what "
            "the run measured, %d compiled (%d from the cache, %d failed) "
            "in %.2f s on %d worker%s; benchmark %.2f s; total %.2f s\n",
            run->space.n, run->pruned_by_model, run->pruned_by_measured,
            run->compile.compiled + run->compile.cached, run->compile.cached,
            run->compile.failed, run->compile.wall_s, run->compile.threads,
            run->compile.threads == 1 ? "" : "s", run->bench_s, run->wall_s);
    if (job->family->plan == NULL)
      fprintf(stderr, "tuner: %s declares no shared-memory plan: the model "
                      "priced no candidate and pruned none (a plan: "
                      "docs/kernels.md)\n",
              job->path);
    tn_summary_sizes_line(run, stderr);
    if (!opts.dry_run) {
      tn_summary_cost_line(run, stderr);
      tn_summary_budget_line(run, stderr);
      tn_summary_size_lines(run, stderr);
      tn_summary_drift_lines(run, stderr);
    }
    if (opts.verbose)
      tn_compile_trace_print(&run->compile.trace, run->t0, stderr);
  }
  if (rc == TN_EINTR) {
    fprintf(stderr, "tuner: interrupted; continue with --resume %s\n",
            runs[0].results_path);
    rc = 130;
  } else if (rc) {
    fprintf(stderr, "tuner: %s\n", err.msg);
    /* a run that stopped on a tool's error (a full disk, a lost GPU)
     * after its files were made: what it measured is in its journal */
    for (i = 0; runs && i < n_runs && rc != TN_EINPUT; i++)
      if (runs[i].files_made)
        fprintf(stderr, "tuner: what was measured is in %s; continue with "
                        "--resume %s\n",
                runs[i].journal_path, runs[i].results_path);
    rc = tn_exit_status(rc);
  }
  for (i = 0; runs && i < n_runs; i++)
    tn_run_free(&runs[i]);
  if (runs != &single)
    free(runs);
  tn_config_free(job);
  free(job);
  return rc;
}

/* command.c -- `tuner report`: options, the output checked before
 * anything is read, every results file read and checked by fleet/'s
 * reader, the page put together and written atomically. */
#define _POSIX_C_SOURCE 200809L
#include "report/report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/parts.h"

static void usage(FILE *out)
{
  fprintf(out,
"Usage: tuner report [options] RESULTS... -o report.html\n"
"\n"
"Writes one self-contained HTML page (inline SVG and CSS; no script, no\n"
"network) of tuning runs: for each results file, its candidates by\n"
"status, the timed ones as bars against the baselines, the model's\n"
"wavefronts against the measured time, the winner with its ties and the\n"
"run's cost, and each parameter's effect.  With --fleet, the results that\n"
"'tuner merge' takes (files, or folders searched for *.json): a matrix of\n"
"architecture x job with the configuration merge chooses, and each job's\n"
"nights per architecture with regressions marked (docs/report.md).\n"
"\n"
"Options:\n"
"  -o, --output FILE   the page to write (required)\n"
"      --fleet         a fleet's report instead of one section per run\n"
"      --history DIR   with --fleet: the nights kept by 'tuner merge\n"
"                      --history DIR' too\n"
"      --title TEXT    the page's title\n"
"  -h, --help          this text\n"
"  -V, --version       the tuner's version\n"
"\n"
"Exit status: 0 done; 1 a tool failed; 2 bad input (FILE: what is wrong),\n"
"nothing written.\n");
}

/* The output must be a file (new or not) in an existing, writable
 * folder.  0 or TN_EINPUT naming it. */
static int check_output(const char *out, tn_err *err)
{
  char dir[4096];
  struct stat st;
  if (out[0] == '\0' || strlen(out) > 3000)
    return tn_errf(err, TN_EINPUT, "--output: '%s': empty or too long", out);
  if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
    return tn_errf(err, TN_EINPUT, "--output: %s: a folder; name a file",
                   out);
  tn_dirname(dir, sizeof(dir), out);
  if (stat(dir, &st) != 0)
    return tn_errf(err, TN_EINPUT, "--output: %s: no folder %s", out, dir);
  if (!S_ISDIR(st.st_mode))
    return tn_errf(err, TN_EINPUT, "--output: %s: %s is not a folder", out,
                   dir);
  if (access(dir, W_OK) != 0)
    return tn_errf(err, TN_EINPUT, "--output: %s: folder %s is not "
                                   "writable",
                   out, dir);
  return 0;
}

static int known_hash(const mg_runs *rs, const char *hash)
{
  int i;
  for (i = 0; i < rs->n; i++)
    if (strcmp(rs->r[i]->hash, hash) == 0)
      return 1;
  return 0;
}

/* Reads every path of ps into rs (the same bytes twice once); from the
 * history (history set) files of unknown families are skipped. */
static int load(const mg_paths *ps, int history, mg_runs *rs, tn_err *err)
{
  long long now = (long long)time(NULL);
  char now_text[32];
  int i, rc = 0;
  tn_utc_iso(now_text, sizeof(now_text));
  for (i = 0; i < ps->n && rc == 0; i++) {
    mg_run *r = malloc(sizeof(*r));
    if (r == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory");
    rc = tn_fleet_load_run(ps->p[i], 0, NULL, history, r, err);
    r->from_input = !history;
    /* as merge: a run from the future is refused, or from the history
     * left out; it must not show as the latest night */
    if (rc == 0 && history) {
      tn_err later = {{0}};
      if (tn_fleet_check_future(r, now, now_text, &later) != 0) {
        fprintf(stderr, "tuner report: note: %s; left out\n", later.msg);
        rc = 1;
      }
    } else if (rc == 0) {
      rc = tn_fleet_check_future(r, now, now_text, err);
    }
    if (rc != 0 || known_hash(rs, r->hash)) {
      tn_fleet_run_free(r);
      rc = rc == 1 ? 0 : rc;
      continue;
    }
    rc = tn_fleet_runs_add(rs, r, err);
    if (rc != 0)
      tn_fleet_run_free(r);
  }
  return rc;
}

typedef struct {
  const char *output, *history, *title;
  int fleet;
} rp_opts;

static int report(const rp_opts *o, int argc, char **argv, tn_err *err)
{
  mg_paths in = {0}, hist = {0};
  mg_runs rs = {0};
  tn_html h = {0};
  char title[256];
  int i, rc = 0, n_inputs = 0;
  struct stat st;

  rc = check_output(o->output, err);
  if (rc == 0 && o->history &&
      (stat(o->history, &st) != 0 || !S_ISDIR(st.st_mode)))
    rc = tn_errf(err, TN_EINPUT, "--history: %s: not a folder", o->history);
  for (i = 0; i < argc && rc == 0; i++)
    rc = tn_fleet_expand_arg(argv[i], &in, err);
  if (rc == 0 && in.n == 0)
    rc = tn_errf(err, TN_EINPUT, "no results files found in the arguments");
  if (rc == 0)
    rc = load(&in, 0, &rs, err);
  n_inputs = rs.n;
  if (rc == 0 && o->history)
    rc = tn_fleet_scan_dir(o->history, &hist, err);
  if (rc == 0 && hist.n > 0) {
    qsort(hist.p, (size_t)hist.n, sizeof(char *), tn_fleet_cmp_str);
    rc = load(&hist, 1, &rs, err);
  }
  if (rc == 0) {
    if (o->title)
      tn_strlcpy(title, o->title, sizeof(title));
    else if (o->fleet)
      snprintf(title, sizeof(title), "Fleet report: %d results files",
               rs.n);
    else
      snprintf(title, sizeof(title), "Tuning report: %s%s", rs.r[0]->name,
               rs.n > 1 ? " and more" : "");
    tn_html_begin(&h, title);
    if (o->fleet)
      rc = tn_report_fleet(&h, &rs, n_inputs, err);
    else
      for (i = 0; i < rs.n; i++)
        tn_report_run(&h, rs.r[i], i);
    tn_html_end(&h);
  }
  if (rc == 0 && h.oom)
    rc = tn_errf(err, TN_ETOOL, "out of memory writing the page");
  if (rc == 0)
    rc = tn_write_file_atomic(o->output, h.s, h.n, err);
  if (rc == 0)
    fprintf(stderr, "tuner report: %s (%zu bytes, %d results files)\n",
            o->output, h.n, rs.n);
  tn_html_free(&h);
  for (i = 0; i < rs.n; i++)
    tn_fleet_run_free(rs.r[i]);
  free(rs.r);
  tn_fleet_paths_free(&in);
  tn_fleet_paths_free(&hist);
  return rc;
}

enum { OPT_FLEET = 256, OPT_HISTORY, OPT_TITLE };

int tn_report_main(int argc, char **argv)
{
  static const struct option longopts[] = {
      {"output", required_argument, NULL, 'o'},
      {"fleet", no_argument, NULL, OPT_FLEET},
      {"history", required_argument, NULL, OPT_HISTORY},
      {"title", required_argument, NULL, OPT_TITLE},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  rp_opts o;
  tn_err err = {{0}};
  int c, rc;

  memset(&o, 0, sizeof(o));
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:hV", longopts, NULL)) != -1) {
    switch (c) {
    case 'o':
      o.output = optarg;
      break;
    case OPT_FLEET:
      o.fleet = 1;
      break;
    case OPT_HISTORY:
      o.history = optarg;
      break;
    case OPT_TITLE:
      o.title = optarg;
      break;
    case 'h':
      usage(stdout);
      return TN_EXIT_OK;
    case 'V':
      printf("tuner %s\n", TN_VERSION);
      return TN_EXIT_OK;
    default:
      fprintf(stderr, "Try 'tuner report --help'.\n");
      return TN_EXIT_INPUT;
    }
  }
  if (o.output == NULL) {
    fprintf(stderr, "tuner report: --output FILE is required; try 'tuner "
                    "report --help'\n");
    return TN_EXIT_INPUT;
  }
  if (optind >= argc) {
    fprintf(stderr, "tuner report: no results files; try 'tuner report "
                    "--help'\n");
    return TN_EXIT_INPUT;
  }
  if (o.history && !o.fleet) {
    fprintf(stderr, "tuner report: --history is for a --fleet report\n");
    return TN_EXIT_INPUT;
  }
  rc = report(&o, argc - optind, argv + optind, &err);
  if (rc != 0) {
    fprintf(stderr, "tuner report: %s\n", err.msg);
    return tn_exit_status(rc);
  }
  return TN_EXIT_OK;
}

/* merge.c -- `tuner merge`: the results of many hosts and nights into
 * per-architecture headers and one dispatch header (compile time by
 * __CUDA_ARCH__, run time by device name and compute capability), with a
 * history of every night and a report of regressions.  This file is the
 * command: options, loading, writing and the table; the parts are listed
 * in fleet.h, the rules in merge.h and docs/fleet.md. */
#define _POSIX_C_SOURCE 200809L
#include "fleet/fleet.h"
#include "fleet/merge.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/lock.h"
#include "emit/emit.h"
#include "pipeline/precheck.h"

static void usage(FILE *out)
{
  fprintf(out,
"Usage: tuner merge [options] RESULTS...\n"
"\n"
"Merges results JSON files (measured or predicted; files, or folders\n"
"searched for *.json) of one kernel family from many hosts and nights into\n"
"DIR/<arch>/<name>.h for every architecture with an entry, and one\n"
"DIR/<name>_dispatch.h that selects the configuration at compile time by\n"
"__CUDA_ARCH__ and at run time by device name and compute capability,\n"
"falling back to the nearest older architecture and a portable default.\n"
"Rules: a measurement beats a prediction; the latest night counts; devices\n"
"of one architecture that disagree: the best geometric mean of each run's\n"
"fastest time over the configuration's (docs/fleet.md).  Jobs of several\n"
"sizes: every entry also gets a table by size, chosen size by size by the\n"
"same rules, and the dispatch header a lookup by size (name_lookup_size).\n"
"\n"
"Options:\n"
"  -o, --output DIR          write the headers here (default: results)\n"
"      --name NAME           name the headers and macros (default: the\n"
"                            results' name)\n"
"      --history DIR         keep every input under\n"
"                            DIR/<date>/<arch>/<device>/ and merge with\n"
"                            what is kept there; regressions are found\n"
"                            against the previous night, and a winner\n"
"                            replaces the previous night's only beyond\n"
"                            noise (DIR/<name>.winners.jsonl records it)\n"
"      --fail-on-regression  exit 4 when a configuration got slower than\n"
"                            on the same GPU the previous night beyond\n"
"                            noise (the headers are written all the same)\n"
"      --features RESULTS    another job's results (files or folders; may\n"
"                            be repeated) for architecture-specific\n"
"                            targets only (sm_90a: the wgmma family), of\n"
"                            the same problems: each target's winner, by\n"
"                            the same rules, is selected where the code is\n"
"                            compiled for it (__CUDA_ARCH_FEAT_SM90_ALL),\n"
"                            the main job's chain everywhere else; its\n"
"                            DIR/<arch>/<its name>.h is written too (not\n"
"                            kept in the history)\n"
"      --now TIME            judge the runs' dates against TIME\n"
"                            (2026-11-30T06:00:00Z) instead of the clock:\n"
"                            an input that started more than 15 minutes\n"
"                            after it is refused, a kept one left out\n"
"  -q, --quiet               no table of entries on stdout\n"
"  -h, --help                this text\n"
"  -V, --version             the tuner's version\n"
"\n"
"Exit status: 0 done; 1 a tool failed; 2 bad input (FILE: what is wrong),\n"
"nothing written; 4 a regression with --fail-on-regression.\n");
}

/* 1 if a and b tuned the same problems, as their family compares them. */
static int same_problems(const mg_run *a, const mg_run *b)
{
  int k;
  if (a->n_problems != b->n_problems)
    return 0;
  for (k = 0; k < a->n_problems; k++)
    if (!tn_problem_equal(a->family, &a->problem_list[k],
                          &b->problem_list[k]))
      return 0;
  return 1;
}

/* Where a and b, whose problems differ, differ first in an option of
 * their family rather than in a size: "elem \"fp16\" against \"fp32\""
 * into out, 1; else 0. */
static int option_differs(const mg_run *a, const mg_run *b, char *out,
                          size_t n)
{
  const tn_family *f = a->family;
  int k, i, d;
  for (k = 0; k < a->n_problems && k < b->n_problems; k++) {
    const tn_problem *x = &a->problem_list[k], *y = &b->problem_list[k];
    if (x->size.n_dims != y->size.n_dims)
      return 0;
    for (d = 0; d < x->size.n_dims; d++)
      if (x->size.dims[d] != y->size.dims[d])
        return 0;
    for (i = 0; i < f->n_options; i++) {
      const tn_option_desc *o = &f->options[i];
      const char *nx, *ny;
      if (x->opt[i] == y->opt[i])
        continue;
      nx = o->kind == TN_OPT_CHOICE ? tn_option_choice_name(o, x->opt[i])
                                    : NULL;
      ny = o->kind == TN_OPT_CHOICE ? tn_option_choice_name(o, y->opt[i])
                                    : NULL;
      if (nx && ny)
        snprintf(out, n, "%s \"%s\" against \"%s\"", o->name, nx, ny);
      else
        snprintf(out, n, "%s %g against %g", o->name, x->opt[i], y->opt[i]);
      return 1;
    }
  }
  return 0;
}

/* Checks a run against the first input: one name, one set of problems.
 * From the history, others are skipped (returns 1). */
static int compatible(const mg_ctx *cx, const mg_run *first, const mg_run *r,
                      int from_history, tn_err *err)
{
  if (strcmp(r->name, first->name) != 0 && cx->opts.name == NULL) {
    if (from_history)
      return 1;
    return tn_errf(err, TN_EINPUT,
                   "%s: name \"%s\", but %s is \"%s\": give --name to merge "
                   "them",
                   r->path, r->name, first->path, first->name);
  }
  if (!same_problems(r, first)) {
    char what[256];
    if (from_history)
      return 1;
    /* a header holds one kind of problem: the transposes of fp16 and
     * fp32, say, are two jobs, merged apart (the shipped configs name
     * them apart) */
    if (option_differs(r, first, what, sizeof(what)))
      return tn_errf(err, TN_EINPUT,
                     "%s: problems: %s of %s; a merge writes the headers "
                     "of one kind of problem: merge them apart, one name "
                     "each",
                     r->path, what, first->path);
    return tn_errf(err, TN_EINPUT,
                   "%s: problems: not those of %s (the same config on every "
                   "host?)",
                   r->path, first->path);
  }
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

static int load_all(mg_ctx *cx, int argc, char **argv, tn_err *err)
{
  mg_paths in = {0}, hist = {0};
  mg_run *first = NULL;
  int i, j, rc = 0;

  for (i = 0; i < argc && rc == 0; i++)
    rc = tn_fleet_expand_arg(argv[i], &in, err);
  for (i = 0; i < in.n && rc == 0; i++) {
    mg_run *r = malloc(sizeof(*r));
    if (r == NULL) {
      rc = tn_errf(err, TN_ETOOL, "out of memory");
      break;
    }
    rc = tn_fleet_load_run(in.p[i], cx->opts.history != NULL, first, 0, r, err);
    r->from_input = 1;
    if (rc == 0)
      rc = tn_fleet_check_future(r, cx->opts.now, cx->opts.now_text, err);
    if (rc == 0 && first != NULL)
      rc = compatible(cx, first, r, 0, err);
    if (rc != 0) {
      tn_fleet_run_free(r);
      break;
    }
    if (known_hash(&cx->runs, r->hash)) {
      tn_fleet_run_free(r); /* the same file twice (a file and its folder) */
      continue;
    }
    if (first == NULL)
      first = r;
    rc = tn_fleet_runs_add(&cx->runs, r, err);
    if (rc)
      tn_fleet_run_free(r);
  }
  cx->n_inputs = cx->runs.n;
  if (rc == 0 && cx->opts.history) {
    struct stat st;
    if (stat(cx->opts.history, &st) == 0)
      rc = tn_fleet_scan_dir(cx->opts.history, &hist, err);
    if (rc == 0 && hist.n > 0)
      qsort(hist.p, (size_t)hist.n, sizeof(char *), tn_fleet_cmp_str);
    for (i = 0; i < hist.n && rc == 0; i++) {
      mg_run *r = malloc(sizeof(*r));
      int dup = 0, skip;
      if (r == NULL) {
        rc = tn_errf(err, TN_ETOOL, "out of memory");
        break;
      }
      rc = tn_fleet_load_run(hist.p[i], 0, first, 1, r, err);
      if (rc < 0) {
        tn_fleet_run_free(r);
        break;
      }
      skip = rc == 1 || compatible(cx, first, r, 1, err);
      rc = 0;
      if (!skip) {
        /* kept from a merge whose now was later (--now): not yet */
        tn_err later = {{0}};
        if (tn_fleet_check_future(r, cx->opts.now, cx->opts.now_text,
                                  &later) != 0) {
          if (!cx->opts.quiet)
            fprintf(stderr, "tuner merge: note: %s; left out\n", later.msg);
          skip = 1;
        }
      }
      for (j = 0; j < cx->n_inputs && !skip; j++)
        if (strcmp(cx->runs.r[j]->name, r->name) == 0)
          break;
      if (j == cx->n_inputs)
        skip = 1; /* another job's history */
      /* an input kept earlier, or a copy of one */
      dup = known_hash(&cx->runs, r->hash);
      if (skip || dup) {
        tn_fleet_run_free(r);
        continue;
      }
      rc = tn_fleet_runs_add(&cx->runs, r, err);
      if (rc)
        tn_fleet_run_free(r);
    }
  }
  tn_fleet_paths_free(&in);
  tn_fleet_paths_free(&hist);
  return rc;
}

static int cmp_dev(const void *a, const void *b)
{
  const mg_entry *x = *(const mg_entry *const *)a;
  const mg_entry *y = *(const mg_entry *const *)b;
  int ax = x->arch->major * 100 + x->arch->minor;
  int ay = y->arch->major * 100 + y->arch->minor;
  if (ax != ay)
    return ay - ax;
  return strcmp(x->device_name, y->device_name);
}

static void print_table(const mg_ctx *cx, FILE *o)
{
  int i, measured = 0, predicted = 0;
  for (i = 0; i < tn_fleet_n_archs(); i++) {
    const mg_entry *e = cx->arch_entry[i], *r = tn_fleet_resolve(cx, i);
    if (e) {
      measured += !e->predicted;
      predicted += e->predicted;
      int k, differ = 0;
      fprintf(o, "%-7s %-9s %-20s %s\n        %s\n        %s\n",
              e->arch->name, e->predicted ? "predicted" : "measured",
              e->date, e->predicted ? "" : e->devices, e->text, e->why);
      for (k = 0; k < e->n_sizes; k++)
        differ += strcmp(e->size[k].text, e->text) != 0;
      if (e->n_sizes > 1)
        fprintf(o, "        by size: %d sizes, %d with a winner of their "
                   "own\n",
                e->n_sizes, differ);
    } else if (r) {
      fprintf(o, "%-7s -> %s\n", tn_arch_at(i)->name, r->arch->name);
    } else {
      fprintf(o, "%-7s -> default\n", tn_arch_at(i)->name);
    }
  }
  for (i = 0; i < cx->n_dev; i++) {
    const mg_entry *e = cx->dev_entry[i];
    fprintf(o, "device  %s (%s) %s\n        %s\n", e->device_name,
            e->arch->name, e->date, e->text);
  }
  for (i = 0; i < tn_fleet_n_archs(); i++) {
    const mg_entry *e = cx->fx.entry[i];
    if (e)
      fprintf(o, "%-7s %-9s %-20s %s (--features, %s)\n        %s\n"
                 "        %s\n",
              e->arch->name, e->predicted ? "predicted" : "measured",
              e->date, e->predicted ? "" : e->devices, cx->fx.family->name,
              e->text, e->why);
  }
  fprintf(o, "default %s\n        %s\n", cx->deflt.text, cx->deflt.why);
  fprintf(o, "%d results (%d given, %d from the history): %d architectures "
             "measured, %d predicted, %d devices\n",
          cx->runs.n, cx->n_inputs, cx->runs.n - cx->n_inputs, measured,
          predicted, cx->n_dev);
}

/* e, an entry of the job whose runs are rs (named name), as the
 * emitter's entry (borrowing e's text), its rows by size into sizes (room
 * for TN_MAX_SIZES). */
static void job_entry(const mg_runs *rs, const char *name, const mg_entry *e,
                      tn_header_entry *h, tn_header_size *sizes)
{
  const mg_run *any = rs->r[0];
  int k;
  memset(h, 0, sizeof(*h));
  h->family = any->family;
  h->name = name;
  h->arch = e->arch ? e->arch->name : NULL;
  h->device_name = e->device_name[0] ? e->device_name : NULL;
  h->predicted = e->predicted;
  h->devices = e->devices;
  h->date = e->date;
  h->why[0] = e->why;
  h->origin = e->origin[0] ? e->origin : NULL;
  h->params_text = e->text;
  h->params = &e->params;
  h->problem = &any->problem;
  for (k = 0; k < e->n_sizes && k < any->n_problems; k++) {
    sizes[k].problem = &any->problem_list[k];
    sizes[k].params = &e->size[k].params;
    sizes[k].params_text = e->size[k].text;
    sizes[k].why = e->size[k].why;
  }
  h->n_sizes = k;
  h->sizes = sizes;
}

/* An entry of the main job. */
static void header_entry(const mg_ctx *cx, const mg_entry *e,
                         tn_header_entry *h, tn_header_size *sizes)
{
  job_entry(&cx->runs, cx->name, e, h, sizes);
}

static int write_dispatch(mg_ctx *cx, tn_err *err)
{
  tn_header_entry *all, deflt;
  tn_header_size *rows;
  const tn_header_entry *archs[MG_MAX_ARCHS], *devs[MG_MAX_DEVICES];
  const tn_header_entry *fxa[MG_MAX_ARCHS];
  tn_header_entry *fxe;
  tn_header_size *fxrows;
  tn_dispatch_features fx;
  tn_dispatch d;
  char path[4400], *text = NULL;
  int i, rc;

  all = calloc((size_t)(MG_MAX_ARCHS + cx->n_dev + 1), sizeof(*all));
  rows = calloc((size_t)(MG_MAX_ARCHS + cx->n_dev + 1) * TN_MAX_SIZES,
                sizeof(*rows));
  fxe = calloc(MG_MAX_ARCHS, sizeof(*fxe));
  fxrows = calloc((size_t)MG_MAX_ARCHS * TN_MAX_SIZES, sizeof(*fxrows));
  if (all == NULL || rows == NULL || fxe == NULL || fxrows == NULL) {
    free(all);
    free(rows);
    free(fxe);
    free(fxrows);
    return tn_errf(err, TN_ETOOL, "out of memory");
  }
  memset(&d, 0, sizeof(d));
  d.family = cx->family;
  d.name = cx->name;
  d.problem = &cx->runs.r[0]->problem;
  d.n_results = cx->runs.n;
  d.n_archs = tn_fleet_n_archs();
  for (i = 0; i < d.n_archs; i++) {
    archs[i] = NULL;
    if (cx->arch_entry[i] == NULL)
      continue;
    header_entry(cx, cx->arch_entry[i], &all[i], rows + i * TN_MAX_SIZES);
    archs[i] = &all[i];
  }
  for (i = 0; i < cx->n_dev; i++) {
    header_entry(cx, cx->dev_entry[i], &all[MG_MAX_ARCHS + i],
                 rows + (MG_MAX_ARCHS + i) * TN_MAX_SIZES);
    devs[i] = &all[MG_MAX_ARCHS + i];
  }
  header_entry(cx, &cx->deflt, &deflt,
               rows + (MG_MAX_ARCHS + cx->n_dev) * TN_MAX_SIZES);
  d.archs = archs;
  d.n_devices = cx->n_dev;
  d.devices = devs;
  d.deflt = &deflt;
  if (cx->fx.n > 0) {
    /* the features job's entries, in the order of their compute
     * capabilities; the emitter puts them before the chain */
    memset(&fx, 0, sizeof(fx));
    fx.family = cx->fx.family;
    fx.problem = &cx->fx.runs.r[0]->problem;
    for (i = 0; i < tn_fleet_n_archs(); i++) {
      if (cx->fx.entry[i] == NULL)
        continue;
      job_entry(&cx->fx.runs, cx->fx.name, cx->fx.entry[i],
                &fxe[fx.n_archs], fxrows + fx.n_archs * TN_MAX_SIZES);
      fxa[fx.n_archs] = &fxe[fx.n_archs];
      fx.n_archs++;
    }
    fx.archs = fxa;
    d.features = &fx;
    d.n_results += cx->fx.runs.n;
  }
  rc = tn_emit_dispatch_text(&d, &text, err);
  free(all);
  free(rows);
  free(fxe);
  free(fxrows);
  if (rc != 0)
    return rc;
  rc = tn_fleet_pathf(path, sizeof(path), err, "%s/%s_dispatch.h",
                      cx->opts.output, cx->name);
  if (rc == 0)
    rc = tn_write_file_atomic(path, text, strlen(text), err);
  free(text);
  if (rc == 0 && !cx->opts.quiet)
    fprintf(stderr, "tuner merge: %s\n", path);
  return rc;
}

static int write_all(mg_ctx *cx, tn_err *err)
{
  char path[4400];
  int i, rc;

  /* the history first: a night is kept even if a header cannot be written */
  if (cx->opts.history) {
    for (i = 0; i < cx->n_inputs; i++) {
      rc = tn_fleet_history_copy(cx, cx->runs.r[i], err);
      if (rc != 0)
        return rc;
    }
    rc = tn_fleet_winners_write(cx, err);
    if (rc != 0)
      return rc;
  }
  for (i = 0; i < tn_fleet_n_archs(); i++) {
    const mg_entry *e = cx->arch_entry[i];
    tn_header_entry h;
    tn_header_size sizes[TN_MAX_SIZES];
    if (e == NULL)
      continue;
    header_entry(cx, e, &h, sizes);
    rc = tn_fleet_pathf(path, sizeof(path), err, "%s/%s/%s.h",
                        cx->opts.output, e->arch->name, cx->name);
    if (rc == 0)
      rc = tn_emit_arch_header(&h, path, err);
    if (rc)
      return rc;
    if (!cx->opts.quiet)
      fprintf(stderr, "tuner merge: %s\n", path);
  }
  /* the features job's headers, as its own merge would write them */
  for (i = 0; i < tn_fleet_n_archs(); i++) {
    const mg_entry *e = cx->fx.entry[i];
    tn_header_entry h;
    tn_header_size sizes[TN_MAX_SIZES];
    if (e == NULL)
      continue;
    job_entry(&cx->fx.runs, cx->fx.name, e, &h, sizes);
    rc = tn_fleet_pathf(path, sizeof(path), err, "%s/%s/%s.h",
                        cx->opts.output, e->arch->name, cx->fx.name);
    if (rc == 0)
      rc = tn_emit_arch_header(&h, path, err);
    if (rc)
      return rc;
    if (!cx->opts.quiet)
      fprintf(stderr, "tuner merge: %s\n", path);
  }
  return write_dispatch(cx, err);
}

/* write_all under the output folder's lock (base/lock.h): two merges into
 * one folder write their sets one after the other, never one's
 * per-architecture headers with the other's dispatch header. */
static int write_locked(mg_ctx *cx, tn_err *err)
{
  int fd, rc = tn_mkdirs(cx->opts.output, err);
  if (rc == 0)
    rc = tn_lock_dir("tuner merge", cx->opts.output, &fd, err);
  if (rc != 0)
    return rc;
  rc = write_all(cx, err);
  tn_unlock_dir(fd);
  return rc;
}

int tn_merge_main(int argc, char **argv)
{
  static const struct option longopts[] = {
      {"output", required_argument, NULL, 'o'},
      {"name", required_argument, NULL, 'N'},
      {"history", required_argument, NULL, 'H'},
      {"fail-on-regression", no_argument, NULL, 'F'},
      {"features", required_argument, NULL, 'X'},
      {"now", required_argument, NULL, 'T'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  mg_ctx *cx = calloc(1, sizeof(*cx));
  tn_err err = {{0}};
  int c, i, rc = 0, status = TN_EXIT_OK, now_given = 0;

  if (cx == NULL) {
    fprintf(stderr, "tuner merge: out of memory\n");
    return TN_EXIT_TOOL;
  }
  cx->opts.output = "results";
  cx->opts.features = calloc((size_t)argc + 1, sizeof(char *));
  if (cx->opts.features == NULL) {
    fprintf(stderr, "tuner merge: out of memory\n");
    free(cx);
    return TN_EXIT_TOOL;
  }
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:qhV", longopts, NULL)) != -1) {
    switch (c) {
    case 'o':
      cx->opts.output = optarg;
      break;
    case 'N':
      cx->opts.name = optarg;
      break;
    case 'H':
      cx->opts.history = optarg;
      break;
    case 'F':
      cx->opts.fail_on_regression = 1;
      break;
    case 'X':
      cx->opts.features[cx->opts.n_features++] = optarg;
      break;
    case 'T': {
      char why[128];
      if (tn_fleet_parse_time(optarg, &cx->opts.now, NULL, why,
                              sizeof(why)) != 0) {
        fprintf(stderr, "tuner merge: --now: \"%.40s\" is not a UTC time "
                        "like 2026-11-30T03:48:20Z: %s\n",
                optarg, why);
        free(cx->opts.features);
        free(cx);
        return TN_EXIT_INPUT;
      }
      tn_strlcpy(cx->opts.now_text, optarg, sizeof(cx->opts.now_text));
      now_given = 1;
      break;
    }
    case 'q':
      cx->opts.quiet = 1;
      break;
    case 'h':
      usage(stdout);
      free(cx->opts.features);
      free(cx);
      return TN_EXIT_OK;
    case 'V':
      printf("tuner %s\n", TN_VERSION);
      free(cx->opts.features);
      free(cx);
      return TN_EXIT_OK;
    default:
      fprintf(stderr, "Try 'tuner merge --help'.\n");
      free(cx->opts.features);
      free(cx);
      return TN_EXIT_INPUT;
    }
  }
  if (!now_given) {
    cx->opts.now = (long long)time(NULL);
    tn_utc_iso(cx->opts.now_text, sizeof(cx->opts.now_text));
  }
  if (optind >= argc) {
    fprintf(stderr, "tuner merge: no results files; try 'tuner merge "
                    "--help'\n");
    free(cx->opts.features);
    free(cx);
    return TN_EXIT_INPUT;
  }
  if (strlen(cx->opts.output) > 3000 ||
      (cx->opts.history && strlen(cx->opts.history) > 3000)) {
    fprintf(stderr, "tuner merge: --output/--history: path too long\n");
    free(cx->opts.features);
    free(cx);
    return TN_EXIT_INPUT;
  }

  if (cx->opts.name != NULL) {
    char why[128];
    if (tn_fleet_check_name(cx->opts.name, why, sizeof(why)) != 0) {
      fprintf(stderr, "tuner merge: --name: not a job name (it names the "
                      "headers, their files and macros): %s\n",
              why);
      free(cx->opts.features);
      free(cx);
      return TN_EXIT_INPUT;
    }
  }
  /* the folders written are checked before anything is read or written */
  rc = tn_precheck_dir("tuner merge: --output", cx->opts.output, &err);
  if (rc == 0 && cx->opts.history)
    rc = tn_precheck_dir("tuner merge: --history", cx->opts.history, &err);
  if (rc) {
    fprintf(stderr, "%s\n", err.msg);
    free(cx->opts.features);
    free(cx);
    return tn_exit_status(rc);
  }
  rc = load_all(cx, argc - optind, argv + optind, &err);
  if (rc == 0)
    rc = tn_fleet_features_load(cx, &err);
  if (rc == 0) {
    cx->family = cx->runs.r[0]->family;
    tn_strlcpy(cx->name, cx->opts.name ? cx->opts.name : cx->runs.r[0]->name,
               sizeof(cx->name));
    rc = tn_emit_idents(cx->name, cx->macro, cx->ident, sizeof(cx->macro),
                        &err);
  }
  if (rc == 0)
    rc = tn_fleet_winners_read(cx, &err);
  if (rc == 0)
    rc = tn_fleet_choose_all(cx, &err);
  if (rc == 0) {
    mg_run *any = cx->runs.r[0];
    qsort(cx->dev_entry, (size_t)cx->n_dev, sizeof(cx->dev_entry[0]),
          cmp_dev);
    tn_fleet_choose_default(cx, any);
    for (i = 0; i < cx->runs.n; i++) {
      const mg_run *r = cx->runs.r[i];
      if (r->from_input && r->best < 0)
        fprintf(stderr, "tuner merge: note: %s has no winner: kept, not "
                        "used\n",
                r->path);
      else if (r->from_input && r->interrupted)
        fprintf(stderr, "tuner merge: note: %s was interrupted: kept, not "
                        "used\n",
                r->path);
    }
    rc = tn_fleet_check_outputs(cx, &err);
    if (rc == 0)
      rc = write_locked(cx, &err);
  }
  if (rc == 0) {
    if (!cx->opts.quiet)
      print_table(cx, stdout);
    cx->regressions = tn_fleet_regressions(cx, &err);
    if (cx->regressions < 0) {
      rc = cx->regressions;
    } else if (cx->regressions > 0 && cx->opts.fail_on_regression) {
      fprintf(stderr, "tuner merge: %d regressed configuration%s "
                      "(--fail-on-regression)\n",
              cx->regressions, cx->regressions > 1 ? "s" : "");
      status = TN_EXIT_REGRESSION;
    }
  }
  if (rc) {
    fprintf(stderr, "tuner merge: %s\n", err.msg);
    status = tn_exit_status(rc);
  }
  for (i = 0; i < cx->runs.n; i++)
    tn_fleet_run_free(cx->runs.r[i]);
  free(cx->runs.r);
  for (i = 0; i < (int)(sizeof(cx->arch_entry) / sizeof(cx->arch_entry[0]));
       i++)
    free(cx->arch_entry[i]);
  for (i = 0; i < cx->n_dev; i++)
    free(cx->dev_entry[i]);
  tn_fleet_features_free(cx);
  tn_fleet_winners_free(cx);
  free(cx->opts.features);
  free(cx);
  return status;
}

/* precheck.c -- the inputs of a run checked before any work: --arch, the
 * space against the limits, the output folders, and what --resume is to
 * continue (the identity of its run); see precheck.h for the order. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/precheck.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mac.h"
#include "gpu/nvrtc.h"
#include "model/profile.h"
#include "pipeline/kernel_probe.h"
#include "pipeline/journal_check.h"
#include "pipeline/cache_dir.h"

#define IDENTITY_FORMAT 1

int tn_precheck_dir(const char *what, const char *dir, tn_err *err)
{
  char up[4096], parent[4096];
  struct stat st;

  if (dir == NULL || dir[0] == '\0')
    return tn_errf(err, TN_EINPUT, "%s: empty path; name a folder", what);
  if (tn_strlcpy(up, dir, sizeof(up)) != 0)
    return tn_errf(err, TN_EINPUT, "%s %s: path too long", what, dir);
  for (;;) {
    if (stat(up, &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        if (strcmp(up, dir) == 0)
          return tn_errf(err, TN_EINPUT, "%s %s: a file, not a folder",
                         what, dir);
        return tn_errf(err, TN_EINPUT, "%s %s: %s is a file, not a folder",
                       what, dir, up);
      }
      if (access(up, W_OK | X_OK) != 0)
        return tn_errf(err, TN_EINPUT, "%s %s: %s is not writable: %s",
                       what, dir, up, strerror(errno));
      return 0;
    }
    if (errno != ENOENT && errno != ENOTDIR)
      return tn_errf(err, TN_EINPUT, "%s %s: %s: %s", what, dir, up,
                     strerror(errno));
    tn_dirname(parent, sizeof(parent), up);
    if (strcmp(parent, up) == 0)
      return tn_errf(err, TN_EINPUT, "%s %s: no folder to create it in",
                     what, dir);
    tn_strlcpy(up, parent, sizeof(up));
  }
}

int tn_precheck_cache(tn_tune_opts *opts, tn_err *err)
{
  tn_err e = {{0}};
  int rc;
  if (!opts->use_cache)
    return 0;
  if (opts->cache_key_path) {
    rc = tn_mac_key_read("--cache-key", opts->cache_key_path,
                         &opts->cache_key, err);
    if (rc != 0)
      return rc;
    opts->cache_keyed = 1;
  }
  rc = tn_cache_dir_check(opts->cache_dir, opts->cache_keyed, err);
  if (rc != 0)
    return rc;
  if (tn_precheck_dir("compile cache", opts->cache_dir, &e) != 0) {
    fprintf(stderr, "tuner: warning: %s: compiling without a cache\n",
            e.msg);
    opts->use_cache = 0;
  }
  return 0;
}

const tn_arch *tn_precheck_target(const tn_job *job, const tn_arch *arch)
{
  const tn_arch *f;
  if (arch == NULL || !job->family->arch_features)
    return arch;
  f = tn_arch_features(arch);
  return f ? f : arch;
}

/* The space has a valid point for arch, or with arch NULL for some
 * architecture the tuner knows.  An error every architecture gives alike
 * (a plan's lane outside its array) is the config's, not theirs: it is
 * reported alone. */
static int check_space(const tn_job *job, const tn_arch *arch, tn_err *err)
{
  tn_space sp;
  tn_err last = {{0}};
  char list[256], first[sizeof(last.msg)];
  int i, rc, alike = 1;

  if (arch) {
    rc = tn_space_build(job, arch, &sp, err);
    if (rc == 0)
      tn_space_free(&sp);
    return rc;
  }
  for (i = 0; i < tn_arch_count(); i++) {
    last.msg[0] = '\0';
    rc = tn_space_build(job, tn_precheck_target(job, tn_arch_at(i)), &sp,
                        &last);
    if (rc == 0) {
      tn_space_free(&sp);
      return 0;
    }
    if (rc != TN_EINPUT) {
      *err = last;
      return rc;
    }
    if (i == 0)
      memcpy(first, last.msg, sizeof(first));
    else if (strcmp(first, last.msg) != 0)
      alike = 0;
  }
  if (alike) {
    *err = last;
    return TN_EINPUT;
  }
  tn_arch_list(list, sizeof(list));
  return tn_errf(err, TN_EINPUT,
                 "%s; no architecture the tuner knows can run any point "
                 "(%s)",
                 last.msg, list);
}

/* <dir>/<arch> is a folder or not there yet, and the header in it,
 * <name>.h, a file or not there yet: found now, not after the run. */
static int check_arch_dir(const char *what, const char *dir,
                          const tn_arch *arch, const char *name,
                          tn_err *err)
{
  char sub[4400], header[4600];
  struct stat st;
  snprintf(sub, sizeof(sub), "%s/%s", dir, arch->name);
  if (stat(sub, &st) != 0)
    return 0; /* created with the header; its parent was checked */
  if (!S_ISDIR(st.st_mode))
    return tn_errf(err, TN_EINPUT,
                   "%s %s: %s is a file, not the folder of the %s header",
                   what, dir, sub, arch->name);
  if (access(sub, W_OK | X_OK) != 0)
    return tn_errf(err, TN_EINPUT, "%s %s: %s is not writable: %s", what,
                   dir, sub, strerror(errno));
  snprintf(header, sizeof(header), "%s/%s.h", sub, name);
  if (stat(header, &st) == 0 && !S_ISREG(st.st_mode))
    return tn_errf(err, TN_EINPUT,
                   "%s %s: %s is not a file: the header cannot be written "
                   "there",
                   what, dir, header);
  return 0;
}

/* Names the output folder in messages. */
static void output_what(const tn_run *run, char *out, size_t n)
{
  if (run->opts->output_dir)
    snprintf(out, n, "--output");
  else if (run->opts->resume_path)
    snprintf(out, n, "the folder of --resume");
  else
    snprintf(out, n, "%s: output.dir", run->job->path);
}

void tn_precheck_template_hash(const tn_template *tpl, char out[33])
{
  const void *parts[1 + 2 * TN_MAX_HEADERS];
  size_t lens[1 + 2 * TN_MAX_HEADERS];
  int i, np = 0;
  parts[np] = tpl->text ? tpl->text : "";
  lens[np] = strlen(parts[np]);
  np++;
  for (i = 0; i < tpl->n_headers; i++) {
    parts[np] = tpl->header_names[i];
    lens[np++] = strlen(tpl->header_names[i]);
    parts[np] = tpl->header_texts[i];
    lens[np++] = strlen(tpl->header_texts[i]);
  }
  tn_hash_hex(parts, lens, np, out);
}

/* "4096x4096; 8192x8192 batch=2" */
static void problems_text(const tn_job *job, char *out, size_t n)
{
  const tn_family *f = job->family;
  size_t used = 0;
  int i, k;
  out[0] = '\0';
  for (i = 0; i < job->n_problems && used < n; i++) {
    const tn_problem *p = &job->problems[i];
    used += (size_t)snprintf(out + used, n - used, "%s", i ? "; " : "");
    for (k = 0; k < p->size.n_dims && used < n; k++)
      used += (size_t)snprintf(out + used, n - used, "%s%lld", k ? "x" : "",
                               p->size.dims[k]);
    for (k = 0; k < f->n_options && used < n; k++) {
      const tn_option_desc *d = &f->options[k];
      const char *name = d->kind == TN_OPT_CHOICE
                             ? tn_option_choice_name(d, p->opt[k])
                             : NULL;
      if (tn_option_left_out(f, p, k))
        continue; /* the text of the jobs from before it */
      /* a choice by its name, as the config says it: the identity then
       * survives a reordering of the family's table */
      if (name)
        used += (size_t)snprintf(out + used, n - used, " %s=%s", d->name,
                                 name);
      else
        used += (size_t)snprintf(out + used, n - used, " %s=%g", d->name,
                                 p->opt[k]);
    }
  }
}

/* The digest of the space: every parameter's values and the constraints. */
static void space_hash(const tn_job *job, char out[33])
{
  const tn_family *f = job->family;
  char *text = malloc(1 << 20);
  size_t used = 0, n = 1 << 20;
  const void *parts[1];
  size_t lens[1];
  int i, k;
  if (text == NULL) {
    tn_strlcpy(out, "unknown", 33);
    return;
  }
  text[0] = '\0';
  for (k = 0; k < f->n_params && used < n; k++) {
    used += (size_t)snprintf(text + used, n - used, "%s:", f->params[k].name);
    for (i = 0; i < job->values[k].n && used < n; i++) {
      char sw[32];
      if (f->params[k].kind == TN_PARAM_SWIZZLE)
        used += (size_t)snprintf(
            text + used, n - used, " %s",
            tn_swizzle_name(&job->values[k].values[i].sw, sw, sizeof(sw)));
      else
        used += (size_t)snprintf(text + used, n - used, " %lld",
                                 job->values[k].values[i].i);
    }
    if (used < n)
      used += (size_t)snprintf(text + used, n - used, "\n");
  }
  for (i = 0; i < job->n_constraints && used < n; i++)
    used += (size_t)snprintf(text + used, n - used, "constraint %s\n",
                             job->constraints[i]);
  parts[0] = text;
  lens[0] = used < n ? used : n - 1;
  tn_hash_hex(parts, lens, 1, out);
  free(text);
}

json_t *tn_run_identity(const tn_run *run)
{
  const tn_job *job = run->job;
  char problems[4096], space[33], bench[128], nvrtc[32], digest[33];
  const void *parts[6];
  size_t lens[6];
  json_t *o;
  int i;

  problems_text(job, problems, sizeof(problems));
  space_hash(job, space);
  snprintf(bench, sizeof(bench), "%d repetitions, %d warm-up, timeout %g s",
           job->bench.repetitions, job->bench.warmup, job->bench.timeout_s);
  tn_nvrtc_version(nvrtc, sizeof(nvrtc));
  parts[0] = job->family->name;
  parts[1] = job->name;
  parts[2] = problems;
  parts[3] = space;
  parts[4] = bench;
  parts[5] = run->template_hash;
  for (i = 0; i < 6; i++)
    lens[i] = strlen(parts[i]) + 1; /* the NULs keep the parts apart */
  tn_hash_hex(parts, lens, 6, digest);
  o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "format",
                IDENTITY_FORMAT, "job", digest, "family", job->family->name,
                "name", job->name, "problems", problems, "space", space,
                "bench", bench, "template", run->template_hash, "nvrtc",
                nvrtc);
  if (o && run->have_device) {
    json_object_set_new(o, "device", json_string(run->device.name));
    json_object_set_new(o, "pci_bus_id",
                        json_string(run->device.pci_bus_id));
    json_object_set_new(o, "driver",
                        json_integer(run->device.driver_version));
  }
  return o;
}

/* The identity in the first line of journal: a new reference, or NULL with
 * err. */
static json_t *journal_identity(const char *resume, const char *journal,
                                tn_err *err)
{
  FILE *f = fopen(journal, "r");
  char *line = NULL;
  size_t cap = 0;
  json_t *o = NULL, *id = NULL;
  const char *kind = NULL;

  if (f == NULL) {
    tn_errf(err, TN_EINPUT, "--resume %s: no journal %s beside it: %s",
            resume, journal, strerror(errno));
    return NULL;
  }
  if (getline(&line, &cap, f) > 0)
    o = json_loads(line, 0, NULL);
  fclose(f);
  free(line);
  if (o == NULL || json_unpack(o, "{s:s}", "kind", &kind) != 0 ||
      strcmp(kind, "run") != 0) {
    tn_errf(err, TN_EINPUT,
            "--resume %s: %s:1: not the start of a journal (a \"run\" "
            "line)",
            resume, journal);
  } else {
    id = json_object_get(o, "identity");
    if (!json_is_object(id)) {
      id = NULL;
      tn_errf(err, TN_EINPUT,
              "--resume %s: %s was written by an older tuner: it names no "
              "run identity to check against this one; start a new run",
              resume, journal);
    } else {
      json_incref(id);
    }
  }
  json_decref(o);
  return id;
}

/* Compares the keys of there and here; TN_EINPUT naming the first that
 * differs. */
static int compare(const tn_run *run, const char *journal, json_t *there,
                   json_t *here, const char *const *keys, tn_err *err)
{
  int i;
  for (i = 0; keys[i]; i++) {
    json_t *a = json_object_get(there, keys[i]);
    json_t *b = json_object_get(here, keys[i]);
    char *ta, *tb;
    if (a && b && json_equal(a, b))
      continue;
    ta = a ? json_dumps(a, JSON_ENCODE_ANY) : NULL;
    tb = b ? json_dumps(b, JSON_ENCODE_ANY) : NULL;
    tn_errf(err, TN_EINPUT,
            "--resume %s: %s is the journal of another run: %s differs "
            "(journal: %s; this run: %s)",
            run->opts->resume_path, journal, keys[i],
            ta ? ta : "not recorded", tb ? tb : "not known");
    free(ta);
    free(tb);
    return TN_EINPUT;
  }
  return 0;
}

static int check_resume(const tn_run *run, const char *journal,
                        const char *const *keys, tn_err *err)
{
  json_t *there, *here;
  int rc;
  there = journal_identity(run->opts->resume_path, journal, err);
  if (there == NULL)
    return TN_EINPUT;
  here = tn_run_identity(run);
  rc = here ? compare(run, journal, there, here, keys, err)
            : tn_errf(err, TN_ETOOL, "out of memory");
  json_decref(there);
  json_decref(here);
  return rc;
}

/* The journal --resume continues, as tn_run_set_paths names it; the
 * results file beside it, when there is one, must be a file this run can
 * rewrite (a run that met a full disk may have left the journal alone:
 * the results are written anew from it). */
static int resume_paths(const tn_run *run, char *journal, size_t size,
                        tn_err *err)
{
  const char *r = run->opts->resume_path;
  char results[4400];
  struct stat st;
  if (tn_run_resume_paths(r, results, sizeof(results), journal, size) != 0)
    return tn_errf(err, TN_EINPUT, "--resume %s: path too long", r);
  if (stat(results, &st) != 0) {
    if (errno == ENOENT && stat(journal, &st) == 0)
      return 0; /* the journal alone */
    return tn_errf(err, TN_EINPUT, "--resume %s: %s%s%s", r,
                   strcmp(results, r) != 0 ? results : "",
                   strcmp(results, r) != 0 ? ": " : "", strerror(errno));
  }
  if (!S_ISREG(st.st_mode))
    return tn_errf(err, TN_EINPUT, "--resume %s: %s is not a results file",
                   r, results);
  if (access(results, R_OK | W_OK) != 0)
    return tn_errf(err, TN_EINPUT, "--resume %s: %s: %s", r, results,
                   strerror(errno));
  return 0;
}

/* Every line of the journal, against the job's space (its ids and
 * parameters are those of any architecture's). */
static int check_journal(const tn_job *job, const char *journal,
                         tn_err *err)
{
  tn_space sp;
  int rc = tn_space_build(job, NULL, &sp, err);
  if (rc != 0)
    return rc;
  rc = tn_journal_check(journal, job, &sp, err);
  tn_space_free(&sp);
  return rc;
}

int tn_precheck(tn_run *run, const tn_template *tpl, tn_err *err)
{
  static const char *const job_keys[] = {
      "format", "family", "name", "problems", "space", "bench", "template",
      "job", "nvrtc", NULL};
  const tn_tune_opts *opts = run->opts;
  const tn_arch *arch = NULL;
  char list[256], dir[4096], what[4200], journal[4400];
  int rc;

  tn_precheck_template_hash(tpl, run->template_hash);
  if (opts->arch) {
    arch = tn_precheck_target(run->job, tn_arch_find(opts->arch));
    if (arch == NULL) {
      tn_arch_list(list, sizeof(list));
      return tn_errf(err, TN_EINPUT, "--arch %s: unknown (known: %s)",
                     opts->arch, list);
    }
  }
  rc = check_space(run->job, arch, err);
  if (rc == 0 && run->job->user)
    rc = tn_kernel_probe(run->job, arch ? arch : tn_arch_find(TN_DEFAULT_ARCH),
                         err);
  if (rc != 0)
    return rc;
  if (opts->profile) {
    /* read whole once here, before any work, for its errors */
    tn_profile p;
    rc = tn_profile_read(opts->profile, &p, err);
    if (rc != 0)
      return rc;
  }
  if (opts->resume_path) {
    rc = resume_paths(run, journal, sizeof(journal), err);
    if (rc == 0)
      rc = check_resume(run, journal, job_keys, err);
    if (rc == 0)
      rc = check_journal(run->job, journal, err);
    if (rc != 0)
      return rc;
  }
  tn_run_output_dir(run, dir, sizeof(dir));
  output_what(run, what, sizeof(what));
  rc = tn_precheck_dir(what, dir, err);
  if (rc == 0 && arch)
    rc = check_arch_dir(what, dir, arch, run->job->name, err);
  return rc;
}

int tn_precheck_device(const tn_run *run, tn_err *err)
{
  static const char *const device_keys[] = {"device", "pci_bus_id", "driver",
                                            NULL};
  char dir[4096], what[4200], journal[4400];
  int rc = 0;

  if (run->arch && !run->opts->arch) {
    tn_run_output_dir(run, dir, sizeof(dir));
    output_what(run, what, sizeof(what));
    rc = check_arch_dir(what, dir, run->arch, run->job->name, err);
  }
  if (rc == 0 && run->opts->resume_path && run->have_device) {
    rc = resume_paths(run, journal, sizeof(journal), err);
    if (rc == 0)
      rc = check_resume(run, journal, device_keys, err);
  }
  return rc;
}

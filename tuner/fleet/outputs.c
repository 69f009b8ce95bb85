/* outputs.c -- every place `tuner merge` writes, checked before it
 * writes the first (the history's folders and files, its record of
 * winners, each header and the dispatch header): a place it cannot write
 * is bad input found before the history or a header set is half
 * written. */
#define _POSIX_C_SOURCE 200809L
#include "fleet/fleet.h"

#include <string.h>
#include <sys/stat.h>

#include "pipeline/precheck.h"

/* A file the merge writes: its folder writable, or to be made under a
 * writable one, and no folder in its place (rename would fail). */
static int check_out_file(const char *what, const char *path, tn_err *err)
{
  char dir[4400];
  struct stat st;
  int rc;
  tn_dirname(dir, sizeof(dir), path);
  rc = tn_precheck_dir(what, dir, err);
  if (rc == 0 && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    rc = tn_errf(err, TN_EINPUT, "%s %s: not a file; it cannot be written",
                 what, path);
  return rc;
}

int tn_fleet_check_outputs(const mg_ctx *cx, tn_err *err)
{
  char path[4400], dir[4096];
  int i, rc = 0;

  for (i = 0; cx->opts.history && i < cx->n_inputs && rc == 0; i++) {
    const mg_run *r = cx->runs.r[i];
    char base[256];
    tn_fleet_history_name(r, base, sizeof(base));
    rc = tn_fleet_history_dir(cx, r, dir, sizeof(dir), err);
    if (rc == 0)
      rc = tn_fleet_pathf(path, sizeof(path), err, "%s/%s", dir, base);
    if (rc == 0)
      rc = check_out_file("--history", path, err);
  }
  for (i = 0; i < tn_fleet_n_archs() && rc == 0; i++) {
    if (cx->arch_entry[i] != NULL) {
      rc = tn_fleet_pathf(path, sizeof(path), err, "%s/%s/%s.h",
                          cx->opts.output, cx->arch_entry[i]->arch->name,
                          cx->name);
      if (rc == 0)
        rc = check_out_file("--output", path, err);
    }
    if (rc == 0 && cx->fx.entry[i] != NULL) {
      rc = tn_fleet_pathf(path, sizeof(path), err, "%s/%s/%s.h",
                          cx->opts.output, cx->fx.entry[i]->arch->name,
                          cx->fx.name);
      if (rc == 0)
        rc = check_out_file("--output", path, err);
    }
  }
  if (rc == 0)
    rc = tn_fleet_pathf(path, sizeof(path), err, "%s/%s_dispatch.h",
                        cx->opts.output, cx->name);
  if (rc == 0)
    rc = check_out_file("--output", path, err);
  if (rc == 0 && cx->opts.history)
    rc = tn_fleet_winners_path(cx, path, sizeof(path), err);
  if (rc == 0 && cx->opts.history)
    rc = check_out_file("--history", path, err);
  return rc;
}

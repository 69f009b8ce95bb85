/* find.c -- where `tuner merge` finds results: files as given, folders
 * searched for *.json (the history too), and the growing list of runs. */
#define _POSIX_C_SOURCE 200809L
#include "fleet/fleet.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int paths_add(mg_paths *ps, const char *p, tn_err *err)
{
  if (ps->n == ps->cap) {
    int ncap = ps->cap ? ps->cap * 2 : 64;
    char **np = realloc(ps->p, sizeof(*np) * (size_t)ncap);
    if (np == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory");
    ps->p = np;
    ps->cap = ncap;
  }
  ps->p[ps->n] = strdup(p);
  if (ps->p[ps->n] == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory");
  ps->n++;
  return 0;
}

void tn_fleet_paths_free(mg_paths *ps)
{
  int i;
  for (i = 0; i < ps->n; i++)
    free(ps->p[i]);
  free(ps->p);
  memset(ps, 0, sizeof(*ps));
}

int tn_fleet_cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int tn_fleet_ends_with(const char *s, const char *tail)
{
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Every *.json under dir (recursively), except temporaries. */
int tn_fleet_scan_dir(const char *dir, mg_paths *ps, tn_err *err)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int rc = 0;
  if (d == NULL)
    return tn_errf(err, TN_EINPUT, "%s: cannot open the folder: %s", dir,
                   strerror(errno));
  while (rc == 0 && (e = readdir(d)) != NULL) {
    char p[4096];
    struct stat st;
    if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp.") != NULL)
      continue;
    if (tn_path_join(p, sizeof(p), dir, e->d_name) != 0) {
      rc = tn_errf(err, TN_ETOOL, "%s/%s: path too long", dir, e->d_name);
      break;
    }
    if (stat(p, &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode))
      rc = tn_fleet_scan_dir(p, ps, err);
    else if (S_ISREG(st.st_mode) && tn_fleet_ends_with(e->d_name, ".json"))
      rc = paths_add(ps, p, err);
  }
  closedir(d);
  return rc;
}

/* A file as given, or a folder's *.json files in name order. */
int tn_fleet_expand_arg(const char *arg, mg_paths *ps, tn_err *err)
{
  struct stat st;
  int first = ps->n, rc;
  if (stat(arg, &st) != 0)
    return tn_errf(err, TN_EINPUT, "%s: cannot open: %s", arg,
                   strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return paths_add(ps, arg, err);
  rc = tn_fleet_scan_dir(arg, ps, err);
  if (rc == 0 && ps->n == first)
    return tn_errf(err, TN_EINPUT, "%s: no results (*.json) in this folder",
                   arg);
  if (rc == 0)
    qsort(ps->p + first, (size_t)(ps->n - first), sizeof(char *),
          tn_fleet_cmp_str);
  return rc;
}

int tn_fleet_runs_add(mg_runs *rs, mg_run *r, tn_err *err)
{
  if (rs->n == rs->cap) {
    int ncap = rs->cap ? rs->cap * 2 : 64;
    mg_run **nr = realloc(rs->r, sizeof(*nr) * (size_t)ncap);
    if (nr == NULL)
      return tn_errf(err, TN_ETOOL, "out of memory");
    rs->r = nr;
    rs->cap = ncap;
  }
  rs->r[rs->n++] = r;
  return 0;
}

/* toolkit_lib.c -- a toolkit library opened at run time (toolkit_lib.h). */
#include "gpu/toolkit_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tn_toolkit_lib_absent(const char *path, const char *error)
{
  size_t n = strlen(path);
  return error == NULL ||
         (strncmp(error, path, n) == 0 && error[n] == ':' &&
          strstr(error + n, "No such file") != NULL);
}

/* dlopen of path; on a failure keeps in first (once) dlerror's text
 * unless it says path itself is absent, so that a library found but not
 * loadable (a dependency missing, which dlerror names in place of path)
 * is told as that, not as not found. */
static void *try_open(const char *path, char *first, size_t len)
{
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  const char *e;
  if (h)
    return h;
  e = dlerror();
  if (first[0] == '\0' && !tn_toolkit_lib_absent(path, e))
    snprintf(first, len, "%s", e);
  return NULL;
}

/* tn_toolkit_lib_open, with the first error that is not a missing file */
static void *open_first(const char *const *names, int n, char *first,
                        size_t len)
{
  const char *dirs[2];
  char path[4096];
  int i, d, nd = 0;
  void *h;

  first[0] = '\0';
  for (i = 0; i < n; i++) {
    h = try_open(names[i], first, len);
    if (h)
      return h;
  }
  dirs[nd] = getenv("CUDA_HOME");
  if (dirs[nd] && *dirs[nd])
    nd++;
  dirs[nd++] = "/usr/local/cuda";
  for (d = 0; d < nd; d++)
    for (i = 0; i < n; i++) {
      snprintf(path, sizeof(path), "%s/lib64/%s", dirs[d], names[i]);
      h = try_open(path, first, len);
      if (h)
        return h;
    }
  return NULL;
}

void *tn_toolkit_lib_open(const char *const *names, int n)
{
  char first[512];
  return open_first(names, n, first, sizeof(first));
}

void *tn_toolkit_lib_load(const char *what, const char *const *names, int n,
                          const tn_toolkit_sym *syms, int n_syms, char *why,
                          size_t why_len)
{
  char first[512];
  void *lib = open_first(names, n, first, sizeof(first));
  int i;

  if (lib == NULL && first[0]) {
    snprintf(why, why_len, "%s found but not loadable: %s", what, first);
    return NULL;
  }
  if (lib == NULL) {
    char tried[512] = "";
    size_t len = 0;
    for (i = 0; i < n && len < sizeof(tried); i++)
      len += (size_t)snprintf(tried + len, sizeof(tried) - len, "%s%s",
                              i ? ", " : "", names[i]);
    snprintf(why, why_len, "%s not found (%s) by the loader's path, "
                           "$CUDA_HOME/lib64 or /usr/local/cuda/lib64",
             what, tried);
    return NULL;
  }
  for (i = 0; i < n_syms; i++) {
    *syms[i].slot = dlsym(lib, syms[i].name);
    if (*syms[i].slot == NULL && !syms[i].optional) {
      snprintf(why, why_len, "%s lacks %s", what, syms[i].name);
      for (i = 0; i < n_syms; i++)
        *syms[i].slot = NULL;
      dlclose(lib);
      return NULL;
    }
  }
  return lib;
}

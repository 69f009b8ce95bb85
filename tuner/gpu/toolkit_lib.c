/* toolkit_lib.c -- a toolkit library opened at run time (toolkit_lib.h). */
#include "gpu/toolkit_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *tn_toolkit_lib_open(const char *const *names, int n)
{
  const char *dirs[2];
  char path[4096];
  int i, d, nd = 0;
  void *h;

  for (i = 0; i < n; i++) {
    h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
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
      h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (h)
        return h;
    }
  return NULL;
}

void *tn_toolkit_lib_load(const char *what, const char *const *names, int n,
                          const tn_toolkit_sym *syms, int n_syms, char *why,
                          size_t why_len)
{
  void *lib = tn_toolkit_lib_open(names, n);
  int i;

  if (lib == NULL) {
    const char *e = dlerror();
    char tried[512] = "";
    size_t len = 0;
    for (i = 0; i < n && len < sizeof(tried); i++)
      len += (size_t)snprintf(tried + len, sizeof(tried) - len, "%s%s",
                              i ? ", " : "", names[i]);
    snprintf(why, why_len, "%s not found (%s): %s", what, tried,
             e ? e : "?");
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

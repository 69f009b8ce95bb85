/* toolkit_lib.c -- a toolkit library opened at run time (toolkit_lib.h). */
#include "gpu/toolkit_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

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

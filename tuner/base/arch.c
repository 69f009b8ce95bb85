/* arch.c -- per-architecture limits, sm_75 to sm_121.
 *
 * From the CUDA C++ Programming Guide's table of technical specifications
 * per compute capability.  Shared memory per block is the opt-in maximum
 * (cudaFuncAttributeMaxDynamicSharedMemorySize); static __shared__ is
 * limited to 48 KiB everywhere.  Every listed architecture has 32 banks of
 * 4 bytes. */
#include "base/arch.h"

#include <stdio.h>
#include <string.h>

#define KIB 1024

static const tn_arch archs[] = {
    {"sm_75", 7, 5, "Turing", 64 * KIB, 64 * KIB, 48 * KIB, 1024, 1024,
     65536, 255, 32, 4, 0, 0, 0},
    {"sm_80", 8, 0, "Ampere", 164 * KIB, 163 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 0, 0},
    {"sm_86", 8, 6, "Ampere", 100 * KIB, 99 * KIB, 48 * KIB, 1024, 1536,
     65536, 255, 32, 4, 1, 0, 0},
    {"sm_87", 8, 7, "Ampere", 164 * KIB, 163 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 0, 0},
    {"sm_89", 8, 9, "Ada", 100 * KIB, 99 * KIB, 48 * KIB, 1024, 1536, 65536,
     255, 32, 4, 1, 0, 0},
    {"sm_90", 9, 0, "Hopper", 228 * KIB, 227 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 1, 0},
    {"sm_100", 10, 0, "Blackwell", 228 * KIB, 227 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 1, 0},
    {"sm_103", 10, 3, "Blackwell", 228 * KIB, 227 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 1, 0},
    {"sm_120", 12, 0, "Blackwell", 100 * KIB, 99 * KIB, 48 * KIB, 1024, 1536,
     65536, 255, 32, 4, 1, 1, 0},
    {"sm_121", 12, 1, "Blackwell", 100 * KIB, 99 * KIB, 48 * KIB, 1024, 1536,
     65536, 255, 32, 4, 1, 1, 0},
};

#define N_ARCHS ((int)(sizeof(archs) / sizeof(archs[0])))

/* The architecture-specific targets NVRTC 12.8+ and 13 take, each with
 * its compute capability's limits (`features` set). */
static const tn_arch feature_archs[] = {
    {"sm_90a", 9, 0, "Hopper", 228 * KIB, 227 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 1, 1},
    {"sm_100a", 10, 0, "Blackwell", 228 * KIB, 227 * KIB, 48 * KIB, 1024,
     2048, 65536, 255, 32, 4, 1, 1, 1},
    {"sm_103a", 10, 3, "Blackwell", 228 * KIB, 227 * KIB, 48 * KIB, 1024,
     2048, 65536, 255, 32, 4, 1, 1, 1},
    {"sm_120a", 12, 0, "Blackwell", 100 * KIB, 99 * KIB, 48 * KIB, 1024,
     1536, 65536, 255, 32, 4, 1, 1, 1},
    {"sm_121a", 12, 1, "Blackwell", 100 * KIB, 99 * KIB, 48 * KIB, 1024,
     1536, 65536, 255, 32, 4, 1, 1, 1},
};

#define N_FEATURE_ARCHS \
  ((int)(sizeof(feature_archs) / sizeof(feature_archs[0])))

const tn_arch *tn_arch_find(const char *name)
{
  int i;
  for (i = 0; i < N_ARCHS; i++)
    if (strcmp(archs[i].name, name) == 0)
      return &archs[i];
  for (i = 0; i < N_FEATURE_ARCHS; i++)
    if (strcmp(feature_archs[i].name, name) == 0)
      return &feature_archs[i];
  return NULL;
}

const tn_arch *tn_arch_features(const tn_arch *arch)
{
  int i;
  if (arch == NULL || arch->features)
    return arch;
  for (i = 0; i < N_FEATURE_ARCHS; i++)
    if (tn_arch_same_cc(&feature_archs[i], arch))
      return &feature_archs[i];
  return NULL;
}

int tn_arch_same_cc(const tn_arch *a, const tn_arch *b)
{
  return a->major == b->major && a->minor == b->minor;
}

const tn_arch *tn_arch_from_cc(int major, int minor)
{
  int i;
  for (i = 0; i < N_ARCHS; i++)
    if (archs[i].major == major && archs[i].minor == minor)
      return &archs[i];
  return NULL;
}

const tn_arch *tn_arch_nearest_older(int major, int minor)
{
  const tn_arch *best = NULL;
  int i, want = major * 10 + minor;
  for (i = 0; i < N_ARCHS; i++)
    if (archs[i].major * 10 + archs[i].minor <= want)
      best = &archs[i];
  return best;
}

int tn_arch_count(void)
{
  return N_ARCHS;
}

const tn_arch *tn_arch_at(int i)
{
  return (i >= 0 && i < N_ARCHS) ? &archs[i] : NULL;
}

void tn_arch_list(char *out, int n)
{
  int i, used = 0;
  out[0] = '\0';
  for (i = 0; i < N_ARCHS && used < n; i++)
    used += snprintf(out + used, (size_t)(n - used), "%s%s", i ? ", " : "",
                     archs[i].name);
  for (i = 0; i < N_FEATURE_ARCHS && used < n; i++)
    used += snprintf(out + used, (size_t)(n - used), ", %s",
                     feature_archs[i].name);
}

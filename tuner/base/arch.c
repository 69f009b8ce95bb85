/* arch.c -- per-architecture limits, sm_75 to sm_121.
 *
 * From the CUDA C++ Programming Guide's table of technical specifications
 * per compute capability.  Shared memory per block is the opt-in maximum
 * (cudaFuncAttributeMaxDynamicSharedMemorySize); static __shared__ is
 * limited to 48 KiB everywhere.  Every listed architecture has 32 banks of
 * 4 bytes.
 *
 * The vendor figures (fp32 lanes and dense tensor flops per SM and clock;
 * a reference product's SMs, boost clock and DRAM bandwidth) are read
 * from the document each entry names, not measured: a time model uses
 * them only through a derived profile, scaled by what `tuner calibrate`
 * measured on another GPU.  sm_103 and sm_121 have none yet: a profile
 * for them is derived from the nearest older architecture that has.
 * A tensor rate of 0 (not in the table): the measured GPU's per SM and
 * clock is taken, and the derived profile says so. */
#include "base/arch.h"

#include <stdio.h>
#include <string.h>

#define KIB 1024

static const tn_arch archs[] = {
    {"sm_75", 7, 5, "Turing", 64 * KIB, 64 * KIB, 48 * KIB, 1024, 1024,
     65536, 255, 32, 4, 0, 0, 0,
     64, 1024, "Tesla T4", 40, 1590, 320,
     "NVIDIA Turing architecture whitepaper; Tesla T4 datasheet"},
    {"sm_80", 8, 0, "Ampere", 164 * KIB, 163 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 0, 0,
     64, 2048, "A100 SXM4 80GB", 108, 1410, 2039,
     "NVIDIA A100 Tensor Core GPU architecture whitepaper; A100 datasheet"},
    {"sm_86", 8, 6, "Ampere", 100 * KIB, 99 * KIB, 48 * KIB, 1024, 1536,
     65536, 255, 32, 4, 1, 0, 0,
     128, 512, "GeForce RTX 3090", 82, 1695, 936,
     "NVIDIA Ampere GA102 GPU architecture whitepaper"},
    {"sm_87", 8, 7, "Ampere", 164 * KIB, 163 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 0, 0,
     128, 0, "Jetson AGX Orin 64GB", 16, 1300, 205,
     "NVIDIA Jetson AGX Orin series datasheet"},
    {"sm_89", 8, 9, "Ada", 100 * KIB, 99 * KIB, 48 * KIB, 1024, 1536, 65536,
     255, 32, 4, 1, 0, 0,
     128, 1024, "L4", 58, 2040, 300,
     "NVIDIA Ada GPU architecture whitepaper; L4 datasheet"},
    {"sm_90", 9, 0, "Hopper", 228 * KIB, 227 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 1, 0,
     128, 4096, "H100 SXM5", 132, 1980, 3350,
     "NVIDIA H100 Tensor Core GPU architecture whitepaper; H100 datasheet"},
    {"sm_100", 10, 0, "Blackwell", 228 * KIB, 227 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 1, 0,
     128, 8192, "B200", 148, 1980, 7700,
     "hmc-tech.com/gpus/nvidia-b200-vs-nvidia-b100 (NVIDIA: 8 TB/s)"},
    {"sm_103", 10, 3, "Blackwell", 228 * KIB, 227 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 1, 0,
     128, 0, NULL, 0, 0, 0, NULL},
    {"sm_120", 12, 0, "Blackwell", 100 * KIB, 99 * KIB, 48 * KIB, 1024, 1536,
     65536, 255, 32, 4, 1, 1, 0,
     128, 0, "GeForce RTX 5090", 170, 2407, 1792,
     "NVIDIA RTX Blackwell GPU architecture whitepaper"},
    {"sm_121", 12, 1, "Blackwell", 100 * KIB, 99 * KIB, 48 * KIB, 1024, 1536,
     65536, 255, 32, 4, 1, 1, 0,
     128, 0, NULL, 0, 0, 0, NULL},
};

#define N_ARCHS ((int)(sizeof(archs) / sizeof(archs[0])))

/* The architecture-specific targets NVRTC 12.8+ and 13 take, each with
 * its compute capability's limits (`features` set).  No vendor figures of
 * their own: a time model takes the plain entry's (model/profile.c). */
static const tn_arch feature_archs[] = {
    {"sm_90a", 9, 0, "Hopper", 228 * KIB, 227 * KIB, 48 * KIB, 1024, 2048,
     65536, 255, 32, 4, 1, 1, 1,
     0, 0, NULL, 0, 0, 0, NULL},
    {"sm_100a", 10, 0, "Blackwell", 228 * KIB, 227 * KIB, 48 * KIB, 1024,
     2048, 65536, 255, 32, 4, 1, 1, 1,
     0, 0, NULL, 0, 0, 0, NULL},
    {"sm_103a", 10, 3, "Blackwell", 228 * KIB, 227 * KIB, 48 * KIB, 1024,
     2048, 65536, 255, 32, 4, 1, 1, 1,
     0, 0, NULL, 0, 0, 0, NULL},
    {"sm_120a", 12, 0, "Blackwell", 100 * KIB, 99 * KIB, 48 * KIB, 1024,
     1536, 65536, 255, 32, 4, 1, 1, 1,
     0, 0, NULL, 0, 0, 0, NULL},
    {"sm_121a", 12, 1, "Blackwell", 100 * KIB, 99 * KIB, 48 * KIB, 1024,
     1536, 65536, 255, 32, 4, 1, 1, 1,
     0, 0, NULL, 0, 0, 0, NULL},
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

/* fake_nvml.c -- a scripted NVML, built as a shared library for the tests:
 * a worker loads it where TUNER_NVML names it (tuner/gpu/nvml.h), on a
 * machine without a GPU.  It exports the calls the tuner resolves, with
 * nvml.h's signatures (tuner/gpu/nvml_abi.h).
 *
 * The GPU it describes runs cool, at 1980 MHz and 450 W with no throttle
 * reason, until FAKE_NVML_HOT_AFTER readings of its SM clock (in this
 * process; unset: never), then hot: at FAKE_NVML_HOT_MHZ (default 1450),
 * 700 W, 84 C, with the reason sw_power_cap (0x4).  The power limit is
 * 700 W, the greatest SM clock 1980 MHz.  FAKE_NVML_PCI is the one PCI bus
 * id it knows (default 0000:01:00.0, the fake worker's); another is
 * NVML_ERROR_NOT_FOUND.  FAKE_NVML_NO_REASONS makes the reasons call
 * fail (NVML_ERROR_NOT_SUPPORTED), as on GPUs that have none. */
#include <stdlib.h>
#include <string.h>

#include "gpu/nvml_abi.h"

#define NOT_FOUND 6u
#define NOT_SUPPORTED 3u
#define UNINITIALIZED 1u

/* what the shared library exports: nvml.h's names */
#define EXPORT __attribute__((visibility("default")))

static int inits;
static long readings;
static struct nvmlDevice_st {
  int dummy;
} the_gpu;

static int hot(void)
{
  const char *after = getenv("FAKE_NVML_HOT_AFTER");
  return after != NULL && readings > atol(after);
}

EXPORT tn_nvml_return nvmlInit_v2(void);
EXPORT tn_nvml_return nvmlShutdown(void);
EXPORT const char *nvmlErrorString(tn_nvml_return r);
EXPORT tn_nvml_return nvmlDeviceGetHandleByPciBusId_v2(const char *pci,
                                                       tn_nvml_device *d);
EXPORT tn_nvml_return nvmlDeviceGetClockInfo(tn_nvml_device d,
                                             unsigned int type,
                                             unsigned int *mhz);
EXPORT tn_nvml_return nvmlDeviceGetMaxClockInfo(tn_nvml_device d,
                                                unsigned int type,
                                                unsigned int *mhz);
EXPORT tn_nvml_return nvmlDeviceGetPowerUsage(tn_nvml_device d,
                                              unsigned int *mw);
EXPORT tn_nvml_return nvmlDeviceGetEnforcedPowerLimit(tn_nvml_device d,
                                                      unsigned int *mw);
EXPORT tn_nvml_return
nvmlDeviceGetCurrentClocksEventReasons(tn_nvml_device d,
                                       unsigned long long *reasons);
EXPORT tn_nvml_return nvmlDeviceGetTemperature(tn_nvml_device d,
                                               unsigned int sensor,
                                               unsigned int *c);

tn_nvml_return nvmlInit_v2(void)
{
  inits++;
  return TN_NVML_SUCCESS;
}

tn_nvml_return nvmlShutdown(void)
{
  if (inits == 0)
    return UNINITIALIZED;
  inits--;
  return TN_NVML_SUCCESS;
}

const char *nvmlErrorString(tn_nvml_return r)
{
  return r == NOT_FOUND       ? "Not Found"
         : r == NOT_SUPPORTED ? "Not Supported"
         : r == UNINITIALIZED ? "Uninitialized"
                              : "Unknown Error";
}

tn_nvml_return nvmlDeviceGetHandleByPciBusId_v2(const char *pci,
                                                tn_nvml_device *d)
{
  const char *mine = getenv("FAKE_NVML_PCI");
  if (inits == 0)
    return UNINITIALIZED;
  if (strcmp(pci, mine ? mine : "0000:01:00.0") != 0)
    return NOT_FOUND;
  *d = &the_gpu;
  return TN_NVML_SUCCESS;
}

tn_nvml_return nvmlDeviceGetClockInfo(tn_nvml_device d, unsigned int type,
                                      unsigned int *mhz)
{
  const char *h = getenv("FAKE_NVML_HOT_MHZ");
  if (d != &the_gpu || type != TN_NVML_CLOCK_SM)
    return NOT_SUPPORTED;
  readings++;
  *mhz = hot() ? (unsigned)(h ? atoi(h) : 1450) : 1980u;
  return TN_NVML_SUCCESS;
}

tn_nvml_return nvmlDeviceGetMaxClockInfo(tn_nvml_device d, unsigned int type,
                                         unsigned int *mhz)
{
  if (d != &the_gpu || type != TN_NVML_CLOCK_SM)
    return NOT_SUPPORTED;
  *mhz = 1980u;
  return TN_NVML_SUCCESS;
}

tn_nvml_return nvmlDeviceGetPowerUsage(tn_nvml_device d, unsigned int *mw)
{
  if (d != &the_gpu)
    return NOT_FOUND;
  *mw = hot() ? 700000u : 450000u;
  return TN_NVML_SUCCESS;
}

tn_nvml_return nvmlDeviceGetEnforcedPowerLimit(tn_nvml_device d,
                                               unsigned int *mw)
{
  if (d != &the_gpu)
    return NOT_FOUND;
  *mw = 700000u;
  return TN_NVML_SUCCESS;
}

tn_nvml_return
nvmlDeviceGetCurrentClocksEventReasons(tn_nvml_device d,
                                       unsigned long long *reasons)
{
  if (d != &the_gpu || getenv("FAKE_NVML_NO_REASONS"))
    return NOT_SUPPORTED;
  *reasons = hot() ? 0x4ULL : 0ULL;
  return TN_NVML_SUCCESS;
}

tn_nvml_return nvmlDeviceGetTemperature(tn_nvml_device d,
                                        unsigned int sensor, unsigned int *c)
{
  if (d != &the_gpu || sensor != TN_NVML_TEMPERATURE_GPU)
    return NOT_SUPPORTED;
  *c = hot() ? 84u : 52u;
  return TN_NVML_SUCCESS;
}

/* nvml.h -- NVIDIA's management library (NVML), loaded at run time with
 * dlopen like the driver (driver.h), to read a GPU's SM clock, power
 * draw, temperature and throttle reasons while a job's launches are timed.
 *
 * The library is libnvidia-ml.so.1, or the file TUNER_NVML names (the
 * tests put a scripted one there).  Without it, or without the device in
 * it, the worker times as before and says why the clocks are unknown. */
#ifndef TN_NVML_H
#define TN_NVML_H

#include <pthread.h>
#include <stddef.h>

#include "gpu/clocks.h"

/* How often the sampler reads while launches run (ms). */
#define TN_NVML_PERIOD_MS 10

typedef struct tn_nvml tn_nvml;

/* Loads NVML, initialises it and finds the GPU of pci_bus_id (as
 * cuDeviceGetPCIBusId writes it).  Returns 0 with *out, or -1 with why
 * ("no NVML: cannot load libnvidia-ml.so.1 (...)"). */
int tn_nvml_open(const char *pci_bus_id, tn_nvml **out, char *why,
                 size_t n);
/* Shuts NVML down and unloads it; m may be NULL. */
void tn_nvml_close(tn_nvml *m);
/* One reading of the device now (fields NVML cannot read stay 0). */
void tn_nvml_read(tn_nvml *m, tn_clock_sample *s);
/* The power limit in force (mW), the greatest SM clock (MHz); 0 when
 * unknown. */
unsigned tn_nvml_power_limit_mw(tn_nvml *m);
unsigned tn_nvml_max_sm_mhz(tn_nvml *m);

/* Readings while a job's launches run: one at the start, one every
 * TN_NVML_PERIOD_MS in a thread of its own, one at the stop. */
typedef struct {
  tn_nvml *m;
  tn_clocks acc;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int running; /* the thread was started */
  int stop;
} tn_nvml_sampler;

/* Starts sampling m (NULL: nothing is read; stop gives no samples). */
void tn_nvml_sampler_start(tn_nvml_sampler *s, tn_nvml *m);
/* Reads once more, ends the thread and gives what was read. */
void tn_nvml_sampler_stop(tn_nvml_sampler *s, tn_clocks *out);

#endif

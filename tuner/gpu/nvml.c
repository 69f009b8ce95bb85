/* nvml.c -- NVML loaded at run time, read while launches run (nvml.h). */
#define _GNU_SOURCE
#include "gpu/nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/nvml_abi.h"

struct tn_nvml {
  void *lib;
  tn_nvml_device dev;
  tn_nvml_shutdown_fn shutdown;
  tn_nvml_clock_fn clock, max_clock;
  tn_nvml_uint_fn power, power_limit;
  tn_nvml_reasons_fn reasons;
  tn_nvml_temperature_fn temperature;
};

/* dlsym into a function pointer without a cast between object and
 * function pointers (ISO C leaves that undefined; POSIX defines this). */
#define RESOLVE(lib, ptr, name) (*(void **)(&(ptr)) = dlsym((lib), (name)))

int tn_nvml_open(const char *pci_bus_id, tn_nvml **out, char *why,
                 size_t n)
{
  const char *path = getenv("TUNER_NVML");
  tn_nvml_init_fn init = NULL;
  tn_nvml_error_string_fn error_string = NULL;
  tn_nvml_by_pci_fn by_pci = NULL;
  tn_nvml *m;
  tn_nvml_return r;

  *out = NULL;
  if (path == NULL || *path == '\0')
    path = "libnvidia-ml.so.1";
  m = calloc(1, sizeof(*m));
  if (m == NULL) {
    snprintf(why, n, "out of memory");
    return -1;
  }
  m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (m->lib == NULL) {
    snprintf(why, n, "no NVML: cannot load %s (%s)", path, dlerror());
    free(m);
    return -1;
  }
  RESOLVE(m->lib, init, TN_NVML_INIT);
  RESOLVE(m->lib, error_string, TN_NVML_ERROR_STRING);
  RESOLVE(m->lib, by_pci, TN_NVML_BY_PCI);
  RESOLVE(m->lib, m->shutdown, TN_NVML_SHUTDOWN);
  RESOLVE(m->lib, m->clock, TN_NVML_CLOCK);
  RESOLVE(m->lib, m->max_clock, TN_NVML_MAX_CLOCK);
  RESOLVE(m->lib, m->power, TN_NVML_POWER);
  RESOLVE(m->lib, m->power_limit, TN_NVML_POWER_LIMIT);
  RESOLVE(m->lib, m->reasons, TN_NVML_REASONS);
  if (m->reasons == NULL)
    RESOLVE(m->lib, m->reasons, TN_NVML_REASONS_OLD);
  RESOLVE(m->lib, m->temperature, TN_NVML_TEMPERATURE);
  /* the clock is what a reading is for; the rest may be missing */
  if (init == NULL || by_pci == NULL || m->shutdown == NULL ||
      m->clock == NULL) {
    snprintf(why, n, "%s is not an NVML this tuner can use: no %s", path,
             init == NULL       ? TN_NVML_INIT
             : by_pci == NULL   ? TN_NVML_BY_PCI
             : m->shutdown == NULL ? TN_NVML_SHUTDOWN
                                   : TN_NVML_CLOCK);
    dlclose(m->lib);
    free(m);
    return -1;
  }
  r = init();
  if (r != TN_NVML_SUCCESS) {
    snprintf(why, n, "NVML did not start: %s: %s (%u)", TN_NVML_INIT,
             error_string ? error_string(r) : "error", r);
    dlclose(m->lib);
    free(m);
    return -1;
  }
  r = by_pci(pci_bus_id, &m->dev);
  if (r != TN_NVML_SUCCESS) {
    snprintf(why, n, "NVML does not know the GPU at PCI %s: %s (%u)",
             pci_bus_id, error_string ? error_string(r) : "error", r);
    m->shutdown();
    dlclose(m->lib);
    free(m);
    return -1;
  }
  *out = m;
  return 0;
}

void tn_nvml_close(tn_nvml *m)
{
  if (m == NULL)
    return;
  m->shutdown();
  dlclose(m->lib);
  free(m);
}

void tn_nvml_read(tn_nvml *m, tn_clock_sample *s)
{
  unsigned v;
  memset(s, 0, sizeof(*s));
  if (m == NULL)
    return;
  if (m->clock(m->dev, TN_NVML_CLOCK_SM, &v) == TN_NVML_SUCCESS)
    s->sm_mhz = v;
  if (m->power && m->power(m->dev, &v) == TN_NVML_SUCCESS)
    s->power_mw = v;
  if (m->temperature &&
      m->temperature(m->dev, TN_NVML_TEMPERATURE_GPU, &v) == TN_NVML_SUCCESS)
    s->temp_c = v;
  if (m->reasons && m->reasons(m->dev, &s->reasons) == TN_NVML_SUCCESS)
    s->reasons_known = 1;
  else
    s->reasons = 0;
}

unsigned tn_nvml_power_limit_mw(tn_nvml *m)
{
  unsigned v;
  if (m == NULL || m->power_limit == NULL ||
      m->power_limit(m->dev, &v) != TN_NVML_SUCCESS)
    return 0;
  return v;
}

unsigned tn_nvml_max_sm_mhz(tn_nvml *m)
{
  unsigned v;
  if (m == NULL || m->max_clock == NULL ||
      m->max_clock(m->dev, TN_NVML_CLOCK_SM, &v) != TN_NVML_SUCCESS)
    return 0;
  return v;
}

/* ---- the sampler ---- */

static void sample(tn_nvml_sampler *s)
{
  tn_clock_sample x;
  tn_nvml_read(s->m, &x);
  pthread_mutex_lock(&s->mu);
  tn_clocks_add(&s->acc, &x);
  pthread_mutex_unlock(&s->mu);
}

/* Reads every period until stopped: a timed wait on the condition, so
 * that the stop is seen at once, not after a sleep. */
static void *sampler_main(void *arg)
{
  tn_nvml_sampler *s = arg;
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    int stop;
    next.tv_nsec += TN_NVML_PERIOD_MS * 1000000L;
    while (next.tv_nsec >= 1000000000L) {
      next.tv_nsec -= 1000000000L;
      next.tv_sec++;
    }
    pthread_mutex_lock(&s->mu);
    while (!s->stop &&
           pthread_cond_timedwait(&s->cv, &s->mu, &next) != ETIMEDOUT)
      ;
    stop = s->stop;
    pthread_mutex_unlock(&s->mu);
    if (stop)
      return NULL;
    sample(s);
  }
}

void tn_nvml_sampler_start(tn_nvml_sampler *s, tn_nvml *m)
{
  pthread_condattr_t ca;
  memset(s, 0, sizeof(*s));
  s->m = m;
  if (m == NULL)
    return;
  pthread_mutex_init(&s->mu, NULL);
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&s->cv, &ca);
  pthread_condattr_destroy(&ca);
  sample(s);
  /* without a thread the start and the stop are still read */
  s->running = pthread_create(&s->thread, NULL, sampler_main, s) == 0;
}

void tn_nvml_sampler_stop(tn_nvml_sampler *s, tn_clocks *out)
{
  memset(out, 0, sizeof(*out));
  if (s->m == NULL)
    return;
  if (s->running) {
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    s->running = 0;
  }
  sample(s);
  *out = s->acc;
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  s->m = NULL;
}

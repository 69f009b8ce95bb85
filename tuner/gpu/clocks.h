/* clocks.h -- what a GPU's clocks, power and throttle reasons did while
 * one job's launches were timed: NVML's samples (gpu/nvml.h) folded into
 * their least and greatest, and the reasons seen, by name.
 *
 * The reasons are NVML's "clocks event reasons" (called throttle reasons
 * before driver 535), one bit each; a job throttled when it saw one that
 * holds the clocks down for power or heat (TN_CLOCKS_THROTTLING), not
 * one that only says the GPU idled or runs at set clocks. */
#ifndef TN_CLOCKS_H
#define TN_CLOCKS_H

#include <stddef.h>

/* NVML's bits (nvml.h, nvmlClocksEventReason*): the ABI, fixed. */
#define TN_CLOCKS_GPU_IDLE 0x1ULL
#define TN_CLOCKS_APP_CLOCKS 0x2ULL
#define TN_CLOCKS_SW_POWER_CAP 0x4ULL
#define TN_CLOCKS_HW_SLOWDOWN 0x8ULL
#define TN_CLOCKS_SYNC_BOOST 0x10ULL
#define TN_CLOCKS_SW_THERMAL 0x20ULL
#define TN_CLOCKS_HW_THERMAL 0x40ULL
#define TN_CLOCKS_HW_POWER_BRAKE 0x80ULL
#define TN_CLOCKS_DISPLAY_CLOCK 0x100ULL
#define TN_CLOCKS_BOARD_LIMIT 0x200ULL
#define TN_CLOCKS_RELIABILITY 0x400ULL

/* The reasons that hold the clocks below what the work asks for: power
 * and thermal caps, slowdowns, brakes and the board's limits. */
#define TN_CLOCKS_THROTTLING                                                 \
  (TN_CLOCKS_SW_POWER_CAP | TN_CLOCKS_HW_SLOWDOWN | TN_CLOCKS_SW_THERMAL |  \
   TN_CLOCKS_HW_THERMAL | TN_CLOCKS_HW_POWER_BRAKE | TN_CLOCKS_BOARD_LIMIT | \
   TN_CLOCKS_RELIABILITY)

/* One reading of the device. 0 in a field: NVML could not read it. */
typedef struct {
  unsigned sm_mhz;
  unsigned power_mw;
  unsigned temp_c;
  int reasons_known;
  unsigned long long reasons;
} tn_clock_sample;

/* Samples of one job folded (tn_clocks_add), or of several jobs
 * (tn_clocks_merge).  samples 0: nothing was read (no NVML). */
typedef struct {
  int samples;
  unsigned sm_mhz_first;           /* the first reading with a clock */
  unsigned sm_mhz_min, sm_mhz_max; /* over the readings with a clock */
  unsigned power_mw_max;
  double power_mw_sum;             /* over power_samples readings */
  int power_samples;
  unsigned temp_c_max;
  int reasons_known;               /* some reading had the reasons */
  unsigned long long reasons;      /* every bit any reading saw */
} tn_clocks;

/* Folds one reading into c. */
void tn_clocks_add(tn_clocks *c, const tn_clock_sample *s);
/* Folds b (a later job's) into a: least and greatest of both, a's first
 * clock unless it had none, the reasons of both. */
void tn_clocks_merge(tn_clocks *a, const tn_clocks *b);
/* The mean power in mW, 0 when none was read. */
double tn_clocks_power_mean_mw(const tn_clocks *c);
/* 1 if c saw a throttling reason, or a clock below (1 - drop) times
 * ref_mhz (ref_mhz 0: no clock test). */
int tn_clocks_throttled(const tn_clocks *c, unsigned ref_mhz, double drop);

/* The names of the bits of mask ("sw_power_cap", "hw_thermal", ...;
 * "bit_N" for a bit NVML added later), comma-separated into buf, "" for
 * none.  Returns buf. */
const char *tn_clocks_reason_names(unsigned long long mask, char *buf,
                                   size_t n);
/* The name of reason bit b (0..63): NULL for bit_N. */
const char *tn_clocks_reason_name(int b);
/* The bit of a name tn_clocks_reason_names writes, bit_N included; -1 if
 * it is none. */
int tn_clocks_reason_bit(const char *name);

#endif

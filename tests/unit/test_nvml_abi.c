/* test_nvml_abi.c -- the NVML calls tuner/gpu/nvml.c resolves with dlsym
 * have the types nvml.h gives them, and the constants and reason bits the
 * tuner names are nvml.h's (tuner/gpu/nvml_abi.h, gpu/clocks.h).  Built
 * where nvml.h is found (the CUDA toolkit, or the nvidia-nvml-dev wheel CI
 * installs): everything is checked at compile time. */
#include <stdio.h>

/* two of the calls are deprecated in NVML 13 (their successors: a newer
 * driver's; the tuner falls back to them), and nvml.h has enumerators
 * past int's range, which ISO C does not allow */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <nvml.h>
#pragma GCC diagnostic pop

#include "gpu/clocks.h"
#include "gpu/nvml_abi.h"

#define SAME(f, t)                                                           \
  _Static_assert(__builtin_types_compatible_p(__typeof__(&f), t),           \
                 #f " is not " #t)

SAME(nvmlInit_v2, tn_nvml_init_fn);
SAME(nvmlShutdown, tn_nvml_shutdown_fn);
SAME(nvmlErrorString, tn_nvml_error_string_fn);
SAME(nvmlDeviceGetHandleByPciBusId_v2, tn_nvml_by_pci_fn);
SAME(nvmlDeviceGetClockInfo, tn_nvml_clock_fn);
SAME(nvmlDeviceGetMaxClockInfo, tn_nvml_clock_fn);
SAME(nvmlDeviceGetPowerUsage, tn_nvml_uint_fn);
SAME(nvmlDeviceGetEnforcedPowerLimit, tn_nvml_uint_fn);
SAME(nvmlDeviceGetCurrentClocksEventReasons, tn_nvml_reasons_fn);
SAME(nvmlDeviceGetCurrentClocksThrottleReasons, tn_nvml_reasons_fn);
SAME(nvmlDeviceGetTemperature, tn_nvml_temperature_fn);

_Static_assert(NVML_SUCCESS == TN_NVML_SUCCESS, "NVML_SUCCESS");
_Static_assert(NVML_CLOCK_SM == TN_NVML_CLOCK_SM, "NVML_CLOCK_SM");
_Static_assert(NVML_TEMPERATURE_GPU == TN_NVML_TEMPERATURE_GPU,
               "NVML_TEMPERATURE_GPU");
_Static_assert(nvmlClocksEventReasonGpuIdle == TN_CLOCKS_GPU_IDLE, "idle");
_Static_assert(nvmlClocksEventReasonApplicationsClocksSetting ==
                   TN_CLOCKS_APP_CLOCKS,
               "applications clocks");
_Static_assert(nvmlClocksEventReasonSwPowerCap == TN_CLOCKS_SW_POWER_CAP,
               "sw power cap");
_Static_assert(nvmlClocksThrottleReasonHwSlowdown == TN_CLOCKS_HW_SLOWDOWN,
               "hw slowdown");
_Static_assert(nvmlClocksEventReasonSyncBoost == TN_CLOCKS_SYNC_BOOST,
               "sync boost");
_Static_assert(nvmlClocksEventReasonSwThermalSlowdown ==
                   TN_CLOCKS_SW_THERMAL,
               "sw thermal");
_Static_assert(nvmlClocksThrottleReasonHwThermalSlowdown ==
                   TN_CLOCKS_HW_THERMAL,
               "hw thermal");
_Static_assert(nvmlClocksThrottleReasonHwPowerBrakeSlowdown ==
                   TN_CLOCKS_HW_POWER_BRAKE,
               "hw power brake");
_Static_assert(nvmlClocksEventReasonDisplayClockSetting ==
                   TN_CLOCKS_DISPLAY_CLOCK,
               "display clock");
/* newer drivers' reasons (NVML 12.8 on) */
#ifdef nvmlClocksEventReasonBoardLimit
_Static_assert(nvmlClocksEventReasonBoardLimit == TN_CLOCKS_BOARD_LIMIT,
               "board limit");
#endif
#ifdef nvmlClocksEventReasonReliability
_Static_assert(nvmlClocksEventReasonReliability == TN_CLOCKS_RELIABILITY,
               "reliability");
#endif

int main(void)
{
  printf("ok: the NVML calls and reasons of tuner/gpu/nvml_abi.h and "
         "gpu/clocks.h are nvml.h's\n");
  return 0;
}

/* nvml_abi.h -- the few NVML calls nvml.c resolves with dlsym, declared as
 * nvml.h declares them.  nvml.h is not part of the CUDA toolkit's NVRTC
 * packages nor of Debian main, so the tuner does not need it to build;
 * where it is found (tests/CMakeLists.txt: the CUDA toolkit, or the
 * nvidia-nvml-dev wheel CI installs), test_nvml_abi checks each type
 * below against it.  nvml.h's enums (nvmlReturn_t, nvmlClockType_t,
 * nvmlTemperatureSensors_t) have no negative value, so GCC gives them the
 * type unsigned int. */
#ifndef TN_NVML_ABI_H
#define TN_NVML_ABI_H

typedef unsigned int tn_nvml_return;  /* nvmlReturn_t, NVML_SUCCESS 0 */
typedef struct nvmlDevice_st *tn_nvml_device; /* nvmlDevice_t */

#define TN_NVML_SUCCESS 0u
#define TN_NVML_CLOCK_SM 1u         /* nvmlClockType_t */
#define TN_NVML_TEMPERATURE_GPU 0u  /* nvmlTemperatureSensors_t */

typedef tn_nvml_return (*tn_nvml_init_fn)(void);
typedef tn_nvml_return (*tn_nvml_shutdown_fn)(void);
typedef const char *(*tn_nvml_error_string_fn)(tn_nvml_return);
typedef tn_nvml_return (*tn_nvml_by_pci_fn)(const char *, tn_nvml_device *);
typedef tn_nvml_return (*tn_nvml_clock_fn)(tn_nvml_device, unsigned int,
                                           unsigned int *);
typedef tn_nvml_return (*tn_nvml_uint_fn)(tn_nvml_device, unsigned int *);
typedef tn_nvml_return (*tn_nvml_reasons_fn)(tn_nvml_device,
                                             unsigned long long *);
typedef tn_nvml_return (*tn_nvml_temperature_fn)(tn_nvml_device,
                                                 unsigned int,
                                                 unsigned int *);

/* The symbols, each with its type above. */
#define TN_NVML_INIT "nvmlInit_v2"
#define TN_NVML_SHUTDOWN "nvmlShutdown"
#define TN_NVML_ERROR_STRING "nvmlErrorString"
#define TN_NVML_BY_PCI "nvmlDeviceGetHandleByPciBusId_v2"
#define TN_NVML_CLOCK "nvmlDeviceGetClockInfo"          /* clock_fn */
#define TN_NVML_MAX_CLOCK "nvmlDeviceGetMaxClockInfo"   /* clock_fn */
#define TN_NVML_POWER "nvmlDeviceGetPowerUsage"         /* uint_fn, mW */
#define TN_NVML_POWER_LIMIT "nvmlDeviceGetEnforcedPowerLimit" /* uint_fn */
#define TN_NVML_REASONS "nvmlDeviceGetCurrentClocksEventReasons"
/* the same call before driver 535 */
#define TN_NVML_REASONS_OLD "nvmlDeviceGetCurrentClocksThrottleReasons"
#define TN_NVML_TEMPERATURE "nvmlDeviceGetTemperature"

#endif

/* calibrate.h -- `tuner calibrate`: measures on one GPU the device
 * profile a time model needs (shared-memory time per wavefront by access
 * width, global bandwidth, launch overhead, fp32, integer and tensor-core
 * throughput) and writes it as JSON, by default under results/devices/. */
#ifndef TN_CALIBRATE_H
#define TN_CALIBRATE_H

#include <stddef.h>

/* The default file name of a profile: "<arch>-<device name>-<YYYYMMDD>
 * .json", the name sanitized (tn_sanitize_name), from date as
 * tn_utc_iso writes it. */
void tn_calib_default_name(char *out, size_t n, const char *arch,
                           const char *device_name, const char *date);

/* The subcommand; argv[0] is "calibrate".  Returns the exit status: 0,
 * 1 a tool failed, 2 bad arguments (before any GPU work), 3 no GPU. */
int tn_calibrate_main(int argc, char **argv);

#endif

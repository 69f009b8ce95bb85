/* calibrate.c -- `tuner calibrate`: the command line, the checks made
 * before the GPU is touched, and the run: measure, write, summarize. */
#define _POSIX_C_SOURCE 200809L
#include "calibrate/calibrate.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "calibrate/copy_engine.h"
#include "calibrate/measure.h"
#include "calibrate/profile.h"
#include "calibrate/sweep.h"

#define DEFAULT_DIR "results/devices"

static void usage(FILE *out)
{
  fprintf(out,
"Usage: tuner calibrate [--device N] [--output PATH] [options]\n"
"\n"
"Measures on one GPU the device profile a time model needs, and writes it\n"
"as JSON (default: results/devices/<arch>-<device>-<YYYYMMDD>.json) with a\n"
"summary on standard output:\n"
"  - shared-memory time per wavefront for loads of 4, 8 and 16 bytes: the\n"
"    stride sweep (lane l loads element l*s, s = 1..64), one warp and many\n"
"    warps per SM, each time ratio against s = 1 beside the wavefronts the\n"
"    model predicts;\n"
"  - the SM clock, launch overhead, global-memory bandwidth (a copy kernel\n"
"    and cuMemcpyDtoD), fp32 FMA, integer (IMAD; shift + LOP3) and, from\n"
"    sm_80, tensor-core throughput (mma.sync bf16; cublasGemmEx);\n"
"  - from sm_90, the copy engine's (TMA's) ns a box an SM, loads and\n"
"    stores, boxes of 8 and 64 rows of 32, 64, 128 and 256 bytes.\n"
"Every figure is the median of the repetitions, with its quartiles, min,\n"
"max and method in the JSON.\n"
"\n"
"  -d, --device N        the GPU (default 0)\n"
"  -o, --output PATH     the profile's file, or a folder for the default\n"
"                        name (default: results/devices/)\n"
"  -r, --repetitions N   timed repetitions of each measurement (default\n"
"                        15, 3 to 1000)\n"
"      --warmup N        untimed runs before them (default 3)\n"
"  -h, --help            this text\n"
"\n"
"Exit status: 0; 1 a tool failed (a CUDA call, NVRTC, I/O); 2 bad\n"
"arguments or an output that cannot be written, found before the GPU is\n"
"touched; 3 no GPU or driver.\n");
}

static int parse_int(const char *opt, const char *s, int lo, int hi,
                     int *out)
{
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
    fprintf(stderr, "tuner calibrate: %s: '%s' is not an integer in "
                    "[%d, %d]\n",
            opt, s, lo, hi);
    return -1;
  }
  *out = (int)v;
  return 0;
}

void tn_calib_default_name(char *out, size_t n, const char *arch,
                           const char *device_name, const char *date)
{
  char dev[128], day[9];
  int i, k = 0;
  tn_strlcpy(dev, device_name, sizeof(dev));
  tn_sanitize_name(dev);
  /* "2026-12-01T..." -> "20261201" */
  for (i = 0; date[i] && date[i] != 'T' && k < 8; i++)
    if (date[i] >= '0' && date[i] <= '9')
      day[k++] = date[i];
  day[k] = '\0';
  snprintf(out, n, "%s-%s-%s.json", arch, dev, day);
}

static int is_dir(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* 1 if dir, or the nearest of its ancestors that exists, is a folder we
 * may create files in (the missing part is created after measuring). */
static int can_write_under(const char *dir)
{
  char cur[4096], up[4096];
  struct stat st;
  tn_strlcpy(cur, dir, sizeof(cur));
  for (;;) {
    if (stat(cur, &st) == 0)
      return S_ISDIR(st.st_mode) && access(cur, W_OK | X_OK) == 0;
    tn_dirname(up, sizeof(up), cur);
    if (strcmp(up, cur) == 0)
      return 0;
    tn_strlcpy(cur, up, sizeof(cur));
  }
}

static void join_args(int argc, char **argv, char *out, size_t n)
{
  size_t used = 0;
  int i;
  out[0] = '\0';
  for (i = 0; i < argc && used + 1 < n; i++) {
    int w = snprintf(out + used, n - used, "%s%s", i ? " " : "", argv[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

/* Measures into p on GPU device.  Returns 0 or a negative code. */
static int measure(tn_calib_profile *p, int device, int reps, int warmup,
                   tn_err *err)
{
  tn_calib_gpu g;
  int rc;
  memset(&g, 0, sizeof(g));
  g.repetitions = reps;
  g.warmup = warmup;
  rc = tn_calib_open(&g, device, p, err);
  if (rc != 0)
    return rc;
  fprintf(stderr, "calibrate: GPU %d, %s (%s), %d repetitions after %d "
                  "warm-up\n",
          device, p->name, p->arch, reps, warmup);
  rc = tn_calib_measure_throughput(&g, p, err);
  if (rc == 0)
    rc = tn_calib_measure_copy_engine(&g, p, err);
  if (rc == 0)
    rc = tn_calib_sweep(&g, p, err);
  tn_calib_close(&g);
  return rc;
}

int tn_calibrate_main(int argc, char **argv)
{
  static const struct option longopts[] = {
      {"device", required_argument, NULL, 'd'},
      {"output", required_argument, NULL, 'o'},
      {"repetitions", required_argument, NULL, 'r'},
      {"warmup", required_argument, NULL, 'w'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  static tn_calib_profile p; /* large: not on the stack */
  const char *output = NULL;
  char dir[4096], path[4096], fname[256], command[4096];
  tn_err err = {{0}};
  int c, device = 0, reps = 15, warmup = 3, rc, to_dir;

  join_args(argc + 1, argv - 1, command, sizeof(command)); /* "tuner" */
  optind = 1;
  while ((c = getopt_long(argc, argv, "d:o:r:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'd':
      if (parse_int("--device", optarg, 0, 1023, &device))
        return TN_EXIT_INPUT;
      break;
    case 'o':
      if (optarg[0] == '\0' || strlen(optarg) > 3800) {
        fprintf(stderr, "tuner calibrate: --output: %s\n",
                optarg[0] ? "path too long" : "empty path; name a file or "
                                              "a folder");
        return TN_EXIT_INPUT;
      }
      output = optarg;
      break;
    case 'r':
      if (parse_int("--repetitions", optarg, 3, 1000, &reps))
        return TN_EXIT_INPUT;
      break;
    case 'w':
      if (parse_int("--warmup", optarg, 0, 1000, &warmup))
        return TN_EXIT_INPUT;
      break;
    case 'h':
      usage(stdout);
      return TN_EXIT_OK;
    default:
      fprintf(stderr, "Try 'tuner calibrate --help'.\n");
      return TN_EXIT_INPUT;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "tuner calibrate: unexpected argument '%s'; try "
                    "'tuner calibrate --help'\n",
            argv[optind]);
    return TN_EXIT_INPUT;
  }
  /* where the profile goes, checked before any GPU work */
  to_dir = output == NULL || is_dir(output) ||
           output[strlen(output) - 1] == '/';
  if (output == NULL)
    tn_strlcpy(dir, DEFAULT_DIR, sizeof(dir));
  else if (to_dir)
    tn_strlcpy(dir, output, sizeof(dir));
  else
    tn_dirname(dir, sizeof(dir), output);
  /* "results/devices/" names the folder results/devices */
  while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
    dir[strlen(dir) - 1] = '\0';
  if (!can_write_under(dir)) {
    fprintf(stderr, "tuner calibrate: cannot write the profile under "
                    "'%s': not a folder this user can write to\n",
            dir);
    return TN_EXIT_INPUT;
  }

  tn_calib_profile_init(&p);
  tn_strlcpy(p.version, TN_VERSION, sizeof(p.version));
  tn_strlcpy(p.command, command, sizeof(p.command));
  tn_utc_iso(p.date, sizeof(p.date));
  if (gethostname(p.host, sizeof(p.host)) != 0)
    tn_strlcpy(p.host, "unknown", sizeof(p.host));
  p.repetitions = reps;
  p.warmup = warmup;
  rc = measure(&p, device, reps, warmup, &err);
  if (rc != 0) {
    fprintf(stderr, "tuner calibrate: %s\n", err.msg);
    return tn_exit_status(rc);
  }
  if (to_dir) {
    tn_calib_default_name(fname, sizeof(fname), p.arch, p.name, p.date);
    rc = tn_path_join(path, sizeof(path), dir, fname) ? TN_ETOOL : 0;
  } else {
    tn_strlcpy(path, output, sizeof(path));
  }
  if (rc == 0)
    rc = tn_mkdirs(dir, &err);
  if (rc == 0)
    rc = tn_calib_write(&p, path, &err);
  if (rc != 0) {
    fprintf(stderr, "tuner calibrate: %s\n",
            err.msg[0] ? err.msg : "the profile's path is too long");
    return tn_exit_status(rc);
  }
  tn_calib_print(&p, stdout);
  fflush(stdout);
  fprintf(stderr, "tuner calibrate: profile: %s\n", path);
  return TN_EXIT_OK;
}

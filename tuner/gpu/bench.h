/* bench.h -- verification and timing on the GPU, inside a worker process.
 *
 * One job: load a candidate's CUBIN (or pick a baseline), make fresh random
 * inputs on the GPU and poison the outputs, in each buffer's element type
 * (gpu/inputs.h: the values of tn_random_elem), run once and verify
 * against the family's reference (on the GPU when the family has
 * verify_device, else read back to the host); then warm up and time
 * launches with CUDA events in chunks until bench.repetitions, racing or
 * the median's interval stops them (race.h), and report the median,
 * quartiles, min and max, with what NVML read of the clocks while they
 * ran (gpu/nvml.h).  When the buffers are smaller than twice the L2
 * cache, several copies are rotated so that timed launches do not run out
 * of the cache. */
#ifndef TN_BENCH_H
#define TN_BENCH_H

#include <stddef.h>

#include "gpu/clocks.h"
#include "gpu/expected.h"
#include "base/util.h"
#include "family/family.h"
#include "family/param.h"
#include "gpu/timing.h"

typedef struct {
  char name[128];
  char arch[16]; /* "sm_90" */
  int cc_major, cc_minor;
  int sm_count;
  long long l2_bytes;
  long long total_mem;
  int driver_version; /* 13000 for CUDA 13.0 */
  char pci_bus_id[32];
  int smem_per_block_optin;
  int ordinal;
  int device_count; /* GPUs the driver sees on this host */
  /* NVML (gpu/nvml.h): clocks_known 1 when the worker reads the clocks,
   * else clocks_why says why not; the power limit in force (mW) and the
   * greatest SM clock (MHz), 0 when unknown */
  int clocks_known;
  char clocks_why[192];
  unsigned power_limit_mw, sm_max_mhz;
} tn_device_info;

typedef enum { TN_JOB_CANDIDATE = 1, TN_JOB_BASELINE = 2 } tn_job_kind;

/* What a job came to. */
typedef enum {
  TN_BENCH_OK = 1,    /* verified (a candidate) and timed */
  TN_BENCH_WRONG = 2, /* the output differs from the reference */
  TN_BENCH_FAILED = 3 /* a launch error, crash, hang, timeout, or a
                         baseline whose library is missing */
} tn_bench_status;

typedef struct {
  tn_job_kind kind;
  char family[64];
  char kernel[256];  /* its symbol (a C++ kernel's mangled name) */
  char baseline[32]; /* for TN_JOB_BASELINE: "memcpy", "cublas", ...; a
                        baseline with a CUBIN runs its kernel */
  int candidate_id;
  tn_problem problem;
  tn_params params;
  tn_launch launch;
  tn_bench_settings bench;
  unsigned long long seed; /* of this job's random inputs */
  int full;      /* --full-protocol: every repetition, no early stop */
  int race;      /* stop_ms is valid */
  double stop_ms; /* fastest launch above it: cannot win (race.h) */
  size_t cubin_len;
  /* A fixed-inputs family's reference (tn_family.fixed_inputs): a kernel
   * of its own CUBIN, launched once per problem on these inputs, whose
   * outputs every check of the problem is compared with (cubin_len 0:
   * none). */
  tn_reference ref;
} tn_bench_job;

/* Where a job's time went inside the worker, in seconds (tn_now()). */
typedef struct {
  double setup_s;   /* buffers of a new problem, the generator compiled */
  double load_s;    /* module load and function attributes */
  double inputs_s;  /* generated inputs, poisoned outputs, copies to sets */
  double check_s;   /* the one launch that is verified */
  double verify_s;  /* the family's check of it (reference, read-back) */
  double warmup_s;  /* untimed launches */
  double timed_s;   /* timed launches, to the last event read */
  double total_s;   /* the whole job in the worker */
} tn_bench_steps;

typedef struct {
  tn_bench_status status;
  int fatal;   /* the CUDA context is lost; the worker exits after this */
  int unavailable; /* a baseline whose library is missing */
  char reason[TN_REASON_LEN];
  tn_timing timing;
  int sets;    /* buffer copies rotated while timing */
  int raced_out; /* stopped early: provably slower than the leader */
  tn_bench_steps steps;
  /* the SM clock, power and throttle reasons while the launches were
   * timed (samples 0: not read) */
  tn_clocks clocks;
} tn_bench_result;

typedef struct tn_bench tn_bench;

/* Opens device `ordinal` in this process.  Returns 0, TN_ENODEV or
 * TN_ETOOL with err. */
int tn_bench_open(int ordinal, tn_bench **b, tn_device_info *info,
                  tn_err *err);
/* Runs one job (ref_cubin: its reference's, job->ref.cubin_len bytes).
 * Always fills res; returns 0. */
int tn_bench_run(tn_bench *b, const tn_bench_job *job, const void *cubin,
                 const void *ref_cubin, tn_bench_result *res);
void tn_bench_close(tn_bench *b);

#endif

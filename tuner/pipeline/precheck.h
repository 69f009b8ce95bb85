/* precheck.h -- every input of a run checked before a worker is started or
 * a GPU touched, and the identity of a run that --resume compares.
 *
 * The order of a measured run (tune.c) is:
 *   1. tn_precheck: --arch, the space (valid for --arch, or for some known
 *      architecture), the output folders, and with --resume the results
 *      file, its journal and the part of its identity known without a GPU
 *      (the job, the template, NVRTC).  Nothing is started or written.
 *   2. the worker starts and reports its device.
 *   3. tn_precheck_device: with --resume, the device (name, PCI bus id)
 *      and the driver of the journal against the worker's; the output
 *      subfolder of the device's architecture.  Still nothing measured.
 *   4. compile (NVRTC; a template without the kernel is found here), then
 *      measure. */
#ifndef TN_PRECHECK_H
#define TN_PRECHECK_H

#include <jansson.h>

#include "pipeline/run.h"

/* what names dir in messages ("--output").  dir must be a writable folder,
 * or not exist and have a writable folder as its nearest existing
 * ancestor (it is created later like mkdir -p).  Nothing is created.
 * Returns 0 or TN_EINPUT. */
int tn_precheck_dir(const char *what, const char *dir, tn_err *err);

/* The compile cache: its key (--cache-key) read into opts, and its
 * folder.  A shared folder without a key (cache_dir.h) is refused, as is a
 * key file that cannot serve: TN_EINPUT with err.  When it cannot be used
 * (not a folder, not writable, under a file), a warning on stderr and
 * opts->use_cache = 0: the cache only saves time, and a read-only cache
 * volume must not stop a nightly run.  Returns 0 or TN_EINPUT. */
int tn_precheck_cache(tn_tune_opts *opts, tn_err *err);

/* The target a run of job compiles for on arch: the architecture-specific
 * one (sm_90a for sm_90) when the job's family needs it and NVRTC has
 * one (tn_family.arch_features), else arch (NULL stays NULL). */
const tn_arch *tn_precheck_target(const tn_job *job, const tn_arch *arch);

/* Step 1 above, for run (tn_run_init done; run->arch is not needed).
 * Also fills run->template_hash from tpl.  Returns 0 or TN_EINPUT. */
int tn_precheck(tn_run *run, const tn_template *tpl, tn_err *err);

/* Step 3 above: run->device is the worker's, run->arch picked.
 * Returns 0 or TN_EINPUT. */
int tn_precheck_device(const tn_run *run, tn_err *err);

/* The digest of tpl's text and headers into out[33]. */
void tn_precheck_template_hash(const tn_template *tpl, char out[33]);

/* What identifies run, for the journal's "run" line: the job (family,
 * name, problems with options, the space's values and constraints, the
 * bench settings that change measurements, the template), NVRTC, and the
 * device and driver when run has one. */
json_t *tn_run_identity(const tn_run *run);

#endif

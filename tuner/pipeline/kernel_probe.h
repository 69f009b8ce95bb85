/* kernel_probe.h -- what a described kernel's files define, read before
 * the space is compiled.
 *
 * One point of the space is compiled to PTX, whose .entry directives list
 * every kernel of the file with its parameters (a C++ kernel under its
 * mangled name).  The kernel the config names must be one of them, and
 * the config's arguments must match its parameters in number and in
 * kind; the reference and baseline kernels are looked up the same way.
 * A mismatch is the config's to mend: FILE:LINE and exit 2, before any
 * candidate is compiled or a GPU touched. */
#ifndef TN_KERNEL_PROBE_H
#define TN_KERNEL_PROBE_H

#include "base/arch.h"
#include "base/util.h"
#include "pipeline/job.h"

#define TN_PTX_MAX_ENTRIES 64
#define TN_PTX_MAX_PARAMS 64

typedef struct {
  char name[256];           /* as the PTX spells it (mangled for C++) */
  int n_params;
  char type[TN_PTX_MAX_PARAMS][8]; /* "u64", "f32", "b8" */
  int bytes[TN_PTX_MAX_PARAMS];
} tn_ptx_entry;

typedef struct {
  int n;
  tn_ptx_entry e[TN_PTX_MAX_ENTRIES];
} tn_ptx_entries;

/* The .entry directives of ptx.  Returns 0, or -1 if it holds more than
 * TN_PTX_MAX_ENTRIES or an entry it cannot read. */
int tn_ptx_entries_parse(const char *ptx, tn_ptx_entries *out);

/* The entry of the kernel called name: an extern "C" kernel's own name,
 * or a C++ function's (_Z<length><name>...); NULL if there is none. */
const tn_ptx_entry *tn_ptx_find(const tn_ptx_entries *es, const char *name);

/* Probes job's described kernel for arch: compiles the space's first
 * valid point (the reference's and baseline's files with the same
 * macros), finds each kernel and sets its symbol (job->user->lowered and
 * the others'), and checks the arguments against the kernel's
 * parameters.  Returns 0, TN_EINPUT (naming the config's line) or
 * TN_ETOOL. */
int tn_kernel_probe(const tn_job *job, const tn_arch *arch, tn_err *err);

#endif

/* toolkit_lib.h -- a library of the CUDA toolkit (cuBLAS, cuBLASLt)
 * opened at run time: the tuner links none of them, so a machine without
 * one still tunes what needs no baseline from it. */
#ifndef TN_TOOLKIT_LIB_H
#define TN_TOOLKIT_LIB_H

#include <stddef.h>

/* dlopen of the first of names[0 .. n - 1] the loader finds, each by name,
 * then under $CUDA_HOME/lib64 and /usr/local/cuda/lib64 (the toolkit's
 * folder, where the loader's path does not have it); NULL if none opens. */
void *tn_toolkit_lib_open(const char *const *names, int n);

/* 1 if dlopen's error for path says path itself is not there ("PATH:
 * cannot open shared object file: No such file or directory"), 0 if it
 * is there and failed (a dependency missing names the dependency). */
int tn_toolkit_lib_absent(const char *path, const char *error);

/* A function to take from the library: its name, where its address goes,
 * and whether the library may lack it (the slot then stays NULL). */
typedef struct {
  const char *name;
  void **slot;
  int optional;
} tn_toolkit_sym;

/* Opens the first of names (tn_toolkit_lib_open) and takes every symbol
 * of syms into its slot.  Returns the handle, or NULL with why: "WHAT
 * found but not loadable: DLERROR" (a file that is there and fails, such
 * as a dependency missing: the first such), "WHAT not found (NAMES) ...",
 * or "WHAT lacks SYMBOL" (the library closed, the slots NULL again). */
void *tn_toolkit_lib_load(const char *what, const char *const *names, int n,
                          const tn_toolkit_sym *syms, int n_syms, char *why,
                          size_t why_len);

#endif

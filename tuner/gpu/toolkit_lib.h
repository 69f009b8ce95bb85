/* toolkit_lib.h -- a library of the CUDA toolkit (cuBLAS, cuBLASLt)
 * opened at run time: the tuner links none of them, so a machine without
 * one still tunes what needs no baseline from it. */
#ifndef TN_TOOLKIT_LIB_H
#define TN_TOOLKIT_LIB_H

/* dlopen of the first of names[0 .. n - 1] the loader finds, each by name,
 * then under $CUDA_HOME/lib64 and /usr/local/cuda/lib64 (the toolkit's
 * folder, where the loader's path does not have it); NULL if none opens
 * (dlerror says why). */
void *tn_toolkit_lib_open(const char *const *names, int n);

#endif

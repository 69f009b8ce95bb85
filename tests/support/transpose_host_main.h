/* transpose_host_main.h -- the host program of the transpose's emulation
 * test: included after a rendered templates/transpose.cu (threads' path,
 * cache 0) and tests/support/cuda_host.h, it runs the kernel on
 *
 *   prog ROWS COLS GRID_X BLOCK_X BLOCK_Y [TRACE]
 *
 * block by block, each block's threads as OS threads (made once, each
 * taking every block in turn, a barrier between blocks), on a matrix whose
 * every byte differs from its neighbours', and compares every byte of the
 * output with the transpose.  The shared-memory accesses: host_trace.h
 * (TRACE, written empty unless built with TN_TRACE_HOST, which the test's
 * comparison then fails; with TN_TRACE_TOUCH the hooks against the
 * accesses).  Exit 0 equal, 1 with the first difference, 2 on bad
 * arguments or a trace not written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the kernel's dynamic shared memory, one block at a time */
__attribute__((aligned(16))) elem_t tile[TN_SMEM_ELEMS];

#include "host_trace.h"

struct tn_host_args {
  struct tn_host_cuda_thread self; /* first: host_trace.h walks it */
  const elem_t *in;
  elem_t *out;
  int rows, cols;
};

static void tn_host_kernel(void *arg)
{
  struct tn_host_args *a = (struct tn_host_args *)arg;
  transpose(a->in, a->out, a->rows, a->cols);
}

/* A CUDA thread: every block in turn. */
static void *tn_host_thread(void *arg)
{
  tn_host_each_block(&((struct tn_host_args *)arg)->self, tn_host_kernel,
                     arg);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc != 6 && argc != 7)
    return 2;
  int rows = atoi(argv[1]), cols = atoi(argv[2]);
  unsigned gx = (unsigned)atoi(argv[3]);
  unsigned bx = (unsigned)atoi(argv[4]), by = (unsigned)atoi(argv[5]);
  if (rows < 1 || cols < 1 || gx < 1 || bx < 1 || by < 1 ||
      bx * by > 1024)
    return 2;
  size_t n = (size_t)rows * cols, bytes = n * sizeof(elem_t);
  unsigned char *in = (unsigned char *)malloc(bytes);
  unsigned char *out = (unsigned char *)malloc(bytes);
  struct tn_host_args *args =
      (struct tn_host_args *)calloc(bx * by, sizeof(*args));
  if (!in || !out || !args)
    return 2;
  /* bytes of a multiplicative hash: an element moved to a wrong place, or
   * a byte of it, shows */
  for (size_t i = 0; i < bytes; i++)
    in[i] = (unsigned char)((i * 2654435761u) >> 13);
  memset(out, 0xa5, bytes);
  gridDim = dim3{gx, 1, 1};
  blockDim = dim3{bx, by, 1};
  tn_host_smem_bytes = sizeof(tile);
  for (unsigned t = 0; t < bx * by; t++)
    args[t] = tn_host_args{tn_host_cuda_thread{}, (const elem_t *)in,
                           (elem_t *)out, rows, cols};
  if (tn_host_run_threads(args, sizeof(*args), tn_host_thread) != 0)
    return 2;
  const size_t eb = sizeof(elem_t);
  for (size_t r = 0; r < (size_t)rows; r++)
    for (size_t c = 0; c < (size_t)cols; c++)
      if (memcmp(out + (c * rows + r) * eb, in + (r * cols + c) * eb, eb)) {
        printf("out[%zu][%zu] differs from in[%zu][%zu]\n", c, r, r, c);
        return 1;
      }
  const int rc = tn_host_finish(args, sizeof(*args),
                                argc == 7 ? argv[6] : NULL);
  if (rc != 0)
    return rc;
  printf("equal: %d x %d, %u blocks of %u x %u threads\n", rows, cols, gx,
         bx, by);
  free(in);
  free(out);
  free(args);
  return 0;
}

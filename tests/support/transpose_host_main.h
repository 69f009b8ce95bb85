/* transpose_host_main.h -- the host program of the transpose's emulation
 * test: included after a rendered templates/transpose.cu (threads' path,
 * cache 0) and tests/support/cuda_host.h, it runs the kernel on
 *
 *   prog ROWS COLS GRID_X BLOCK_X BLOCK_Y [TRACE]
 *
 * block by block, each block's threads as OS threads (made once, each
 * taking every block in turn, a barrier between blocks), on a matrix whose
 * every byte differs from its neighbours', and compares every byte of the
 * output with the transpose.  Built with TN_TRACE_HOST 1 it also writes
 * to TRACE every shared-memory access the template's hooks mark, of every
 * block: records of six 32-bit words as tests/support/drift.h's
 * tn_trace_rec, the warp numbered across the grid (block * warps per
 * block + warp) so that blocks' accesses stay apart.  Exit 0 equal, 1 with
 * the first difference, 2 on bad arguments or a trace not written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the kernel's dynamic shared memory, one block at a time */
__attribute__((aligned(16))) elem_t tile[TN_SMEM_ELEMS];

/* One hooked access, drift.h's tn_trace_rec. */
struct tn_host_rec {
  unsigned warp, seq, lane, addr, op, width;
};

struct tn_host_args {
  const elem_t *in;
  elem_t *out;
  int rows, cols;
  dim3 thread;
  /* this thread's trace (TN_TRACE_HOST), grown as it runs */
  struct tn_host_rec *trace;
  size_t n, cap;
  unsigned seq;
  int failed;
};

static thread_local struct tn_host_args *tn_host_self;
static const void *tn_host_trace_base;

#if defined(TN_TRACE_HOST) && TN_TRACE_HOST
static void tn_trace_host_base(const void *array)
{
  tn_host_trace_base = array;
}

/* Every lane calls the hook, active or not, so that a warp's lanes number
 * their accesses alike (smem_trace.h). */
static void tn_trace_host_access(unsigned op, unsigned width, const void *p,
                                 bool active)
{
  struct tn_host_args *a = tn_host_self;
  const unsigned tid = threadIdx.x + blockDim.x * threadIdx.y;
  const unsigned warps = (blockDim.x * blockDim.y + 31) / 32;
  const unsigned seq = a->seq++;
  if (!active || a->failed)
    return;
  if (a->n == a->cap) {
    size_t cap = a->cap ? 2 * a->cap : 1024;
    struct tn_host_rec *t = (struct tn_host_rec *)realloc(
        a->trace, cap * sizeof(*t));
    if (t == NULL) {
      a->failed = 1;
      return;
    }
    a->trace = t;
    a->cap = cap;
  }
  a->trace[a->n++] = tn_host_rec{
      blockIdx.x * warps + tid / 32, seq, tid % 32,
      (unsigned)((const char *)p - (const char *)tn_host_trace_base), op,
      width};
}
#endif

/* A CUDA thread: every block in turn, waiting for the whole block before
 * the next one reuses the shared tile. */
static void *tn_host_thread(void *arg)
{
  struct tn_host_args *a = (struct tn_host_args *)arg;
  threadIdx = a->thread;
  tn_host_self = a;
  for (unsigned b = 0; b < gridDim.x; b++) {
    blockIdx = dim3{b, 0, 0};
    transpose(a->in, a->out, a->rows, a->cols);
    pthread_barrier_wait(&tn_block_barrier);
  }
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
  pthread_t *threads = (pthread_t *)calloc(bx * by, sizeof(*threads));
  if (!in || !out || !args || !threads)
    return 2;
  /* bytes of a multiplicative hash: an element moved to a wrong place, or
   * a byte of it, shows */
  for (size_t i = 0; i < bytes; i++)
    in[i] = (unsigned char)((i * 2654435761u) >> 13);
  memset(out, 0xa5, bytes);
  gridDim = dim3{gx, 1, 1};
  blockDim = dim3{bx, by, 1};
  pthread_barrier_init(&tn_block_barrier, NULL, bx * by);
  for (unsigned t = 0; t < bx * by; t++) {
    args[t] = tn_host_args{(const elem_t *)in, (elem_t *)out, rows, cols,
                           dim3{t % bx, t / bx, 0}};
    if (pthread_create(&threads[t], NULL, tn_host_thread, &args[t]) != 0)
      return 2;
  }
  for (unsigned t = 0; t < bx * by; t++)
    pthread_join(threads[t], NULL);
  pthread_barrier_destroy(&tn_block_barrier);
  const size_t eb = sizeof(elem_t);
  for (size_t r = 0; r < (size_t)rows; r++)
    for (size_t c = 0; c < (size_t)cols; c++)
      if (memcmp(out + (c * rows + r) * eb, in + (r * cols + c) * eb, eb)) {
        printf("out[%zu][%zu] differs from in[%zu][%zu]\n", c, r, r, c);
        return 1;
      }
  if (argc == 7) {
    FILE *f = fopen(argv[6], "wb");
    if (f == NULL)
      return 2;
    for (unsigned t = 0; t < bx * by; t++) {
      const struct tn_host_args *a = &args[t];
      if (a->failed ||
          (a->n > 0 && fwrite(a->trace, sizeof(*a->trace), a->n, f) != a->n))
        return 2;
    }
    if (fclose(f) != 0)
      return 2;
  }
  for (unsigned t = 0; t < bx * by; t++)
    free(args[t].trace);
  printf("equal: %d x %d, %u blocks of %u x %u threads\n", rows, cols, gx,
         bx, by);
  free(in);
  free(out);
  free(args);
  free(threads);
  return 0;
}

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
 * block + warp) so that blocks' accesses stay apart; without TN_TRACE_HOST
 * TRACE is written empty (which the test's comparison then fails).
 *
 * Built with TN_TRACE_TOUCH 1 as well, and compiled with the compiler's
 * thread-sanitizer instrumentation (-fsanitize=thread -c, its run-time
 * library not linked: the __tsan_* functions below take its calls), it
 * also checks that the hooks are the accesses: every byte of the shared
 * tile each thread loads or stores, as the compiled code really does,
 * must be a byte of that thread's hooked loads or stores in that block,
 * and the other way round.  An access the template makes without a hook,
 * or a hook whose address is not its access's, fails it.
 *
 * Exit 0 equal, 1 with the first difference, 2 on bad arguments or a
 * trace not written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the kernel's dynamic shared memory, one block at a time */
__attribute__((aligned(16))) elem_t tile[TN_SMEM_ELEMS];

/* One hooked access, drift.h's tn_trace_rec. */
struct tn_host_rec {
  unsigned warp, seq, lane, addr, op, width;
};
static_assert(sizeof(struct tn_host_rec) == 24,
              "the records of tests/support/drift.h's tn_trace_rec");

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
  /* the bytes of the tile it really touched (TN_TRACE_TOUCH) */
  struct tn_host_touch *touch;
  size_t n_touch, cap_touch;
};

struct tn_host_touch {
  unsigned block, op, offset, width;
};

static thread_local struct tn_host_args *tn_host_self;

#if defined(TN_TRACE_HOST) && TN_TRACE_HOST
/* The plan's shared address 0 is the tile's first byte, which every
 * access below is taken from (the template names the same array). */
static void tn_trace_host_base(const void *array)
{
  if (array != (const void *)tile)
    tn_host_self->failed = 1;
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
      (unsigned)((const char *)p - (const char *)tile), op,
      width};
}
#endif

#if defined(TN_TRACE_TOUCH) && TN_TRACE_TOUCH
/* What the instrumentation calls must not be instrumented itself. */
#define TN_NO_TSAN __attribute__((no_sanitize_thread))

/* An access of width bytes at p by the running CUDA thread: kept where it
 * falls in the tile (the host program's own accesses, and the matrices',
 * are not the shared memory's). */
static TN_NO_TSAN void tn_host_touched(const void *p, unsigned long width,
                                       unsigned op)
{
  struct tn_host_args *a = tn_host_self;
  const char *b = (const char *)tile, *c = (const char *)p;
  if (a == NULL || c + width <= b || c >= b + sizeof(tile) || a->failed)
    return;
  if (a->n_touch == a->cap_touch) {
    size_t cap = a->cap_touch ? 2 * a->cap_touch : 1024;
    struct tn_host_touch *t = (struct tn_host_touch *)realloc(
        a->touch, cap * sizeof(*t));
    if (t == NULL) {
      a->failed = 1;
      return;
    }
    a->touch = t;
    a->cap_touch = cap;
  }
  a->touch[a->n_touch++] = tn_host_touch{blockIdx.x, op, (unsigned)(c - b),
                                         (unsigned)width};
}

extern "C" {
TN_NO_TSAN void __tsan_init(void) {}
TN_NO_TSAN void __tsan_func_entry(void *) {}
TN_NO_TSAN void __tsan_func_exit(void) {}
TN_NO_TSAN void __tsan_read_range(void *p, unsigned long n)
{
  tn_host_touched(p, n, TN_TRACE_OP_LD);
}
TN_NO_TSAN void __tsan_write_range(void *p, unsigned long n)
{
  tn_host_touched(p, n, TN_TRACE_OP_ST);
}
#define TN_TSAN_WIDTH(n)                                                     \
  TN_NO_TSAN void __tsan_read##n(void *p)                                    \
  {                                                                          \
    tn_host_touched(p, n, TN_TRACE_OP_LD);                                   \
  }                                                                          \
  TN_NO_TSAN void __tsan_write##n(void *p)                                   \
  {                                                                          \
    tn_host_touched(p, n, TN_TRACE_OP_ST);                                   \
  }                                                                          \
  TN_NO_TSAN void __tsan_unaligned_read##n(void *p)                          \
  {                                                                          \
    tn_host_touched(p, n, TN_TRACE_OP_LD);                                   \
  }                                                                          \
  TN_NO_TSAN void __tsan_unaligned_write##n(void *p)                         \
  {                                                                          \
    tn_host_touched(p, n, TN_TRACE_OP_ST);                                   \
  }
TN_TSAN_WIDTH(1)
TN_TSAN_WIDTH(2)
TN_TSAN_WIDTH(4)
TN_TSAN_WIDTH(8)
TN_TSAN_WIDTH(16)
}

/* A byte of the tile: block, op and offset in one sortable key. */
static unsigned long long tn_host_byte(unsigned block, unsigned op,
                                       unsigned offset)
{
  return (unsigned long long)block << 40 | (unsigned long long)op << 32 |
         offset;
}

static int tn_host_byte_cmp(const void *x, const void *y)
{
  unsigned long long a = *(const unsigned long long *)x;
  unsigned long long b = *(const unsigned long long *)y;
  return a < b ? -1 : a > b;
}

/* The bytes thread a hooked against the bytes it touched, as multisets;
 * 0 equal, else 1 with the first difference said. */
static int tn_host_touch_check(const struct tn_host_args *a, unsigned warps)
{
  size_t nh = 0, nt = 0, i, k;
  unsigned long long *h, *t;
  int bad = 0;
  for (i = 0; i < a->n; i++)
    nh += a->trace[i].width;
  for (i = 0; i < a->n_touch; i++)
    nt += a->touch[i].width;
  h = (unsigned long long *)malloc((nh + 1) * sizeof(*h));
  t = (unsigned long long *)malloc((nt + 1) * sizeof(*t));
  if (h == NULL || t == NULL) {
    free(h);
    free(t);
    return 1;
  }
  nh = nt = 0;
  for (i = 0; i < a->n; i++)
    for (k = 0; k < a->trace[i].width; k++)
      h[nh++] = tn_host_byte(a->trace[i].warp / warps, a->trace[i].op,
                             a->trace[i].addr + (unsigned)k);
  for (i = 0; i < a->n_touch; i++)
    for (k = 0; k < a->touch[i].width; k++)
      t[nt++] = tn_host_byte(a->touch[i].block, a->touch[i].op,
                             a->touch[i].offset + (unsigned)k);
  qsort(h, nh, sizeof(*h), tn_host_byte_cmp);
  qsort(t, nt, sizeof(*t), tn_host_byte_cmp);
  for (i = 0; i < nh || i < nt; i++) {
    unsigned long long x = i < nh ? h[i] : ~0ull, y = i < nt ? t[i] : ~0ull;
    if (x != y) {
      unsigned long long z = x < y ? x : y;
      printf("thread (%u, %u), block %llu: %s byte %llu of the tile %s\n",
             a->thread.x, a->thread.y, z >> 40,
             (z >> 32 & 0xff) == TN_TRACE_OP_LD ? "load of" : "store to",
             z & 0xffffffffull,
             x < y ? "hooked but not made" : "made without a hook");
      bad = 1;
      break;
    }
  }
  free(h);
  free(t);
  return bad;
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
#if defined(TN_TRACE_TOUCH) && TN_TRACE_TOUCH
  for (unsigned t = 0; t < bx * by; t++)
    if (args[t].failed || tn_host_touch_check(&args[t], (bx * by + 31) / 32))
      return 1;
#endif
  for (unsigned t = 0; t < bx * by; t++) {
    free(args[t].trace);
    free(args[t].touch);
  }
  printf("equal: %d x %d, %u blocks of %u x %u threads\n", rows, cols, gx,
         bx, by);
  free(in);
  free(out);
  free(args);
  free(threads);
  return 0;
}

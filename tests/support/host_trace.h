/* host_trace.h -- the shared-memory accesses of a template run on the host
 * (tests/support/cuda_host.h, a CUDA thread an OS thread), for the host
 * programs of the emulation tests (transpose_host_main.h,
 * gemm_host_main.h), included after the rendered template.
 *
 * Built with TN_TRACE_HOST 1, the template's hooks (templates/smem_trace.h)
 * come here: each thread keeps its hooked accesses as records of
 * tests/support/drift.h's tn_trace_rec, the warp numbered across the grid
 * (block * warps per block + warp, the block numbered x-fastest) so that
 * blocks' accesses stay apart, and tn_host_trace_write writes them for the
 * test to compare with the family's plan.
 *
 * Built with TN_TRACE_TOUCH 1 as well, and compiled with the compiler's
 * thread-sanitizer instrumentation (-fsanitize=thread -c, its run-time
 * library not linked: the __tsan_* functions below take its calls), each
 * thread also keeps the bytes of the shared memory its compiled code
 * really loads and stores, and tn_host_trace_finish holds them against
 * its hooked bytes in each block: an access the template makes without a
 * hook, or a hook whose bytes are not its access's, fails it.  What it
 * does not see: memset and memcpy on the shared memory (library calls or
 * inline code the instrumentation leaves alone; the templates use none),
 * other arrays than the one TN_TRACE_BASE names, and the hooks' widths
 * and order (bytes are compared); and it compares with the host's code at
 * -O1, not nvcc's (a load either removes where dead, or merges where
 * repeated, fails it).
 *
 * tn_host_poison fills the shared memory with 0xff bytes (NaN as floats)
 * between blocks, as a GPU leaves it holding garbage: a read before its
 * write shows in the output.  tn_host_run_threads, tn_host_each_block and
 * tn_host_finish run a block's threads over the grid and collect their
 * traces for both programs.  C++ (compiled as such with the template). */
#ifndef TN_HOST_TRACE_H
#define TN_HOST_TRACE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One hooked access, drift.h's tn_trace_rec. */
struct tn_host_rec {
  unsigned warp, seq, lane, addr, op, width;
};
static_assert(sizeof(struct tn_host_rec) == 24,
              "the records of tests/support/drift.h's tn_trace_rec");

/* One access the compiled code made. */
struct tn_host_touch {
  unsigned block, op, offset, width;
};

/* A thread's records, grown as it runs. */
struct tn_host_trace {
  struct tn_host_rec *rec;
  size_t n, cap;
  unsigned seq;
  int failed;
  struct tn_host_touch *touch;
  size_t n_touch, cap_touch;
};

static thread_local struct tn_host_trace *tn_host_self;
/* The block's shared memory, the plan's address 0: the first
 * TN_TRACE_BASE names it, each later one must name the same. */
static const char *tn_host_smem;
static size_t tn_host_smem_bytes; /* its size, set by the host program */
static pthread_mutex_t tn_host_smem_lock = PTHREAD_MUTEX_INITIALIZER;

/* Functions the instrumentation's calls run must not call back. */
#if defined(TN_TRACE_TOUCH) && TN_TRACE_TOUCH
#define TN_NO_TSAN __attribute__((no_sanitize_thread))
#else
#define TN_NO_TSAN
#endif

static TN_NO_TSAN unsigned tn_host_block(void)
{
  return blockIdx.x + gridDim.x * blockIdx.y;
}

/* Appends one element to *v (n of cap); 0, or -1 out of memory. */
static TN_NO_TSAN int tn_host_grow(void **v, size_t *n, size_t *cap,
                                   size_t size)
{
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 1024;
    void *t = realloc(*v, c * size);
    if (t == NULL)
      return -1;
    *v = t;
    *cap = c;
  }
  return 0;
}

/* Between blocks, by one thread while the others wait at a barrier on
 * each side: the shared memory as garbage (memset: no access recorded). */
static void tn_host_poison(void)
{
  if (tn_host_smem)
    memset((void *)tn_host_smem, 0xff, tn_host_smem_bytes);
}

#if defined(TN_TRACE_HOST) && TN_TRACE_HOST
static void tn_trace_host_base(const void *array)
{
  pthread_mutex_lock(&tn_host_smem_lock);
  if (tn_host_smem == NULL) {
    /* the first block's garbage, before any thread passes its base */
    tn_host_smem = (const char *)array;
    tn_host_poison();
  } else if (tn_host_smem != (const char *)array) {
    tn_host_self->failed = 1;
  }
  pthread_mutex_unlock(&tn_host_smem_lock);
}

/* Every lane calls the hook, active or not, so that a warp's lanes number
 * their accesses alike (smem_trace.h). */
static void tn_trace_host_access(unsigned op, unsigned width, const void *p,
                                 bool active)
{
  struct tn_host_trace *a = tn_host_self;
  const unsigned tid = threadIdx.x + blockDim.x * threadIdx.y;
  const unsigned warps = (blockDim.x * blockDim.y + 31) / 32;
  const unsigned seq = a->seq++;
  if (!active || a->failed)
    return;
  if (tn_host_smem == NULL ||
      tn_host_grow((void **)&a->rec, &a->n, &a->cap, sizeof(*a->rec))) {
    a->failed = 1;
    return;
  }
  a->rec[a->n++] = tn_host_rec{tn_host_block() * warps + tid / 32, seq,
                               tid % 32,
                               (unsigned)((const char *)p - tn_host_smem),
                               op, width};
}
#endif

#if defined(TN_TRACE_TOUCH) && TN_TRACE_TOUCH
/* An access of width bytes at p by the running CUDA thread: kept where it
 * falls in the shared memory (the host program's own accesses, and the
 * matrices', are not the shared memory's). */
static TN_NO_TSAN void tn_host_touched(const void *p, unsigned long width,
                                       unsigned op)
{
  struct tn_host_trace *a = tn_host_self;
  const char *b = tn_host_smem, *c = (const char *)p;
  if (a == NULL || b == NULL || c + width <= b ||
      c >= b + tn_host_smem_bytes || a->failed)
    return;
  if (tn_host_grow((void **)&a->touch, &a->n_touch, &a->cap_touch,
                   sizeof(*a->touch))) {
    a->failed = 1;
    return;
  }
  a->touch[a->n_touch++] = tn_host_touch{tn_host_block(), op,
                                         (unsigned)(c - b), (unsigned)width};
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

/* A byte of the shared memory: block, op and offset in one sortable key. */
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

/* The bytes thread t hooked against the bytes it touched, as multisets;
 * 0 equal, else 1 with the first difference said. */
static int tn_host_touch_check(const struct tn_host_trace *a, dim3 t,
                               unsigned warps)
{
  size_t nh = 0, nt = 0, i, k;
  unsigned long long *h, *b;
  int bad = 0;
  for (i = 0; i < a->n; i++)
    nh += a->rec[i].width;
  for (i = 0; i < a->n_touch; i++)
    nt += a->touch[i].width;
  h = (unsigned long long *)malloc((nh + 1) * sizeof(*h));
  b = (unsigned long long *)malloc((nt + 1) * sizeof(*b));
  if (h == NULL || b == NULL) {
    free(h);
    free(b);
    printf("out of memory comparing the accesses\n");
    return 1;
  }
  nh = nt = 0;
  for (i = 0; i < a->n; i++)
    for (k = 0; k < a->rec[i].width; k++)
      h[nh++] = tn_host_byte(a->rec[i].warp / warps, a->rec[i].op,
                             a->rec[i].addr + (unsigned)k);
  for (i = 0; i < a->n_touch; i++)
    for (k = 0; k < a->touch[i].width; k++)
      b[nt++] = tn_host_byte(a->touch[i].block, a->touch[i].op,
                             a->touch[i].offset + (unsigned)k);
  qsort(h, nh, sizeof(*h), tn_host_byte_cmp);
  qsort(b, nt, sizeof(*b), tn_host_byte_cmp);
  for (i = 0; i < nh || i < nt; i++) {
    unsigned long long x = i < nh ? h[i] : ~0ull, y = i < nt ? b[i] : ~0ull;
    if (x != y) {
      unsigned long long z = x < y ? x : y;
      printf("thread (%u, %u), block %llu: %s byte %llu of the shared "
             "memory %s\n",
             t.x, t.y, z >> 40,
             (z >> 32 & 0xff) == TN_TRACE_OP_LD ? "load of" : "store to",
             z & 0xffffffffull,
             x < y ? "hooked but not made" : "made without a hook");
      bad = 1;
      break;
    }
  }
  free(h);
  free(b);
  return bad;
}
#endif

/* After the threads: writes every thread's hooked accesses to path (when
 * not NULL) and, built with TN_TRACE_TOUCH, checks each thread's hooks
 * against its accesses; frees them.  threads[i] is thread i's trace,
 * ids[i] its index.  0, 1 with a difference said, 2 on a failure. */
static int tn_host_trace_finish(struct tn_host_trace *const *threads,
                                const dim3 *ids, unsigned n,
                                const char *path)
{
  const unsigned warps = (n + 31) / 32;
  unsigned t;
  int rc = 0;
  FILE *f = NULL;
  if (path) {
    f = fopen(path, "wb");
    if (f == NULL)
      rc = 2;
  }
  for (t = 0; t < n && rc == 0; t++) {
    const struct tn_host_trace *a = threads[t];
    if (a->failed) {
      printf("thread (%u, %u): its trace was not kept\n", ids[t].x,
             ids[t].y);
      rc = 2;
    } else if (f &&
               a->n > 0 && fwrite(a->rec, sizeof(*a->rec), a->n, f) != a->n)
      rc = 2;
#if defined(TN_TRACE_TOUCH) && TN_TRACE_TOUCH
    if (rc == 0 && tn_host_touch_check(a, ids[t], warps))
      rc = 1;
#endif
  }
  (void)warps;
  if (f && fclose(f) != 0 && rc == 0)
    rc = 2;
  for (t = 0; t < n; t++) {
    free(threads[t]->rec);
    free(threads[t]->touch);
  }
  return rc;
}

/* ---- A block's threads over the grid: what the host programs share ---- */

/* A CUDA thread's index and trace, the first member of a host program's
 * per-thread arguments (which the functions below walk by their size). */
struct tn_host_cuda_thread {
  dim3 id;
  struct tn_host_trace trace;
};

/* The calling OS thread as CUDA thread self: every block of the grid in
 * turn (x fastest), kernel(arg) in each, the block's barrier after it,
 * thread (0, 0) filling the shared memory with garbage before the next
 * block reuses it. */
static void tn_host_each_block(struct tn_host_cuda_thread *self,
                               void (*kernel)(void *), void *arg)
{
  threadIdx = self->id;
  tn_host_self = &self->trace;
  for (unsigned by = 0; by < gridDim.y; by++)
    for (unsigned bx = 0; bx < gridDim.x; bx++) {
      blockIdx = dim3{bx, by, 0};
      kernel(arg);
      pthread_barrier_wait(&tn_block_barrier);
      if (self->id.x == 0 && self->id.y == 0)
        tn_host_poison();
      pthread_barrier_wait(&tn_block_barrier);
    }
}

/* The thread of args + t * size, t < n. */
static struct tn_host_cuda_thread *tn_host_nth(void *args, size_t size,
                                               unsigned t)
{
  return (struct tn_host_cuda_thread *)((char *)args + (size_t)t * size);
}

/* Runs the block's blockDim.x x blockDim.y threads as OS threads, each
 * thread(args + t * size) with its index set, and waits for them all.
 * 0, or 2 if one could not start. */
static int tn_host_run_threads(void *args, size_t size,
                               void *(*thread)(void *))
{
  const unsigned bx = blockDim.x, n = blockDim.x * blockDim.y;
  pthread_t *os = (pthread_t *)calloc(n, sizeof(*os));
  unsigned t, started = 0;
  if (os == NULL)
    return 2;
  pthread_barrier_init(&tn_block_barrier, NULL, n);
  for (t = 0; t < n; t += 32)
    pthread_barrier_init(&tn_warp_barrier[t / 32], NULL,
                         n - t < 32 ? n - t : 32);
  for (t = 0; t < n; t++) {
    tn_host_nth(args, size, t)->id = dim3{t % bx, t / bx, 0};
    if (pthread_create(&os[t], NULL, thread, tn_host_nth(args, size, t)) !=
        0)
      break;
    started++;
  }
  /* a thread that did not start leaves the others at the barrier */
  if (started < n)
    return 2;
  for (t = 0; t < n; t++)
    pthread_join(os[t], NULL);
  pthread_barrier_destroy(&tn_block_barrier);
  for (t = 0; t < n; t += 32)
    pthread_barrier_destroy(&tn_warp_barrier[t / 32]);
  free(os);
  return 0;
}

/* The block's threads' traces to tn_host_trace_finish (path: TRACE, or
 * NULL), its answer; 2 without memory. */
static int tn_host_finish(void *args, size_t size, const char *path)
{
  const unsigned n = blockDim.x * blockDim.y;
  struct tn_host_trace **traces =
      (struct tn_host_trace **)calloc(n, sizeof(*traces));
  dim3 *ids = (dim3 *)calloc(n, sizeof(*ids));
  int rc = 2;
  if (traces != NULL && ids != NULL) {
    for (unsigned t = 0; t < n; t++) {
      traces[t] = &tn_host_nth(args, size, t)->trace;
      ids[t] = tn_host_nth(args, size, t)->id;
    }
    rc = tn_host_trace_finish(traces, ids, n, path);
  }
  free(traces);
  free(ids);
  return rc;
}

#endif

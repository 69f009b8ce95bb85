/* tma_host.h -- the copy engine (TMA) and its mbarriers on the host, for a
 * template run by the emulation tests (tests/support/cuda_host.h, a CUDA
 * thread an OS thread): templates/tma_ops.h includes this in place of its
 * PTX when TN_TMA_HOST is 1.  It has the loads of 2-D boxes and the
 * block's own mbarriers (what the SIMT GEMM's TMA ring issues); a
 * template that asks for more does not compile here.
 *
 * A tensor map is what the host program gives cuTensorMapEncodeTiled on
 * a GPU (tuner/family/tmap.h's description: dims, stride, box, swizzle).
 * A load copies its box at once, from the thread that issues it: elements
 * outside the tensor as zeros, each element at its dense offset in the
 * box, then the hardware's swizzle applied to the shared *address* (bits
 * 4.. of the address xor-ed with bits 7.., as the PTX ISA describes
 * SWIZZLE_32B/64B/128B), not through smem_layout.h, so that a template
 * that reads a tile by another layout than the one the copy engine
 * writes computes a wrong C.  Then the box's bytes complete on the
 * barrier.  The copy is not one of the thread's shared-memory accesses
 * (host_trace.h's touch check does not see it).
 *
 * An mbarrier keeps its state in its own 8 bytes, every operation under
 * one lock: the expected and pending arrivals, the transaction bytes
 * still to come (a copy of more than were announced aborts), the current
 * phase's parity.  A phase completes when its
 * arrivals and bytes are all in; a wait for parity P returns once the
 * current phase's parity is not P (at once for P = 1 on a new barrier, as
 * on the GPU); one still open after TN_MBAR_STUCK_S seconds aborts the
 * program (a deadlock on the GPU). */
#ifndef TN_TMA_HOST_H
#define TN_TMA_HOST_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the copy engine is no CUDA thread: its copies are not the thread's */
#define TN_TMA_HOST_UNTRACED __attribute__((no_sanitize_thread))

/* A 2-D tensor map as the host program describes it. */
struct tn_tensor_map {
  const void *base;
  unsigned elem_bytes;
  unsigned long long dims[2]; /* elements, innermost first */
  unsigned long long stride;  /* bytes from one row (dim 1) to the next */
  unsigned box[2];
  unsigned swizzle; /* bytes: 0, 32, 64 or 128 */
};

/* The state in a barrier's 8 bytes. */
struct tn_mbar_state {
  int32_t tx;       /* transaction bytes announced and not yet arrived */
  uint16_t pending; /* arrivals still to come in this phase */
  uint16_t expected_phase; /* expected arrivals << 1 | current parity */
};
static_assert(sizeof(struct tn_mbar_state) == 8, "an mbarrier's 8 bytes");

static pthread_mutex_t tn_mbar_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tn_mbar_cond = PTHREAD_COND_INITIALIZER;

static void tn_mbar_fail(const char *what)
{
  fprintf(stderr, "tma_host: %s\n", what);
  abort();
}

static inline unsigned tn_smem_u32(const void *p)
{
  return (unsigned)(uintptr_t)p;
}

static inline struct tn_mbar_state tn_mbar_get(unsigned long long *bar)
{
  struct tn_mbar_state s;
  memcpy(&s, bar, sizeof(s));
  return s;
}

static inline void tn_mbar_put(unsigned long long *bar,
                               struct tn_mbar_state s)
{
  memcpy(bar, &s, sizeof(s));
}

/* Under the lock: the phase ends once its arrivals and bytes are in. */
static inline void tn_mbar_settle(unsigned long long *bar,
                                  struct tn_mbar_state s)
{
  if (s.pending == 0 && s.tx == 0) {
    s.pending = (uint16_t)(s.expected_phase >> 1);
    s.expected_phase ^= 1;
    pthread_cond_broadcast(&tn_mbar_cond);
  }
  tn_mbar_put(bar, s);
}

static inline void tn_mbar_init(unsigned long long *bar, unsigned count)
{
  if (count < 1 || count > 1024)
    tn_mbar_fail("mbarrier.init: an arrival count not in 1..1024");
  pthread_mutex_lock(&tn_mbar_lock);
  tn_mbar_put(bar, tn_mbar_state{0, (uint16_t)count,
                                 (uint16_t)(count << 1)});
  pthread_mutex_unlock(&tn_mbar_lock);
}

static inline void tn_mbar_init_fence(void) {}

/* The host's copies are plain stores under the barriers' lock: no proxy
 * to order them with. */
static inline void tn_tma_refill_fence(void) {}

/* One arrival, with `bytes` more to come (0: a plain arrival). */
static inline void tn_mbar_arrive_tx(unsigned long long *bar, int bytes)
{
  pthread_mutex_lock(&tn_mbar_lock);
  struct tn_mbar_state s = tn_mbar_get(bar);
  if (s.pending == 0)
    tn_mbar_fail("mbarrier.arrive: more arrivals than the phase expects");
  s.pending--;
  s.tx += bytes;
  tn_mbar_settle(bar, s);
  pthread_mutex_unlock(&tn_mbar_lock);
}

static inline void tn_mbar_expect_tx(unsigned long long *bar, unsigned bytes)
{
  tn_mbar_arrive_tx(bar, (int)bytes);
}

static inline void tn_mbar_arrive(unsigned long long *bar)
{
  tn_mbar_arrive_tx(bar, 0);
}

/* A phase still open after this long is one that never completes: the
 * template's protocol is wrong (a deadlock on the GPU). */
#define TN_MBAR_STUCK_S 30

static inline void tn_mbar_wait(unsigned long long *bar, unsigned parity)
{
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += TN_MBAR_STUCK_S;
  pthread_mutex_lock(&tn_mbar_lock);
  while ((tn_mbar_get(bar).expected_phase & 1u) == (parity & 1u))
    if (pthread_cond_timedwait(&tn_mbar_cond, &tn_mbar_lock, &until) != 0)
      tn_mbar_fail("mbarrier.try_wait: a phase that never completes");
  pthread_mutex_unlock(&tn_mbar_lock);
}

/* One box of map at (c0 inner, c1 outer) into shared dst, its bytes
 * completing on bar. */
static TN_TMA_HOST_UNTRACED void tn_tma_load_2d(void *dst,
                                                const tn_tensor_map *map,
                                                int c0, int c1,
                                                unsigned long long *bar)
{
  const unsigned eb = map->elem_bytes, w = map->box[0], h = map->box[1];
  const uintptr_t d = (uintptr_t)dst;
  const unsigned mask = map->swizzle ? map->swizzle / 16 - 1 : 0;
  if (d % 128 != 0)
    tn_mbar_fail("cp.async.bulk.tensor: a shared address not 128-byte "
                 "aligned");
  if (map->swizzle && w * eb > map->swizzle)
    tn_mbar_fail("cp.async.bulk.tensor: a box row wider than its swizzle");
  for (unsigned r = 0; r < h; r++)
    for (unsigned c = 0; c < w; c++) {
      const long long x = (long long)c0 + c, y = (long long)c1 + r;
      const uintptr_t at = d + ((uintptr_t)r * w + c) * eb;
      const uintptr_t to = at ^ (((at >> 7) & mask) << 4);
      if (x >= 0 && y >= 0 && (unsigned long long)x < map->dims[0] &&
          (unsigned long long)y < map->dims[1])
        memcpy((void *)to,
               (const char *)map->base + (size_t)y * map->stride +
                   (size_t)x * eb,
               eb);
      else
        memset((void *)to, 0, eb);
    }
  pthread_mutex_lock(&tn_mbar_lock);
  struct tn_mbar_state s = tn_mbar_get(bar);
  s.tx -= (int32_t)(w * h * eb);
  /* the templates announce a phase's bytes before its copies: fewer
   * would end the phase early on the GPU */
  if (s.tx < 0)
    tn_mbar_fail("cp.async.bulk.tensor: more bytes than the barrier's "
                 "expect_tx announced");
  tn_mbar_settle(bar, s);
  pthread_mutex_unlock(&tn_mbar_lock);
}

#endif

/* test_ring_turns.c -- the wgmma GEMM's ring and ping-pong's turns
 * (templates/gemm_wg.cu) as a model, checked over every interleaving.
 *
 * The kernel's synchronisation, one block, without multicast: a producer
 * fills a ring of S buffers in order (wait_empty's parity wait, then a
 * copy whose bytes land later and complete the buffer's "full" phase);
 * the consumers wait for a fill with a parity wait on "full", read it,
 * and free the k-tile before once the next one is issued (wait_group 1),
 * the last one after the loop.  Cooperative: both consumers read every
 * k-tile and a buffer's "empty" phase needs both.  Ping-pong: consumer c
 * takes units c, c + 2, ..., skips the other's k-tiles, frees each buffer
 * alone, and starts unit i > 0 with bar.sync on its turn barrier, on
 * which the other consumer arrives (bar.arrive) once it issued unit
 * i - 1's main loop.  mbarrier parity waits pass when the phase of that
 * parity is the last completed one, which is what makes the turns needed:
 * a wait two phases early passes too.
 *
 * The search visits every state reachable by any order of the agents'
 * steps and the copies' landings, for rings of 2 to 4 buffers, 1 to 5
 * k-tiles a unit and 1 to 5 units a block, and fails on a read of a
 * buffer that holds another fill than the one waited for, and on a state
 * where nothing can move before all is done.  The same search on ping-pong
 * without its turns must find a wrong read (the test can fail).  Exits 0
 * when every check passes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define MAX_S 4

typedef struct {
  /* the ring: per buffer the fill it holds (-1 none), "full" phases
   * completed, "empty" phases completed and arrivals in the open one */
  int8_t content[MAX_S], full[MAX_S], empty[MAX_S], freed[MAX_S];
  int8_t landing[MAX_S]; /* a copy issued, its bytes not landed: its fill */
  int8_t fill;           /* the producer's next fill */
  /* consumers: unit, k-tile, and where in it (0: before the turn, 1: the
   * turn's wait, 2: waiting for k-tile kt, 3: after the loop) */
  int8_t unit[2], kt[2], at[2], seen[2];
  /* turn barriers: arrivals of the open generation, generations done */
  int8_t bar[2], gen[2];
} state;

typedef struct {
  int stages, ktiles, units, pingpong, turns;
} shape;

/* ---- The visited set: open addressing over the states' bytes. ---- */

static state *seen_states;
static size_t seen_cap, seen_n;

static uint64_t hash_state(const state *s)
{
  const unsigned char *p = (const unsigned char *)s;
  uint64_t h = 1469598103934665603ull;
  size_t i;
  for (i = 0; i < sizeof(*s); i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* 1 if s was not seen before (and records it). */
static int visit(const state *s)
{
  size_t i = (size_t)hash_state(s) & (seen_cap - 1);
  static const state empty_slot; /* all zero: no reachable state */
  while (memcmp(&seen_states[i], &empty_slot, sizeof(state)) != 0) {
    if (memcmp(&seen_states[i], s, sizeof(state)) == 0)
      return 0;
    i = (i + 1) & (seen_cap - 1);
  }
  seen_states[i] = *s;
  if (++seen_n > seen_cap / 2) {
    fprintf(stderr, "more than %zu states: the set is too small\n",
            seen_cap / 2);
    exit(1);
  }
  return 1;
}

/* ---- The kernel's steps. ---- */

/* try_wait.parity(p): passes once the phase of parity p completed, that
 * is while the phases completed so far are of the other parity. */
static int parity_passes(int completed, int p)
{
  return (completed & 1) != p;
}

static int consumers_of(const shape *sh)
{
  return sh->pingpong ? 1 : 2;
}

/* A consumer frees fill g's buffer. */
static void release(const shape *sh, state *s, int g)
{
  int b = g % sh->stages;
  if (++s->freed[b] == consumers_of(sh)) {
    s->freed[b] = 0;
    s->empty[b]++;
  }
}

/* The block's unit that consumer c takes after unit u. */
static int next_unit(const shape *sh, int u)
{
  return u + (sh->pingpong ? 2 : 1);
}

static int done(const shape *sh, const state *s)
{
  int c;
  if (s->fill < sh->units * sh->ktiles)
    return 0;
  for (c = 0; c < 2; c++)
    if (s->unit[c] < sh->units)
      return 0;
  return 1;
}

static long long wrong_reads, deadlocks, states_seen;

/* Every successor of s; returns how many steps were enabled. */
static int explore(const shape *sh, const state *s);

static void step_to(const shape *sh, const state *next)
{
  if (visit(next))
    explore(sh, next);
}

static int explore(const shape *sh, const state *s)
{
  int enabled = 0, b, c;
  state n;
  states_seen++;
  /* the producer: wait until the buffer is free for this round, then
   * issue the copy */
  if (s->fill < sh->units * sh->ktiles) {
    b = s->fill % sh->stages;
    if (parity_passes(s->empty[b], ((s->fill / sh->stages) & 1) ^ 1) &&
        s->landing[b] < 0) {
      n = *s;
      n.landing[b] = n.fill++;
      enabled++;
      step_to(sh, &n);
    }
  }
  /* a copy's bytes land: the buffer holds the fill, "full" completes */
  for (b = 0; b < sh->stages; b++)
    if (s->landing[b] >= 0) {
      n = *s;
      n.content[b] = n.landing[b];
      n.landing[b] = -1;
      n.full[b]++;
      enabled++;
      step_to(sh, &n);
    }
  for (c = 0; c < 2; c++) {
    int u = s->unit[c], g = u * sh->ktiles + s->kt[c];
    if (u >= sh->units)
      continue;
    n = *s;
    switch (s->at[c]) {
    case 0: /* the turn: unit u > 0 waits for unit u - 1's main loop */
      if (sh->pingpong && sh->turns && u > 0) {
        n.seen[c] = n.gen[c];
        if (++n.bar[c] == 2) {
          n.bar[c] = 0;
          n.gen[c]++;
        }
        n.at[c] = 1;
      } else {
        n.at[c] = 2;
      }
      break;
    case 1: /* bar.sync: until the generation it arrived in completes */
      if (s->gen[c] == s->seen[c])
        continue;
      n.at[c] = 2;
      n.seen[c] = 0;
      break;
    case 2: /* k-tile kt: its fill waited for, read; the one before freed */
      b = g % sh->stages;
      if (!parity_passes(s->full[b], (g / sh->stages) & 1))
        continue;
      if (s->content[b] != g)
        wrong_reads++;
      if (s->kt[c] > 0)
        release(sh, &n, g - 1);
      if (++n.kt[c] == sh->ktiles)
        n.at[c] = 3;
      break;
    case 3: /* the turn passed on, the last k-tile freed, the next unit */
      if (sh->pingpong && sh->turns && u + 1 < sh->units) {
        int other = 1 - c;
        if (++n.bar[other] == 2) {
          n.bar[other] = 0;
          n.gen[other]++;
        }
      }
      release(sh, &n, g - 1);
      n.unit[c] = (int8_t)next_unit(sh, u);
      n.kt[c] = 0;
      n.at[c] = 0;
      break;
    }
    enabled++;
    step_to(sh, &n);
  }
  if (enabled == 0 && !done(sh, s))
    deadlocks++;
  return enabled;
}

/* Searches one shape from the kernel's start.  Returns the wrong reads
 * plus the deadlocks found. */
static long long search(const shape *sh)
{
  state s;
  int b;
  memset(&s, 0, sizeof(s));
  for (b = 0; b < MAX_S; b++) {
    s.content[b] = -1;
    s.landing[b] = -1;
  }
  s.unit[1] = sh->pingpong ? 1 : 0;
  memset(seen_states, 0, seen_cap * sizeof(state));
  seen_n = 0;
  wrong_reads = deadlocks = states_seen = 0;
  visit(&s);
  explore(sh, &s);
  return wrong_reads + deadlocks;
}

int main(void)
{
  shape sh;
  long long total = 0, planted = 0, shapes = 0;
  seen_cap = 1u << 18;
  seen_states = calloc(seen_cap, sizeof(state));
  CHECK(seen_states != NULL);
  if (seen_states == NULL)
    TEST_DONE();
  for (sh.stages = 2; sh.stages <= MAX_S; sh.stages++)
    for (sh.ktiles = 1; sh.ktiles <= 5; sh.ktiles++)
      for (sh.units = 1; sh.units <= 5; sh.units++)
        for (sh.pingpong = 0; sh.pingpong <= 1; sh.pingpong++) {
          long long bad;
          if (sh.units * sh.ktiles > 20)
            continue; /* fill numbers fit the state's bytes with room */
          sh.turns = 1;
          bad = search(&sh);
          shapes++;
          total += states_seen;
          if (bad != 0) {
            fprintf(stderr,
                    "stages %d, k-tiles %d, units %d, %s: %lld wrong reads, "
                    "%lld deadlocks\n",
                    sh.stages, sh.ktiles, sh.units,
                    sh.pingpong ? "ping-pong" : "cooperative", wrong_reads,
                    deadlocks);
            tn_test_failures++;
          }
          if (sh.pingpong) {
            sh.turns = 0;
            search(&sh);
            planted += wrong_reads;
          }
        }
  /* without the turns, consumer 1 reads fills two phases early */
  CHECK(planted > 0);
  if (tn_test_failures == 0)
    fprintf(stderr, "ring turns: %lld shapes, %lld states searched, no "
                    "wrong read or deadlock; without the turns %lld wrong "
                    "reads\n",
            shapes, total, planted);
  free(seen_states);
  TEST_DONE();
}

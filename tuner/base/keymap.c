/* keymap.c -- a map from short arrays of integers to ints (keymap.h):
 * linear probing in a table of a power of two slots, at most half full. */
#include "base/keymap.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

struct tn_keymap {
  int width;
  size_t cap, count; /* slots (a power of two), keys held */
  long long *keys;   /* cap * width */
  int *values;       /* cap; -1: empty */
};

static size_t slot_of(const tn_keymap *m, const long long *key)
{
  return (size_t)XXH3_64bits(key, sizeof(*key) * (size_t)m->width) &
         (m->cap - 1);
}

static int make_table(tn_keymap *m, size_t cap)
{
  size_t i;
  m->keys = malloc(sizeof(*m->keys) * cap * (size_t)m->width);
  m->values = malloc(sizeof(*m->values) * cap);
  if (m->keys == NULL || m->values == NULL) {
    free(m->keys);
    free(m->values);
    return -1;
  }
  for (i = 0; i < cap; i++)
    m->values[i] = -1;
  m->cap = cap;
  m->count = 0;
  return 0;
}

tn_keymap *tn_keymap_new(int width, size_t expect)
{
  tn_keymap *m;
  size_t cap = 16;
  if (width < 1 || width > 64)
    return NULL;
  while (cap < 2 * expect && cap < ((size_t)1 << 40))
    cap *= 2;
  m = calloc(1, sizeof(*m));
  if (m == NULL)
    return NULL;
  m->width = width;
  if (make_table(m, cap) != 0) {
    free(m);
    return NULL;
  }
  return m;
}

/* The slot of key, or the empty slot where it would go. */
static size_t probe(const tn_keymap *m, const long long *key)
{
  size_t i = slot_of(m, key), w = (size_t)m->width;
  while (m->values[i] >= 0 &&
         memcmp(m->keys + i * w, key, sizeof(*key) * w) != 0)
    i = (i + 1) & (m->cap - 1);
  return i;
}

/* Doubles the table; 0, or -1 (the map stays as it was). */
static int grow(tn_keymap *m)
{
  tn_keymap bigger = *m;
  size_t i, w = (size_t)m->width;
  if (make_table(&bigger, 2 * m->cap) != 0)
    return -1;
  for (i = 0; i < m->cap; i++) {
    size_t j;
    if (m->values[i] < 0)
      continue;
    j = probe(&bigger, m->keys + i * w);
    memcpy(bigger.keys + j * w, m->keys + i * w, sizeof(*m->keys) * w);
    bigger.values[j] = m->values[i];
    bigger.count++;
  }
  free(m->keys);
  free(m->values);
  *m = bigger;
  return 0;
}

int tn_keymap_find_or_add(tn_keymap *m, const long long *key, int value)
{
  size_t i, w = (size_t)m->width;
  if (value < 0)
    return -1;
  i = probe(m, key);
  if (m->values[i] >= 0)
    return m->values[i];
  if (2 * (m->count + 1) > m->cap) {
    if (grow(m) != 0)
      return -1;
    i = probe(m, key);
  }
  memcpy(m->keys + i * w, key, sizeof(*key) * w);
  m->values[i] = value;
  m->count++;
  return -1;
}

size_t tn_keymap_count(const tn_keymap *m)
{
  return m->count;
}

void tn_keymap_free(tn_keymap *m)
{
  if (m == NULL)
    return;
  free(m->keys);
  free(m->values);
  free(m);
}

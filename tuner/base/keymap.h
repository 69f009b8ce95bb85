/* keymap.h -- a map from short arrays of integers to ints, for work done
 * once per distinct set of values: the model's pricing of the points of
 * a space that differ only in what the model does not read
 * (pipeline/space.c).  Open addressing over xxHash's XXH3. */
#ifndef TN_KEYMAP_H
#define TN_KEYMAP_H

#include <stddef.h>

typedef struct tn_keymap tn_keymap;

/* A map of keys of width integers (1 .. 64), room made for about expect
 * of them (it grows).  NULL when out of memory. */
tn_keymap *tn_keymap_new(int width, size_t expect);

/* The value of key if the map has it; else adds key with value and
 * returns -1 (also -1 when out of memory, without adding it: the caller
 * then does the work again, which is only slower).  value >= 0. */
int tn_keymap_find_or_add(tn_keymap *m, const long long *key, int value);

/* The keys the map holds. */
size_t tn_keymap_count(const tn_keymap *m);

void tn_keymap_free(tn_keymap *m);

#endif

/* fleet_configs.h -- the transpose configurations C0..C5 that the
 * synthetic fleets of the merge tests (merge_fleet.h, test_sizes_merge.c)
 * write into their results files: each as its parameters' text and JSON,
 * as the tuner writes them (vec is always 1). */
#ifndef TN_TEST_FLEET_CONFIGS_H
#define TN_TEST_FLEET_CONFIGS_H

#include <jansson.h>
#include <stdio.h>

/* tile, rows_per_thread, pad, swizzle, group */
typedef struct {
  int tile, rows;
  int pad;
  const char *swizzle;
  int group;
} cfg;

static const cfg C[] = {
    {32, 2, 1, "none", 1}, /* C0 */
    {64, 8, 1, "none", 1}, /* C1 */
    {32, 8, 0, "xor", 1},  /* C2 */
    {64, 4, 0, "xor", 8},  /* C3 */
    {16, 4, 1, "none", 1}, /* C4 */
    {64, 16, 1, "none", 8} /* C5 */
};
#define N_CFG 6

static inline void cfg_text(int i, char *out, size_t n)
{
  snprintf(out, n,
           "tile=%d rows_per_thread=%d vec=1 pad=%d swizzle=%s group=%d",
           C[i].tile, C[i].rows, C[i].pad, C[i].swizzle, C[i].group);
}

static inline json_t *cfg_json(int i)
{
  return json_pack("{s:i, s:i, s:i, s:i, s:s, s:i}", "tile", C[i].tile,
                   "rows_per_thread", C[i].rows, "vec", 1, "pad", C[i].pad,
                   "swizzle", C[i].swizzle, "group", C[i].group);
}

#endif

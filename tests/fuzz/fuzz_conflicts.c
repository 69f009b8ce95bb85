#define _POSIX_C_SOURCE 200809L
/* fuzz_conflicts.c -- libFuzzer target: any bytes as lines for
 * `tuner conflicts`.  Each line is parsed and, when it parses, priced by
 * the model; a line that parses must be priced without error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "model/conflicts.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const tn_arch *arch = tn_arch_find("sm_90");
  char *text = malloc(size + 1), *line, *save = NULL;
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  for (line = strtok_r(text, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    tn_warp_access a;
    tn_access_cost c;
    char why[256];
    int r = tn_conflicts_parse_line(line, &a, why, sizeof(why));
    if (r == 0) {
      if (tn_model_access(&a, arch, &c, why, sizeof(why)) != 0)
        abort(); /* the parser let through what the model refuses */
      if (c.wavefronts < 0 || c.wavefronts > 128 || c.degree > 32)
        abort();
    } else if (r < 0 && why[0] == '\0') {
      abort();
    }
  }
  free(text);
  return 0;
}

/* fuzz_config.c -- libFuzzer target: any bytes as a config file.  The
 * parser must answer with a job or an error message, never crash, leak or
 * read out of bounds.  Templates are resolved against the repository's
 * configs/ folder so valid inputs reach the deeper checks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/config.h"
#include "pipeline/space.h"

#ifndef TN_FUZZ_CONFIG_NAME
#define TN_FUZZ_CONFIG_NAME "configs/fuzz.cfg"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static tn_job job;
  tn_err err = {{0}};
  tn_space space;
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  if (tn_config_load_string(text, TN_FUZZ_CONFIG_NAME, &job, &err) == 0) {
    /* a config that loads goes on to the space: constraints are evaluated
     * there, on every point */
    if (tn_space_build(&job, tn_arch_find("sm_90"), &space, &err) == 0) {
      tn_space_prune(&job, &space);
      tn_space_free(&space);
    }
  } else if (err.msg[0] == '\0') {
    abort(); /* an error must say what is wrong */
  }
  free(text);
  return 0;
}

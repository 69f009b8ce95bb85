/* test_config_literals.c CONFIG... -- every config given loads with each
 * of its numbers tied to the text it was written as (config_source.c), so
 * that its range checks see what the user wrote, not libconfig's 32-bit
 * cut; a config that does not load is reported and fails too. */
#include <stdio.h>
#include <stdlib.h>

#include "pipeline/config.h"
#include "test_util.h"

int main(int argc, char **argv)
{
  int i;
  tn_job *job = malloc(sizeof(*job));
  CHECK(job != NULL);
  CHECK(argc > 1);
  for (i = 1; job && i < argc; i++) {
    tn_err err = {{0}};
    int rc = tn_config_load(argv[i], job, &err);
    if (rc != 0) {
      fprintf(stderr, "%s: does not load: %s\n", argv[i], err.msg);
      CHECK(rc == 0);
      continue;
    }
    if (!job->literals_tied)
      fprintf(stderr, "%s: numbers not tied to their text\n", argv[i]);
    CHECK(job->literals_tied);
    tn_config_free(job); /* each config's description is its own */
  }
  free(job);
  TEST_DONE();
}

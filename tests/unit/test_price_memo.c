/* test_price_memo.c -- points that differ only in parameters the model
 * does not read are priced once (pipeline/space.c): a described kernel's
 * family knows which those are, and its space, built and predicted with
 * the sharing, equals the same space with every point priced on its own.
 * Usage: test_price_memo CONFIG PARAM...: the parameters the model
 * ignores are the PARAMs (tests/fixtures/configs/cpu-user-memo.cfg:
 * read_only unroll_taps; cpu-user-memo-width.cfg, whose plan reads
 * read_only in a width: unroll_taps). */
#include <stdlib.h>
#include <string.h>

#include "pipeline/config.h"
#include "pipeline/space.h"
#include "test_util.h"

/* Builds and predicts the space of job for sm_90 into s; 0 or -1. */
static int build(const tn_job *job, tn_space *s)
{
  const tn_arch *arch = tn_arch_find("sm_90");
  tn_err err = {{0}};
  tn_profile p;
  if (tn_space_build(job, arch, s, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  tn_profile_derive(arch, NULL, &p);
  tn_space_predict(job, &p, s);
  return 0;
}

int main(int argc, char **argv)
{
  static tn_job job;
  tn_family alone;
  tn_space shared, own;
  tn_err err = {{0}};
  unsigned ignored = 0;
  int i, k, priced = 0, differ = 0;

  if (argc < 3 || tn_config_load(argv[1], &job, &err) != 0) {
    fprintf(stderr, "test_price_memo: %s\n",
            argc < 3 ? "usage: test_price_memo CONFIG PARAM..." : err.msg);
    return 1;
  }
  /* the launch, the array and the accesses read the others */
  for (i = 2; i < argc; i++) {
    int p = tn_param_index(job.family->params, job.family->n_params,
                           argv[i]);
    CHECK(p >= 0);
    if (p >= 0)
      ignored |= 1u << p;
  }
  CHECK_EQ_INT(job.family->model_ignores, ignored);
  if (build(&job, &shared) != 0)
    return 1;
  alone = *job.family;
  alone.model_ignores = 0;
  job.family = &alone;
  if (build(&job, &own) != 0)
    return 1;
  CHECK_EQ_INT(shared.n, 432);
  CHECK_EQ_INT(own.n, shared.n);
  for (i = 0; i < shared.n && i < own.n; i++) {
    const tn_candidate *a = &shared.c[i], *b = &own.c[i];
    int same = a->status == b->status && a->pruned_by == b->pruned_by &&
               strcmp(a->reason, b->reason) == 0 &&
               a->model_total == b->model_total &&
               memcmp(&a->pred_total, &b->pred_total,
                      sizeof(a->pred_total)) == 0;
    for (k = 0; k < job.n_problems; k++)
      same = same &&
             memcmp(&a->model[k], &b->model[k], sizeof(a->model[k])) == 0 &&
             memcmp(&a->pred[k], &b->pred[k], sizeof(a->pred[k])) == 0;
    if (!same && differ++ < 5)
      fprintf(stderr, "candidate %d differs\n", i);
    priced += a->status == TN_ST_PENDING;
  }
  CHECK_EQ_INT(differ, 0);
  /* the space has points to price at both sizes, with conflicts */
  CHECK(priced > 100);
  CHECK_EQ_INT(job.n_problems, 2);
  tn_space_free(&shared);
  tn_space_free(&own);
  TEST_DONE();
}

/* test_options.c -- problem options of every kind, a choice above all,
 * through everything that reads or writes them: the config (good values,
 * a wrong name and a non-string, each "FILE:LINE: problem.KEY: ..." and
 * TN_EINPUT, which the tuner exits 2 with), the results JSON both ways,
 * the comparison and the run's identity.
 *
 * No shipped family has a choice yet, so the family is built here and
 * handed to the config loader in the registry's place
 * (tn_config_load_string_family); the registry does not know it.
 *
 *   test_options DIR   DIR: tests/ of the source tree (the config names
 *                      ../templates/transpose.cu from there) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "family/family.h"
#include "pipeline/config.h"
#include "pipeline/precheck.h"
#include "test_util.h"

static const char *const types[] = {"f32", "bf16", "f16"};
static const tn_option_desc options[] = {
    {"trans", TN_OPT_BOOL, 0, 0, 1, "a boolean", NULL, 0},
    {"alpha", TN_OPT_NUMBER, 1.0, -10, 10, "a number", NULL, 0},
    {"dtype", TN_OPT_CHOICE, 1, 0, 0, "a choice", types, 3},
};
enum { OPT_TRANS, OPT_ALPHA, OPT_DTYPE };
static const tn_param_desc params[] = {
    {"tile", TN_PARAM_INT, 0, 1, 64, 32, "a size", 0},
};
static const tn_family fam = {
    .name = "choicetest",
    .kernel = "k",
    .params = params,
    .n_params = 1,
    .n_dims = 2,
    .dim_names = "rows, cols",
    .options = options,
    .n_options = 3,
};

static char cfg_name[4096];

/* A config of fam whose problem group ends with `extra` (line 5 on). */
static int load(const char *extra, const tn_family *f, tn_job *job,
                tn_err *err)
{
  char text[1024];
  snprintf(text, sizeof(text),
           "family = \"choicetest\";\n"
           "template = \"../templates/transpose.cu\";\n"
           "problem = {\n"
           "  sizes = [64, 64];\n"
           "%s"
           "};\n"
           "space = { tile = [32]; };\n",
           extra);
  memset(err, 0, sizeof(*err));
  if (f == NULL)
    return tn_config_load_string(text, cfg_name, job, err);
  return tn_config_load_string_family(text, cfg_name, f, job, err);
}

/* The load fails with TN_EINPUT and "NAME:LINE: text". */
static void expect_error(const char *extra, const tn_family *f, int line,
                         const char *text)
{
  static tn_job job;
  tn_err err;
  char want[4400];
  int rc = load(extra, f, &job, &err);
  snprintf(want, sizeof(want), "%s:%d: %s", cfg_name, line, text);
  CHECK_EQ_INT(rc, TN_EINPUT);
  if (strstr(err.msg, want) == NULL) {
    fprintf(stderr, "  got '%s'\n  expected '%s'\n", err.msg, want);
    CHECK(0);
  }
}

static void check_config(void)
{
  static tn_job job;
  tn_err err;
  int rc;

  /* left out: the default, an index */
  rc = load("", &fam, &job, &err);
  if (rc != 0)
    fprintf(stderr, "  %s\n", err.msg);
  CHECK_EQ_INT(rc, 0);
  CHECK(job.n_problems == 1 && job.problems[0].opt[OPT_DTYPE] == 1);
  /* each name, its index */
  rc = load("  dtype = \"f16\";\n  trans = true;\n", &fam, &job, &err);
  CHECK_EQ_INT(rc, 0);
  CHECK(job.problems[0].opt[OPT_DTYPE] == 2);
  CHECK(job.problems[0].opt[OPT_TRANS] == 1);
  rc = load("  dtype = \"f32\";\n", &fam, &job, &err);
  CHECK_EQ_INT(rc, 0);
  CHECK(job.problems[0].opt[OPT_DTYPE] == 0);
  /* the run's identity (what --resume compares) names the choice */
  {
    tn_run run;
    json_t *id;
    const char *probs;
    rc = load("  dtype = \"bf16\";\n", &fam, &job, &err);
    CHECK_EQ_INT(rc, 0);
    memset(&run, 0, sizeof(run));
    run.job = &job;
    id = tn_run_identity(&run);
    probs = json_string_value(json_object_get(id, "problems"));
    CHECK(probs && strstr(probs, "dtype=bf16") != NULL);
    if (probs)
      fprintf(stderr, "  identity's problems: %s\n", probs);
    json_decref(id);
  }

  /* a wrong name, on its own line, then more lines: that line */
  expect_error("  alpha = 2.0;\n  dtype = \"fp8\";\n  trans = false;\n",
               &fam, 6,
               "problem.dtype: 'fp8' is not one of: f32, bf16, f16");
  expect_error("  dtype = \"BF16\";\n", &fam, 5,
               "problem.dtype: 'BF16' is not one of: f32, bf16, f16");
  expect_error("  dtype = \"\";\n", &fam, 5,
               "problem.dtype: '' is not one of: f32, bf16, f16");
  expect_error("  dtype = 2;\n", &fam, 5,
               "problem.dtype: expected a string, one of: f32, bf16, f16");
  expect_error("  dtype = [\"f16\"];\n", &fam, 5,
               "problem.dtype: expected a string, one of: f32, bf16, f16");
  /* the registry does not have the test's family */
  expect_error("", NULL, 1, "family: unknown 'choicetest'");
}

/* prob written as JSON and read back into a problem of its defaults. */
static int round_trip(const tn_problem *prob, tn_problem *back, char *why,
                      size_t n, json_t **written)
{
  json_t *o = json_object();
  char *text;
  int rc;
  tn_problem_options_json(&fam, prob, o);
  text = json_dumps(o, JSON_SORT_KEYS);
  json_decref(o);
  o = json_loads(text, 0, NULL);
  free(text);
  tn_problem_defaults(&fam, back);
  back->size = prob->size;
  rc = tn_problem_options_from_json(&fam, o, back, why, n);
  *written = o;
  return rc;
}

static void expect_json_error(const char *text, const char *want)
{
  json_t *o = json_loads(text, 0, NULL);
  tn_problem p;
  char why[512] = "";
  CHECK(o != NULL);
  tn_problem_defaults(&fam, &p);
  CHECK_EQ_INT(tn_problem_options_from_json(&fam, o, &p, why, sizeof(why)),
               -1);
  if (strcmp(why, want) != 0) {
    fprintf(stderr, "  got '%s'\n  expected '%s'\n", why, want);
    CHECK(0);
  }
  json_decref(o);
}

static void check_json(void)
{
  tn_problem p, back, other;
  char why[512];
  json_t *o;
  int k;

  tn_problem_defaults(&fam, &p);
  p.size.n_dims = 2;
  p.size.dims[0] = p.size.dims[1] = 64;
  p.opt[OPT_TRANS] = 1;
  p.opt[OPT_ALPHA] = -2.5;
  for (k = 0; k < 3; k++) {
    p.opt[OPT_DTYPE] = k;
    CHECK_EQ_INT(round_trip(&p, &back, why, sizeof(why), &o), 0);
    /* written as the name */
    CHECK(json_is_string(json_object_get(o, "dtype")) &&
          strcmp(json_string_value(json_object_get(o, "dtype")), types[k]) ==
              0);
    CHECK(json_is_true(json_object_get(o, "trans")));
    CHECK(tn_problem_equal(&fam, &p, &back));
    json_decref(o);
  }
  /* the comparison tells choices apart */
  other = p;
  other.opt[OPT_DTYPE] = 0;
  CHECK(!tn_problem_equal(&fam, &p, &other));
  /* an index that is no name (a bug) is written as null, which the
   * reader refuses rather than read a wrong type */
  p.opt[OPT_DTYPE] = 3;
  CHECK_EQ_INT(round_trip(&p, &back, why, sizeof(why), &o), -1);
  CHECK(json_is_null(json_object_get(o, "dtype")));
  json_decref(o);

  expect_json_error("{\"trans\": false, \"alpha\": 1, \"dtype\": \"fp8\"}",
                    "dtype: 'fp8' is not one of: f32, bf16, f16");
  expect_json_error("{\"trans\": false, \"alpha\": 1, \"dtype\": 1}",
                    "dtype: expected a string, one of: f32, bf16, f16");
  expect_json_error("{\"trans\": false, \"alpha\": 1}", "dtype: missing");
  expect_json_error("{\"trans\": 1, \"alpha\": 1, \"dtype\": \"f16\"}",
                    "trans: expected true or false");
  expect_json_error("{\"trans\": true, \"alpha\": 11, \"dtype\": \"f16\"}",
                    "alpha: 11 is out of range [-10, 10]");

  /* the helpers */
  CHECK_EQ_INT(tn_option_choice_index(&options[OPT_DTYPE], "bf16"), 1);
  CHECK_EQ_INT(tn_option_choice_index(&options[OPT_DTYPE], "bf"), -1);
  CHECK(tn_option_choice_name(&options[OPT_DTYPE], 0.5) == NULL);
  CHECK(tn_option_choice_name(&options[OPT_DTYPE], -1) == NULL);
  CHECK(tn_option_choice_name(&options[OPT_DTYPE], 1e300) == NULL);
  CHECK(strcmp(tn_option_choice_name(&options[OPT_DTYPE], 2), "f16") == 0);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_options TESTS_DIR\n");
    return 2;
  }
  snprintf(cfg_name, sizeof(cfg_name), "%s/choice.cfg", argv[1]);
  fprintf(stderr, "config\n");
  check_config();
  fprintf(stderr, "json\n");
  check_json();
  TEST_DONE();
}

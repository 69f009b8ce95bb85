/* test_user_eval.c -- a described kernel's expressions on a point
 * (family/user_eval.c): the block's threads reach the grid, the dynamic
 * shared memory, the arrays of the plan and the scalar arguments, which
 * the worker is handed as prepare() checked them; a swizzle parameter
 * reads as its place in the space's list there, and one that needs an
 * array to resolve against has one; names that cannot be known where they
 * stand are refused when the config is read. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "family/family.h"
#include "family/user_eval.h"
#include "pipeline/config.h"
#include "test_util.h"

/* A config whose launch and plan read `threads`, with `extra` appended;
 * loaded as a description (its .cu file is not read). */
static int load(const char *launch, const char *extra, tn_job *job,
                tn_err *err)
{
  char text[2048];
  snprintf(text, sizeof(text),
           "name = \"ev\";\n"
           "kernel = { file = \"ev.cu\"; name = \"ev\"; };\n"
           "problem = { dims = [\"n\"]; sizes = ( [4096] ); };\n"
           "space = { bx = [64, 128]; swz = [\"xor\", \"none\"]; };\n"
           "%s\n"
           "arguments = (\n"
           "  { name = \"y\"; buffer = \"fp32\"; count = \"n\";\n"
           "    output = true; },\n"
           "  { name = \"t\"; scalar = \"int32\"; value = \"threads + swz\"; }\n"
           ");\n"
           "plan = {\n"
           "  arrays = ( { name = \"a\"; elem = 4; rows = \"threads / 32\";\n"
           "               cols = 32; swizzle = \"swz\"; } );\n"
           "  accesses = ( { name = \"r\"; array = \"a\"; op = \"ld\";\n"
           "                 width = 4; row = \"warp\"; col = \"lane\"; } );\n"
           "};\n"
           "%s",
           launch, extra);
  memset(err, 0, sizeof(*err));
  return tn_config_load_description(text, "ev.cfg", job, err);
}

static const char *const good_launch =
    "launch = { block = \"bx\"; grid = \"n / threads\";\n"
    "           smem = \"threads * 4\"; };";

/* Point (bx value i, swz value j) of job. */
static tn_params point(const tn_job *job, int i, int j)
{
  tn_params p;
  memset(&p, 0, sizeof(p));
  p.v[0] = job->values[0].values[i];
  p.v[1] = job->values[1].values[j];
  return p;
}

static void check_point(const tn_job *job, int i, int j, int threads)
{
  const tn_family *f = job->family;
  tn_params p = point(job, i, j);
  tn_launch l;
  tn_args args;
  tn_devptr bufs[1] = {0};
  char why[512] = "";
  int t = -1;

  CHECK_EQ_INT(f->prepare(f, &p, &job->problems[0], why, sizeof(why)), 0);
  if (why[0])
    fprintf(stderr, "prepare: %s\n", why);
  f->launch(f, &p, &job->problems[0], &l);
  CHECK_EQ_INT(l.threads, threads);
  CHECK_EQ_INT(l.grid[0], 4096 / threads);   /* n / threads */
  CHECK_EQ_INT(l.smem_dynamic, threads * 4); /* threads * 4 */
  /* the array, static: threads / 32 rows of 32 floats */
  CHECK_EQ_INT(l.smem_static, threads * 4);
  memset(&args, 0, sizeof(args));
  f->args(f, &p, &job->problems[0], bufs, &args);
  CHECK_EQ_INT(args.n, 2);
  memcpy(&t, args.storage[1], sizeof(t));
  CHECK_EQ_INT(t, threads + j); /* swz: "xor" is 0, "none" 1 */
}

/* A config that must be refused, naming line and text. */
static void check_refused(const char *launch, const char *extra,
                          const char *line, const char *text)
{
  tn_job job;
  tn_err err;
  int rc = load(launch, extra, &job, &err);
  CHECK_EQ_INT(rc, TN_EINPUT);
  if (strstr(err.msg, line) == NULL || strstr(err.msg, text) == NULL) {
    fprintf(stderr, "expected '%s' and '%s' in: %s\n", line, text, err.msg);
    tn_test_failures++;
  }
  if (rc == 0)
    tn_config_free(&job);
}

/* A swizzle parameter that no array of the plan names: cute(B,M,S)
 * stands alone; xor and sw128 have no width to take B, M, S from, and the
 * point says so instead of compiling as no swizzle. */
static void check_unresolved(void)
{
  static const char *const text =
      "kernel = { file = \"ev.cu\"; name = \"ev\"; };\n"
      "problem = { dims = [\"n\"]; sizes = ( [4096] ); };\n"
      "space = { s = [\"cute(3,3,3)\", \"sw128\", \"xor\"]; };\n"
      "launch = { block = 64; grid = \"n / threads\"; };\n"
      "arguments = ( { name = \"y\"; buffer = \"fp32\"; count = \"n\";\n"
      "                output = true; } );\n";
  tn_job job;
  tn_err err;
  int j;
  memset(&err, 0, sizeof(err));
  if (tn_config_load_description(text, "sw.cfg", &job, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    tn_test_failures++;
    return;
  }
  for (j = 0; j < 3; j++) {
    tn_params p;
    char why[512] = "";
    int rc;
    memset(&p, 0, sizeof(p));
    p.v[0] = job.values[0].values[j];
    rc = job.family->prepare(job.family, &p, &job.problems[0], why,
                             sizeof(why));
    CHECK_EQ_INT(rc, j == 0 ? 0 : 1);
    if (j > 0 && strstr(why, "needs an array of the plan") == NULL) {
      fprintf(stderr, "point %d: %s\n", j, why);
      tn_test_failures++;
    }
  }
  tn_config_free(&job);
}

int main(void)
{
  tn_job job;
  tn_err err;
  int rc = load(good_launch, "", &job, &err);

  CHECK_EQ_INT(rc, 0);
  if (rc != 0) {
    fprintf(stderr, "%s\n", err.msg);
    TEST_DONE();
  }
  check_point(&job, 0, 0, 64);
  check_point(&job, 1, 1, 128);
  check_point(&job, 1, 0, 128);
  tn_config_free(&job);

  check_unresolved();

  /* the block cannot read its own size; smem_bytes is the constraints' */
  check_refused("launch = { block = \"threads\"; grid = 1; };", "",
                "ev.cfg:5:", "a block's size cannot read threads");
  check_refused("launch = { block = \"bx\"; grid = 1;\n"
                "           smem = \"smem_bytes\"; };",
                "", "ev.cfg:6:", "smem_bytes is known to the constraints");
  check_refused(good_launch, "baseline = { copy = \"threads * n\"; };\n",
                "ev.cfg:18:", "of the problem's dimensions alone");
  check_refused(good_launch, "baseline = { copy = \"bx * n\"; };\n",
                "ev.cfg:18:", "it names the parameter bx");
  check_refused(good_launch, "rate = { work = \"n * threads\"; "
                "unit = \"GB/s\"; };\n",
                "ev.cfg:18:", "threads is not known here");
  TEST_DONE();
}

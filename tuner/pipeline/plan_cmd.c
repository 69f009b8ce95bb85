/* plan_cmd.c -- `tuner plan`: a described kernel's declared plan priced
 * per access and per launch (plan_cmd.h), as text or as JSON; the
 * pricing is plan_price.c's. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/plan_cmd.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "base/util.h"
#include "family/user_eval.h"
#include "pipeline/config.h"
#include "pipeline/plan_price.h"
#include "pipeline/space.h"

#define SCHEMA "tuner-plan-1"

/* What the whole command works on. */
typedef struct {
  const tn_job *job;
  const tn_user_kernel *u;
  const tn_arch *arch;
  tn_space space;
  int kinds_used[TN_KIND_COUNT]; /* a kind some access is counted under */
} plan_ctx;

static void usage(FILE *out)
{
  fprintf(out,
"Usage: tuner plan --config FILE [--arch sm_XX] [--ids LIST] [--json]\n"
"\n"
"Prices the shared-memory plan a config declares for its own kernel\n"
"(its `plan` group; docs/kernels.md), as the run's model does, one\n"
"declared access at a time.  For every valid point of the space (or the\n"
"ids given) and every problem it prints, per launch, each access's\n"
"warp-level shared-memory instructions executed and wavefronts, under the\n"
"kind Nsight Compute counts them by: ld (LDS), st (STS), ldsm (ldmatrix),\n"
"stsm (stmatrix), ldgsts (cp.async); then the launch's totals by kind.\n"
"Every block is priced as the first.  No GPU is asked.\n"
"scripts/plan_vs_ncu.py compares these numbers with Nsight Compute on a\n"
"GPU, launch by launch (docs/plan-check.md).\n"
"\n"
"  -c, --config FILE  a config that describes its kernel and declares a\n"
"                     plan\n"
"  -a, --arch sm_XX   the architecture whose limits decide which points\n"
"                     are valid (default %s)\n"
"  -i, --ids LIST     only these points: ids as in a results file (the\n"
"                     position in the space's enumeration, from 0), as\n"
"                     1,4,7-9\n"
"  -j, --json         one JSON document on stdout (schema " SCHEMA ")\n"
"  -h, --help         this text\n"
"  -V, --version      the version\n"
"\n"
"Exit status: 0; 2 for bad input (an option, the config, a config\n"
"without a plan, an id that is not a valid point); 1 when the output\n"
"cannot be written.\n",
          TN_DEFAULT_ARCH);
}

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Marks in want[] the ids of text ("1,4,7-9"), each below n.  0, or -1
 * with why. */
static int parse_ids(const char *text, int n, unsigned char *want,
                     char *why, size_t wn)
{
  const char *p = text;
  while (*p) {
    char *end;
    long lo, hi;
    errno = 0;
    if (!isdigit((unsigned char)*p))
      goto bad;
    lo = strtol(p, &end, 10);
    hi = lo;
    if (*end == '-') {
      if (!isdigit((unsigned char)end[1]))
        goto bad;
      hi = strtol(end + 1, &end, 10);
    }
    if (errno != 0 || (*end != ',' && *end != '\0') || hi < lo)
      goto bad;
    if (hi >= n) {
      snprintf(why, wn, "--ids: %ld is not an id of the space (its points "
                        "are 0 to %d)",
               hi, n - 1);
      return -1;
    }
    for (; lo <= hi; lo++)
      want[lo] = 1;
    p = *end == ',' ? end + 1 : end;
    if (*end == ',' && *p == '\0')
      goto bad;
  }
  return 0;
bad:
  snprintf(why, wn, "--ids: '%s' is not a list of ids such as 1,4,7-9",
           text);
  return -1;
}

/* The launch of another kernel of the user's (l), run with the default
 * point's values, on problem k.  0, or -1 with why. */
static int other_launch(const tn_user_kernel *u, const tn_ulaunch *l,
                        const tn_params *def, const tn_problem *prob,
                        tn_launch *out, char *why, size_t n)
{
  long long slots[TN_USLOT_COUNT];
  int smem = 0;
  memset(out, 0, sizeof(*out));
  tn_user_slots(u, def, prob, slots);
  if (tn_user_eval_launch(l, slots, out->grid, out->block, &smem, why, n))
    return -1;
  out->threads = (int)(out->block[0] * out->block[1] * out->block[2]);
  out->smem_dynamic = smem;
  return 0;
}

static json_t *launch_json(const tn_launch *l)
{
  return json_pack("{s:[iii], s:[iii], s:i}", "grid", (int)l->grid[0],
                   (int)l->grid[1], (int)l->grid[2], "block",
                   (int)l->block[0], (int)l->block[1], (int)l->block[2],
                   "smem_dynamic", l->smem_dynamic);
}

static json_t *count_json(const tn_plan_count *c)
{
  return json_pack("{s:I, s:I}", "insts", (json_int_t)c->insts,
                   "wavefronts", (json_int_t)c->wavefronts);
}

/* reference or baseline: which kernel, and its launch on every problem
 * (the default point's, for the default reference).  NULL with why when
 * a launch does not evaluate. */
static json_t *other_json(const plan_ctx *pc, const char *kind,
                          const tn_uother *o, const tn_candidate *def,
                          char *why, size_t n)
{
  const tn_job *job = pc->job;
  json_t *doc = json_pack("{s:s}", "kind", kind), *launches = json_array();
  int k;
  if (strcmp(kind, "none") == 0 || strcmp(kind, "copy") == 0) {
    json_decref(launches);
    return doc;
  }
  if (o != NULL)
    json_object_update_new(doc, json_pack("{s:s, s:s, s:i}", "kernel",
                                          o->kernel, "file", o->file,
                                          "config_line", o->line));
  else
    json_object_update_new(doc, json_pack("{s:s, s:s, s:i, s:i}", "kernel",
                                          pc->u->kernel, "file",
                                          pc->u->file, "config_line",
                                          pc->u->kernel_line, "id",
                                          def->id));
  for (k = 0; k < job->n_problems; k++) {
    tn_launch l;
    if (o == NULL) {
      job->family->launch(job->family, &def->params, &job->problems[k], &l);
    } else if (other_launch(pc->u, &o->launch, &def->params,
                            &job->problems[k], &l, why, n) != 0) {
      json_decref(doc);
      json_decref(launches);
      return NULL;
    }
    json_array_append_new(launches, launch_json(&l));
  }
  json_object_set_new(doc, "launch", launches);
  return doc;
}

static json_t *accesses_json(const plan_ctx *pc)
{
  json_t *a = json_array();
  int i, j;
  for (i = 0; i < pc->u->n_accesses; i++) {
    const tn_uaccess *x = &pc->u->accesses[i];
    json_t *lines = json_array();
    for (j = 0; j < x->n_src_lines; j++)
      json_array_append_new(lines, json_integer(x->src_line[j]));
    json_array_append_new(
        a, json_pack("{s:i, s:s, s:s, s:i, s:s, s:s, s:s, s:o, s:o}",
                     "index", i, "name", x->name, "config", x->file,
                     "config_line", x->line, "array",
                     pc->u->arrays[x->array].name, "op", tn_plan_op_name(x->op),
                     "kind", tn_model_ncu_kind_name(tn_plan_access_kind(x)),
                     /* a width of the point's: its expression */
                     "width", x->width ? json_integer(x->width)
                                       : json_string(x->width_expr.text),
                     "kernel_lines", lines));
  }
  return a;
}

static json_t *point_json(const plan_ctx *pc, const tn_candidate *c,
                          char *why, size_t n)
{
  const tn_job *job = pc->job;
  const tn_family *f = job->family;
  json_t *per = json_array();
  char text[512];
  int k, i;
  for (k = 0; k < job->n_problems; k++) {
    tn_plan_priced p;
    json_t *acc = json_array(), *kinds = json_object(), *size = json_array();
    int d;
    if (tn_plan_price(pc->job, pc->arch, c, k, &p, why, n) != 0) {
      json_decref(acc);
      json_decref(kinds);
      json_decref(size);
      json_decref(per);
      return NULL;
    }
    for (i = 0; i < pc->u->n_accesses; i++)
      json_array_append_new(acc, count_json(&p.access[i]));
    for (i = 0; i < TN_KIND_COUNT; i++)
      json_object_set_new(kinds, tn_model_ncu_kind_name((tn_ncu_kind)i),
                          count_json(&p.kind[i]));
    for (d = 0; d < job->problems[k].size.n_dims; d++)
      json_array_append_new(size,
                            json_integer(job->problems[k].size.dims[d]));
    json_array_append_new(
        per, json_pack("{s:i, s:o, s:o, s:I, s:o, s:o}", "problem", k,
                       "size", size, "launch", launch_json(&p.launch),
                       "blocks", (json_int_t)p.blocks, "accesses", acc,
                       "kinds", kinds));
  }
  tn_params_format(f->params, f->n_params, &c->params, text, sizeof(text));
  return json_pack("{s:i, s:o, s:s, s:o}", "id", c->id, "params",
                   tn_params_json(f, &c->params), "params_text", text,
                   "per_problem", per);
}

/* Writes "KEY": VALUE, and frees value.  0, or -1 when it cannot. */
static int put(const char *key, json_t *value, const char *sep)
{
  char *s;
  int rc;
  if (value == NULL)
    return -1;
  s = json_dumps(value,
                 JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
  json_decref(value);
  if (s == NULL)
    return -1;
  rc = printf("\"%s\": %s%s", key, s, sep) < 0 ? -1 : 0;
  free(s);
  return rc;
}

/* The document, a point at a time (a space of 100,000 points is not held
 * as one JSON tree).  0, TN_EINPUT or TN_ETOOL with why. */
static int write_json(const plan_ctx *pc, const unsigned char *want,
                      const tn_candidate *def, int valid, char *why,
                      size_t n)
{
  const tn_job *job = pc->job;
  const tn_user_kernel *u = pc->u;
  json_t *dims = json_array(), *probs = json_array(), *kinds = json_array();
  json_t *ref, *base;
  int i, k, first = 1;

  for (i = 0; i < u->n_dims; i++)
    json_array_append_new(dims, json_string(u->dim_names[i]));
  for (k = 0; k < job->n_problems; k++) {
    json_t *size = json_array();
    for (i = 0; i < job->problems[k].size.n_dims; i++)
      json_array_append_new(size,
                            json_integer(job->problems[k].size.dims[i]));
    json_array_append_new(probs, json_pack("{s:o}", "size", size));
  }
  for (i = 0; i < TN_KIND_COUNT; i++)
    json_array_append_new(kinds,
                          json_string(tn_model_ncu_kind_name((tn_ncu_kind)i)));
  ref = u->ref_kind == TN_UREF_KERNEL
            ? other_json(pc, "kernel", &u->reference, def, why, n)
            : other_json(pc, "default", NULL, def, why, n);
  base = other_json(pc,
                    u->base_kind == TN_UBASE_KERNEL ? "kernel"
                    : u->base_kind == TN_UBASE_COPY ? "copy"
                                                    : "none",
                    &u->baseline, def, why, n);
  if (ref == NULL || base == NULL) {
    json_decref(ref);
    json_decref(base);
    json_decref(dims);
    json_decref(probs);
    json_decref(kinds);
    return TN_EINPUT;
  }
  if (printf("{\"schema\": \"%s\", ", SCHEMA) < 0 ||
      put("config", json_string(job->path), ", ") ||
      put("name", json_string(job->name), ", ") ||
      put("arch", json_string(pc->arch->name), ", ") ||
      put("kernel", json_pack("{s:s, s:s, s:i}", "name", u->kernel, "file",
                              u->file, "config_line", u->kernel_line),
          ",\n") ||
      put("reference", ref, ",\n") || put("baseline", base, ",\n") ||
      put("dims", dims, ", ") || put("problems", probs, ",\n") ||
      put("kinds", kinds, ",\n") ||
      put("accesses", accesses_json(pc), ",\n") ||
      put("space", json_pack("{s:i, s:i}", "points", pc->space.n, "valid",
                             valid),
          ",\n") ||
      printf("\"points\": [") < 0) {
    snprintf(why, n, "standard output: %s", strerror(errno));
    return TN_ETOOL;
  }
  for (i = 0; i < pc->space.n; i++) {
    const tn_candidate *c = &pc->space.c[i];
    json_t *o;
    char *s;
    if (c->status != TN_ST_PENDING || (want && !want[i]))
      continue;
    o = point_json(pc, c, why, n);
    if (o == NULL)
      return TN_ETOOL;
    s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(o);
    if (s == NULL || printf("%s\n%s", first ? "" : ",", s) < 0) {
      free(s);
      snprintf(why, n, "standard output: %s", strerror(errno));
      return TN_ETOOL;
    }
    free(s);
    first = 0;
  }
  if (printf("]}\n") < 0) {
    snprintf(why, n, "standard output: %s", strerror(errno));
    return TN_ETOOL;
  }
  return 0;
}

/* "conv2d.cu:34,35", or "-" when the access names no line. */
static void src_lines_text(const tn_user_kernel *u, const tn_uaccess *x,
                           char *out, size_t n)
{
  size_t used;
  int j;
  if (x->n_src_lines == 0) {
    snprintf(out, n, "-");
    return;
  }
  used = (size_t)snprintf(out, n, "%s:", base_name(u->file));
  for (j = 0; j < x->n_src_lines && used < n; j++)
    used += (size_t)snprintf(out + used, n - used, "%s%d", j ? "," : "",
                             x->src_line[j]);
}

static int write_text(const plan_ctx *pc, const unsigned char *want,
                      int valid, char *why, size_t n)
{
  const tn_job *job = pc->job;
  const tn_family *f = job->family;
  const tn_user_kernel *u = pc->u;
  int i, k, a, w = 6, wc = 6, wl = 6;
  char where[TN_USER_PATH + 16], lines[128];

  for (a = 0; a < u->n_accesses; a++) {
    const tn_uaccess *x = &u->accesses[a];
    int len = (int)strlen(x->name);
    w = len > w ? len : w;
    len = snprintf(where, sizeof(where), "%s:%d", base_name(x->file),
                   x->line);
    wc = len > wc ? len : wc;
    src_lines_text(u, x, lines, sizeof(lines));
    len = (int)strlen(lines);
    wl = len > wl ? len : wl;
  }
  printf("# %s on %s: %d of %d points valid, %d problem%s\n"
         "# per launch: warp-level shared-memory instructions executed and\n"
         "# wavefronts, by the kind Nsight Compute counts them under;\n"
         "# every block priced as the first\n",
         job->path, pc->arch->name, valid, pc->space.n, job->n_problems,
         job->n_problems == 1 ? "" : "s");
  for (i = 0; i < pc->space.n; i++) {
    const tn_candidate *c = &pc->space.c[i];
    char text[512];
    if (c->status != TN_ST_PENDING || (want && !want[i]))
      continue;
    tn_params_format(f->params, f->n_params, &c->params, text,
                     sizeof(text));
    printf("\nid %d  %s\n", c->id, text);
    for (k = 0; k < job->n_problems; k++) {
      tn_plan_priced p;
      char size[128];
      if (tn_plan_price(pc->job, pc->arch, c, k, &p, why, n) != 0)
        return TN_ETOOL;
      tn_size_format(&job->problems[k].size, size, sizeof(size));
      printf("  %s: grid %ux%ux%u, block %ux%ux%u, %lld blocks\n", size,
             p.launch.grid[0], p.launch.grid[1], p.launch.grid[2],
             p.launch.block[0], p.launch.block[1], p.launch.block[2],
             p.blocks);
      printf("    %-*s  %-*s  %-*s  %-6s  %14s  %14s\n", w, "access", wc,
             "config", wl, "kernel", "kind", "instructions", "wavefronts");
      for (a = 0; a < u->n_accesses; a++) {
        const tn_uaccess *x = &u->accesses[a];
        snprintf(where, sizeof(where), "%s:%d", base_name(x->file),
                 x->line);
        src_lines_text(u, x, lines, sizeof(lines));
        printf("    %-*s  %-*s  %-*s  %-6s  %14lld  %14lld\n", w, x->name,
               wc, where, wl, lines,
               tn_model_ncu_kind_name(tn_plan_access_kind(x)),
               p.access[a].insts, p.access[a].wavefronts);
      }
      for (a = 0; a < TN_KIND_COUNT; a++)
        if (pc->kinds_used[a])
          printf("    %-*s  %-*s  %-*s  %-6s  %14lld  %14lld\n", w,
                 "launch", wc, "", wl, "",
                 tn_model_ncu_kind_name((tn_ncu_kind)a), p.kind[a].insts,
                 p.kind[a].wavefronts);
    }
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    snprintf(why, n, "standard output: %s", strerror(errno));
    return TN_ETOOL;
  }
  return 0;
}

/* Refuses an id asked for that is no valid point, with the reason the
 * space gives.  0, or -1 with why. */
static int check_wanted(const tn_space *sp, const unsigned char *want,
                        const char *arch, char *why, size_t n)
{
  int i;
  for (i = 0; want && i < sp->n; i++)
    if (want[i] && sp->c[i].status != TN_ST_PENDING) {
      snprintf(why, n, "--ids: point %d is not valid on %s: %s", i, arch,
               sp->c[i].reason[0] ? sp->c[i].reason : "(no reason)");
      return -1;
    }
  return 0;
}

int tn_plan_cmd_main(int argc, char **argv)
{
  static const struct option longopts[] = {
      {"config", required_argument, NULL, 'c'},
      {"arch", required_argument, NULL, 'a'},
      {"ids", required_argument, NULL, 'i'},
      {"json", no_argument, NULL, 'j'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  const char *config = NULL, *ids = NULL;
  tn_space first;
  plan_ctx pc;
  tn_job *job = NULL;
  tn_err err = {{0}};
  unsigned char *want = NULL;
  const tn_candidate *def = NULL;
  char why[TN_REASON_LEN + 256];
  int c, i, rc, json = 0, valid = 0, status = TN_EXIT_INPUT;

  memset(&pc, 0, sizeof(pc));
  memset(&first, 0, sizeof(first));
  optind = 1;
  while ((c = getopt_long(argc, argv, "c:a:i:jhV", longopts, NULL)) != -1) {
    switch (c) {
    case 'c':
      config = optarg;
      break;
    case 'a':
      pc.arch = tn_arch_find(optarg);
      if (pc.arch == NULL) {
        char list[256];
        tn_arch_list(list, sizeof(list));
        fprintf(stderr, "tuner plan: --arch %s: unknown (known: %s)\n",
                optarg, list);
        return TN_EXIT_INPUT;
      }
      break;
    case 'i':
      ids = optarg;
      break;
    case 'j':
      json = 1;
      break;
    case 'h':
      usage(stdout);
      return TN_EXIT_OK;
    case 'V':
      printf("tuner %s\n", TN_VERSION);
      return TN_EXIT_OK;
    default:
      fprintf(stderr, "Try 'tuner plan --help'.\n");
      return TN_EXIT_INPUT;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "tuner plan: unexpected argument '%s'; try 'tuner plan "
                    "--help'\n",
            argv[optind]);
    return TN_EXIT_INPUT;
  }
  if (config == NULL) {
    fprintf(stderr, "tuner plan: --config FILE is required; try 'tuner "
                    "plan --help'\n");
    return TN_EXIT_INPUT;
  }
  if (pc.arch == NULL)
    pc.arch = tn_arch_find(TN_DEFAULT_ARCH);
  job = calloc(1, sizeof(*job));
  if (job == NULL) {
    fprintf(stderr, "tuner plan: out of memory\n");
    return TN_EXIT_TOOL;
  }
  rc = tn_config_load(config, job, &err);
  if (rc) {
    fprintf(stderr, "tuner plan: %s\n", err.msg);
    status = tn_exit_status(rc);
    goto done;
  }
  pc.job = job;
  pc.u = job->user;
  if (pc.u == NULL) {
    fprintf(stderr, "tuner plan: %s: the family %s is the tuner's own: its "
                    "access plan is written in C (tuner/family/), not "
                    "declared in the config; `tuner plan` prices the plan "
                    "a config declares for its own kernel "
                    "(docs/kernels.md)\n",
            config, job->family->name);
    goto done;
  }
  if (!pc.u->has_plan) {
    fprintf(stderr, "tuner plan: %s: the config declares no plan: add a "
                    "`plan` group (the kernel's shared arrays and its warp "
                    "accesses to them, docs/kernels.md) to price it and "
                    "check it against the GPU\n",
            config);
    goto done;
  }
  for (i = 0; i < pc.u->n_accesses; i++)
    pc.kinds_used[tn_plan_access_kind(&pc.u->accesses[i])] = 1;
  /* the default point (a default reference's, and the point a reference
   * or baseline kernel is launched with): the first the space's rules
   * take on any architecture, as pipeline/kernel_probe.c finds it */
  rc = tn_space_build(job, NULL, &first, &err);
  if (rc == 0)
    rc = tn_space_build(job, pc.arch, &pc.space, &err);
  if (rc) {
    fprintf(stderr, "tuner plan: %s\n", err.msg);
    status = tn_exit_status(rc);
    goto done;
  }
  for (i = 0; i < first.n && def == NULL; i++)
    if (first.c[i].status == TN_ST_PENDING)
      def = &first.c[i];
  valid = tn_space_count(&pc.space, TN_ST_PENDING);
  if (ids) {
    want = calloc((size_t)pc.space.n, 1);
    if (want == NULL) {
      fprintf(stderr, "tuner plan: out of memory\n");
      status = TN_EXIT_TOOL;
      goto done;
    }
    if (parse_ids(ids, pc.space.n, want, why, sizeof(why)) != 0 ||
        check_wanted(&pc.space, want, pc.arch->name, why, sizeof(why)) != 0) {
      fprintf(stderr, "tuner plan: %s\n", why);
      goto done;
    }
  }
  why[0] = '\0';
  rc = json ? write_json(&pc, want, def, valid, why, sizeof(why))
            : write_text(&pc, want, valid, why, sizeof(why));
  fflush(stdout);
  if (rc != 0) {
    fprintf(stderr, "tuner plan: %s: %s\n", config, why);
    status = tn_exit_status(rc);
    goto done;
  }
  status = TN_EXIT_OK;
done:
  free(want);
  tn_space_free(&first);
  tn_space_free(&pc.space);
  if (job)
    tn_config_free(job);
  free(job);
  return status;
}

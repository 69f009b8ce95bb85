/* space.c -- the candidates of a job: enumeration, constraints, limits and
 * pruning by the model. */
#include "pipeline/space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/expr.h"

typedef struct {
  const tn_family *f;
  const tn_params *p;
  const tn_launch *l;
} lookup_ctx;

/* Values of names in constraints: parameters (a swizzle is 0 for none,
 * else 1), threads per block and shared-memory bytes per block. */
static int lookup(void *vctx, const char *name, long long *value)
{
  lookup_ctx *c = vctx;
  int k = tn_param_index(c->f->params, c->f->n_params, name);
  if (k >= 0) {
    if (c->f->params[k].kind == TN_PARAM_SWIZZLE)
      *value = c->p->v[k].sw.kind != TN_SWZ_NONE;
    else
      *value = c->p->v[k].i;
    return 0;
  }
  if (strcmp(name, "threads") == 0) {
    *value = c->l->threads;
    return 0;
  }
  if (strcmp(name, "smem_bytes") == 0) {
    *value = tn_launch_smem(c->l);
    return 0;
  }
  return -1;
}

static void prune(tn_candidate *c, tn_pruned_by by, const char *fmt,
                  const char *a, const char *b)
{
  c->status = TN_ST_PRUNED;
  c->pruned_by = by;
  snprintf(c->reason, sizeof(c->reason), fmt, a, b);
}

/* Checks the launch against the architecture; 0 if it fits. */
static int check_limits(const tn_launch *l, const tn_arch *arch, char *why,
                        size_t n)
{
  if (l->min_cc > 10 * arch->major + arch->minor) {
    snprintf(why, n, "%s needs sm_%d or later, not %s",
             l->needs ? l->needs : "the code", l->min_cc, arch->name);
    return 1;
  }
  if (l->arch_features &&
      (!arch->features || l->min_cc != 10 * arch->major + arch->minor)) {
    snprintf(why, n, "%s needs sm_%da (the architecture-specific features "
                     "of sm_%d, which no other architecture has), not %s",
             l->needs ? l->needs : "the code", l->min_cc, l->min_cc,
             arch->name);
    return 1;
  }
  if (l->threads > arch->max_threads_per_block) {
    snprintf(why, n, "%d threads per block exceed %s's %d", l->threads,
             arch->name, arch->max_threads_per_block);
    return 1;
  }
  if (l->smem_static > arch->smem_static_max) {
    snprintf(why, n, "%d bytes of static shared memory exceed %s's %d",
             l->smem_static, arch->name, arch->smem_static_max);
    return 1;
  }
  if (tn_launch_smem(l) > arch->smem_per_block) {
    snprintf(why, n, "%d bytes of shared memory per block exceed %s's %d",
             tn_launch_smem(l), arch->name, arch->smem_per_block);
    return 1;
  }
  return 0;
}

/* Applies rules, constraints and limits to one candidate; computes its
 * model.  Returns 0, or TN_EINPUT when a constraint cannot be evaluated. */
static int classify(const tn_job *job, const tn_arch *arch, tn_candidate *c,
                    tn_err *err)
{
  const tn_family *f = job->family;
  char why[TN_REASON_LEN], ptxt[512];
  int k, i;

  for (k = 0; k < job->n_problems; k++) {
    if (f->prepare(&c->params, &job->problems[k], why, sizeof(why)) != 0) {
      prune(c, TN_BY_FAMILY, "%s%s", why, "");
      return 0;
    }
  }
  f->launch(&c->params, &job->problems[0], &c->launch);
  for (i = 0; i < job->n_constraints; i++) {
    lookup_ctx lc = {f, &c->params, &c->launch};
    long long v;
    if (tn_expr_eval(job->constraints[i], lookup, &lc, &v, why,
                     sizeof(why)) != 0) {
      tn_params_format(f->params, f->n_params, &c->params, ptxt,
                       sizeof(ptxt));
      return tn_errf(err, TN_EINPUT, "%s:%d: constraint \"%s\" for %s: %s",
                     job->constraint_files[i], job->constraint_lines[i],
                     job->constraints[i],
                     ptxt, why);
    }
    if (!v) {
      prune(c, TN_BY_CONSTRAINT, "constraint \"%s\" is false%s",
            job->constraints[i], "");
      return 0;
    }
  }
  if (arch == NULL)
    return 0; /* checking the input only */
  for (k = 0; k < job->n_problems; k++) {
    tn_launch l;
    f->launch(&c->params, &job->problems[k], &l);
    if (check_limits(&l, arch, why, sizeof(why)) != 0) {
      prune(c, TN_BY_LIMITS, "%s%s", why, "");
      return 0;
    }
  }
  c->model_total = 0;
  for (k = 0; k < job->n_problems; k++) {
    if (tn_family_model(f, &c->params, &job->problems[k], arch, &c->model[k],
                        why, sizeof(why)) != 0)
      return tn_errf(err, TN_ETOOL,
                     "%s: the access plan of candidate %d is malformed: %s",
                     f->name, c->id, why);
    c->model_total += c->model[k].ld_wavefronts + c->model[k].st_wavefronts;
  }
  return 0;
}

int tn_space_build(const tn_job *job, const tn_arch *arch, tn_space *space,
                   tn_err *err)
{
  const tn_family *f = job->family;
  long long total = 1;
  int idx[TN_MAX_PARAMS] = {0};
  int i, k, rc, valid = 0;

  memset(space, 0, sizeof(*space));
  for (k = 0; k < f->n_params; k++) {
    total *= job->values[k].n;
    if (total > TN_MAX_CANDIDATES)
      return tn_errf(err, TN_EINPUT,
                     "%s:%d: space: more than %d points; list fewer values",
                     job->space_file, job->space_line, TN_MAX_CANDIDATES);
  }
  space->c = calloc((size_t)total, sizeof(tn_candidate));
  if (space->c == NULL)
    return tn_errf(err, TN_ETOOL, "out of memory for %lld candidates", total);
  space->n = (int)total;

  for (i = 0; i < space->n; i++) {
    tn_candidate *c = &space->c[i];
    c->id = i;
    c->status = TN_ST_PENDING;
    /* the last parameter varies fastest, so siblings sit together */
    for (k = 0; k < f->n_params; k++)
      c->params.v[k] = job->values[k].values[idx[k]];
    for (k = f->n_params - 1; k >= 0; k--) {
      if (++idx[k] < job->values[k].n)
        break;
      idx[k] = 0;
    }
    rc = classify(job, arch, c, err);
    if (rc) {
      tn_space_free(space);
      return rc;
    }
    if (c->status == TN_ST_PENDING)
      valid++;
  }
  if (valid == 0) {
    const char *why = space->n > 0 ? space->c[0].reason : "";
    rc = tn_errf(err, TN_EINPUT,
                 "%s:%d: space: no point of the space is valid%s%s (the "
                 "first one: %s)",
                 job->space_file, job->space_line, arch ? " for " : "",
                 arch ? arch->name : "", why);
    tn_space_free(space);
    return rc;
  }
  return 0;
}

/* Same values of every non-layout parameter. */
static int siblings(const tn_family *f, const tn_candidate *a,
                    const tn_candidate *b)
{
  int k;
  for (k = 0; k < f->n_params; k++)
    if (!f->params[k].is_layout && a->params.v[k].i != b->params.v[k].i)
      return 0;
  return 1;
}

/* Orders candidates by their non-layout parameters, so that siblings (the
 * same values of all of those) are adjacent; qsort has no context pointer,
 * hence the file-level family. */
static const tn_family *sort_family;
static const tn_candidate *sort_base;

static int cmp_siblings(const void *pa, const void *pb)
{
  const tn_candidate *a = &sort_base[*(const int *)pa];
  const tn_candidate *b = &sort_base[*(const int *)pb];
  int k;
  for (k = 0; k < sort_family->n_params; k++) {
    if (sort_family->params[k].is_layout)
      continue;
    if (a->params.v[k].i != b->params.v[k].i)
      return a->params.v[k].i < b->params.v[k].i ? -1 : 1;
  }
  return a->id < b->id ? -1 : a->id > b->id;
}

/* 1 if a is no dearer than b at every size: pruning b for a then loses no
 * size's winner (a layout cheaper in total may be dearer at one size). */
static int cheaper_everywhere(const tn_job *job, const tn_candidate *a,
                              const tn_candidate *b)
{
  int k;
  for (k = 0; k < job->n_problems; k++)
    if (a->model[k].ld_wavefronts + a->model[k].st_wavefronts >
        b->model[k].ld_wavefronts + b->model[k].st_wavefronts)
      return 0;
  return 1;
}

int tn_space_prune(const tn_job *job, tn_space *space)
{
  const tn_family *f = job->family;
  int *order = malloc(sizeof(int) * (size_t)(space->n ? space->n : 1));
  int i, start, n = 0, pruned = 0;

  if (order == NULL)
    return 0; /* pruning is an optimisation: without memory, run all */
  for (i = 0; i < space->n; i++)
    if (space->c[i].status == TN_ST_PENDING)
      order[n++] = i;
  sort_family = f;
  sort_base = space->c;
  qsort(order, (size_t)n, sizeof(int), cmp_siblings);

  for (start = 0; start < n;) {
    int end = start + 1, best = order[start];
    char sib[512];
    while (end < n && siblings(f, &space->c[order[start]],
                               &space->c[order[end]]))
      end++;
    for (i = start; i < end; i++)
      if (space->c[order[i]].model_total < space->c[best].model_total)
        best = order[i];
    tn_params_format(f->params, f->n_params, &space->c[best].params, sib,
                     sizeof(sib));
    for (i = start; i < end; i++) {
      tn_candidate *c = &space->c[order[i]];
      if (!(space->c[best].model_total < c->model_total) ||
          !cheaper_everywhere(job, &space->c[best], c))
        continue;
      c->status = TN_ST_PRUNED;
      c->pruned_by = TN_BY_MODEL;
      snprintf(c->reason, sizeof(c->reason),
               "%lld shared-memory wavefronts per launch against %lld "
               "for candidate %d (%s)",
               c->model_total, space->c[best].model_total, best, sib);
      pruned++;
    }
    start = end;
  }
  free(order);
  return pruned;
}

void tn_space_check_registers(tn_space *space, const tn_arch *arch)
{
  int i;
  for (i = 0; i < space->n; i++) {
    tn_candidate *c = &space->c[i];
    long long need = (long long)c->regs * c->launch.threads;
    if (c->status != TN_ST_COMPILED || need <= arch->regs_per_sm)
      continue;
    c->status = TN_ST_FAILED;
    snprintf(c->reason, sizeof(c->reason),
             "too many resources: %d registers x %d threads exceed %s's %d "
             "per SM",
             c->regs, c->launch.threads, arch->name, arch->regs_per_sm);
  }
}

int tn_space_count(const tn_space *space, tn_status st)
{
  int i, n = 0;
  for (i = 0; i < space->n; i++)
    n += space->c[i].status == st;
  return n;
}

void tn_space_free(tn_space *space)
{
  int i;
  for (i = 0; i < space->n; i++) {
    free(space->c[i].log);
    free(space->c[i].cubin);
  }
  free(space->c);
  space->c = NULL;
  space->n = 0;
}

static const char *const status_names[] = {
    "pending", "pruned", "compile_error", "compiled",
    "ok",      "wrong_result", "failed"};

const char *tn_status_name(tn_status st)
{
  return (unsigned)st < 7 ? status_names[st] : "?";
}

int tn_status_parse(const char *name)
{
  int i;
  for (i = 0; i < 7; i++)
    if (strcmp(status_names[i], name) == 0)
      return i;
  return -1;
}

const char *tn_pruned_by_name(tn_pruned_by by)
{
  switch (by) {
  case TN_BY_FAMILY:
    return "family";
  case TN_BY_CONSTRAINT:
    return "constraint";
  case TN_BY_LIMITS:
    return "limits";
  case TN_BY_MODEL:
    return "model";
  default:
    return "";
  }
}

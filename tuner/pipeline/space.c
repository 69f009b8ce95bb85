/* space.c -- the candidates of a job: enumeration, constraints, limits and
 * pruning by the model. */
#include "pipeline/space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/expr.h"
#include "base/keymap.h"
#include "family/user_kernel.h"

/* The job's constraints, compiled once for the whole space: a name is a
 * slot (family/user_expr.h's layout): the parameters (a swizzle reads 0
 * for none, else 1), threads and shared-memory bytes per block, and a
 * described kernel's dimensions. */
typedef struct {
  int n;
  tn_expr *code[TN_MAX_CONSTRAINTS];
  int per_problem; /* some constraint reads a dimension */
} constraint_set;

static int constraint_slot(void *vctx, const char *name)
{
  const tn_family *f = vctx;
  int k = tn_param_index(f->params, f->n_params, name);
  if (k >= 0)
    return TN_USLOT_PARAM0 + k;
  if (strcmp(name, "threads") == 0)
    return TN_USLOT_THREADS;
  if (strcmp(name, "smem_bytes") == 0)
    return TN_USLOT_SMEM;
  if (f->impl) {
    const tn_user_kernel *u = tn_user_of(f);
    for (k = 0; k < u->n_dims; k++)
      if (strcmp(u->dim_names[k], name) == 0)
        return TN_USLOT_DIM0 + k;
  }
  return -1;
}

static void constraints_free(constraint_set *cs)
{
  int i;
  for (i = 0; i < cs->n; i++)
    tn_expr_free(cs->code[i]);
  cs->n = 0;
}

static int constraints_compile(const tn_job *job, constraint_set *cs,
                               tn_err *err)
{
  int i, d;
  memset(cs, 0, sizeof(*cs));
  for (i = 0; i < job->n_constraints; i++) {
    char why[256];
    if (tn_expr_compile(job->constraints[i], constraint_slot,
                        (void *)job->family, &cs->code[i], why,
                        sizeof(why)) != 0) {
      constraints_free(cs);
      return tn_errf(err, TN_EINPUT, "%s:%d: constraint \"%s\": %s",
                     job->constraint_files[i], job->constraint_lines[i],
                     job->constraints[i], why);
    }
    cs->n = i + 1;
    for (d = 0; d < TN_MAX_DIMS; d++)
      cs->per_problem |= tn_expr_uses(cs->code[i], TN_USLOT_DIM0 + d);
  }
  return 0;
}

/* Points that differ only in parameters the model does not read
 * (tn_family.model_ignores) share one pricing: the first of them is
 * priced, the others copy it.  The key is the values of the parameters
 * it reads. */
typedef struct {
  tn_keymap *map; /* NULL: every point is priced on its own */
  int n, param[TN_MAX_PARAMS];
} price_memo;

static void memo_init(price_memo *m, const tn_family *f, int points)
{
  int k;
  memset(m, 0, sizeof(*m));
  if (f->model_ignores == 0 || points < 2)
    return;
  for (k = 0; k < f->n_params; k++)
    if (!(f->model_ignores & (1u << k)))
      m->param[m->n++] = k;
  /* a model that reads no parameter: one key for all */
  m->map = tn_keymap_new(m->n > 0 ? m->n : 1, (size_t)points / 4);
}

/* The index of the point priced like c (with the same values of every
 * parameter the model reads) if there is one; else -1, and c is that
 * point for those after it. */
static int memo_find(price_memo *m, const tn_candidate *c, int index)
{
  long long key[TN_MAX_PARAMS] = {0};
  int j;
  if (m->map == NULL)
    return -1;
  for (j = 0; j < m->n; j++)
    key[j] = c->params.v[m->param[j]].i;
  return tn_keymap_find_or_add(m->map, key, index);
}

static void memo_free(price_memo *m)
{
  tn_keymap_free(m->map);
  m->map = NULL;
}

static void prune(tn_candidate *c, tn_pruned_by by, const char *text)
{
  c->status = TN_ST_PRUNED;
  c->pruned_by = by;
  tn_candidate_set_reason(c, "%s", text);
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

/* Applies rules, constraints and limits to candidate i of space;
 * computes its model, or copies that of the point memo says is priced
 * alike.  Returns 0, or TN_EINPUT when a constraint cannot be evaluated. */
static int classify(const tn_job *job, const tn_arch *arch,
                    const constraint_set *cs, tn_space *space, int i_c,
                    price_memo *memo, tn_err *err)
{
  tn_candidate *c = &space->c[i_c];
  const tn_family *f = job->family;
  char why[TN_REASON_LEN], ptxt[512];
  int k, i;

  for (k = 0; k < job->n_problems; k++) {
    if (f->prepare(f, &c->params, &job->problems[k], why, sizeof(why)) != 0) {
      prune(c, TN_BY_FAMILY, why);
      return 0;
    }
  }
  f->launch(f, &c->params, &job->problems[0], &c->launch);
  for (k = 0; k < (cs->per_problem ? job->n_problems : 1); k++) {
    long long slots[TN_USLOT_COUNT];
    tn_launch lk = c->launch;
    memset(slots, 0, sizeof(slots));
    for (i = 0; i < f->n_params; i++)
      slots[TN_USLOT_PARAM0 + i] =
          f->params[i].kind == TN_PARAM_SWIZZLE
              ? c->params.v[i].sw.kind != TN_SWZ_NONE
              : c->params.v[i].i;
    for (i = 0; i < job->problems[k].size.n_dims; i++)
      slots[TN_USLOT_DIM0 + i] = job->problems[k].size.dims[i];
    if (k > 0)
      f->launch(f, &c->params, &job->problems[k], &lk);
    slots[TN_USLOT_THREADS] = lk.threads;
    slots[TN_USLOT_SMEM] = tn_launch_smem(&lk);
    for (i = 0; i < cs->n; i++) {
      long long v;
      if (tn_expr_run(cs->code[i], slots, &v, why, sizeof(why)) != 0) {
        tn_params_format(f->params, f->n_params, &c->params, ptxt,
                         sizeof(ptxt));
        return tn_errf(err, TN_EINPUT, "%s:%d: constraint \"%s\" for %s: %s",
                       job->constraint_files[i], job->constraint_lines[i],
                       job->constraints[i], ptxt, why);
      }
      if (!v) {
        c->status = TN_ST_PRUNED;
        c->pruned_by = TN_BY_CONSTRAINT;
        tn_candidate_set_reason(c, "constraint \"%s\" is false",
                                job->constraints[i]);
        return 0;
      }
    }
  }
  if (arch == NULL)
    return 0; /* checking the input only */
  for (k = 0; k < job->n_problems; k++) {
    tn_launch l;
    f->launch(f, &c->params, &job->problems[k], &l);
    if (check_limits(&l, arch, why, sizeof(why)) != 0) {
      prune(c, TN_BY_LIMITS, why);
      return 0;
    }
  }
  i = memo_find(memo, c, i_c);
  if (i >= 0) {
    const tn_candidate *same = &space->c[i];
    for (k = 0; k < job->n_problems; k++)
      c->model[k] = same->model[k];
    c->model_total = same->model_total;
    return 0;
  }
  c->model_total = 0;
  for (k = 0; k < job->n_problems; k++) {
    if (tn_family_model(f, &c->params, &job->problems[k], arch, &c->model[k],
                        why, sizeof(why)) != 0) {
      if (f->impl == NULL)
        return tn_errf(err, TN_ETOOL,
                       "%s: the access plan of candidate %d is malformed: "
                       "%s",
                       f->name, c->id, why);
      /* a described kernel's plan is the user's to mend */
      tn_params_format(f->params, f->n_params, &c->params, ptxt,
                       sizeof(ptxt));
      return tn_errf(err, TN_EINPUT, "%s (for %s on problem %d)", why, ptxt,
                     k);
    }
    c->model_total += c->model[k].ld_wavefronts + c->model[k].st_wavefronts;
  }
  return 0;
}

int tn_space_build(const tn_job *job, const tn_arch *arch, tn_space *space,
                   tn_err *err)
{
  const tn_family *f = job->family;
  double points = 1; /* 16 parameters of 1024 values overflow an integer */
  long long total;
  int idx[TN_MAX_PARAMS] = {0};
  int i, k, rc, valid = 0;
  constraint_set cs;
  price_memo memo;

  memset(space, 0, sizeof(*space));
  for (k = 0; k < f->n_params; k++)
    points *= job->values[k].n;
  if (points > TN_MAX_CANDIDATES) {
    char counts[TN_MAX_PARAMS * 8];
    size_t used = 0;
    counts[0] = '\0';
    for (k = 0; k < f->n_params; k++)
      used += (size_t)snprintf(counts + used, sizeof(counts) - used, "%s%d",
                               k ? " x " : "", job->values[k].n);
    return tn_errf(err, TN_EINPUT,
                   "%s:%d: space: %.0f points (%s values), more than the "
                   "%d a run takes (each needs about 1 KB before it is "
                   "compiled); list fewer values",
                   job->space_file, job->space_line, points, counts,
                   TN_MAX_CANDIDATES);
  }
  total = (long long)points;
  rc = constraints_compile(job, &cs, err);
  if (rc)
    return rc;
  space->c = calloc((size_t)total, sizeof(tn_candidate));
  if (space->c == NULL) {
    constraints_free(&cs);
    return tn_errf(err, TN_ETOOL, "out of memory for %lld candidates", total);
  }
  space->n = (int)total;
  space->arch = arch;
  memo_init(&memo, f, arch ? space->n : 0);
  if (tn_candidates_per_problem(space->c, space->n, job->n_problems,
                                &space->per_problem) != 0) {
    memo_free(&memo);
    constraints_free(&cs);
    tn_space_free(space);
    return tn_errf(err, TN_ETOOL, "out of memory for %lld candidates of %d "
                                  "problems",
                   total, job->n_problems);
  }

  for (i = 0; i < space->n; i++) {
    tn_candidate *c = &space->c[i];
    c->id = i;
    c->status = TN_ST_PENDING;
    c->reason = "";
    /* the last parameter varies fastest, so siblings sit together */
    for (k = 0; k < f->n_params; k++)
      c->params.v[k] = job->values[k].values[idx[k]];
    for (k = f->n_params - 1; k >= 0; k--) {
      if (++idx[k] < job->values[k].n)
        break;
      idx[k] = 0;
    }
    rc = classify(job, arch, &cs, space, i, &memo, err);
    if (rc) {
      constraints_free(&cs);
      memo_free(&memo);
      tn_space_free(space);
      return rc;
    }
    if (c->status == TN_ST_PENDING)
      valid++;
  }
  constraints_free(&cs);
  memo_free(&memo);
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

int tn_space_cmp_group(const tn_family *f, const tn_candidate *a,
                       const tn_candidate *b)
{
  int k;
  for (k = 0; k < f->n_params; k++) {
    long long x = a->params.v[k].i, y = b->params.v[k].i;
    if (!f->params[k].is_layout && x != y)
      return x < y ? -1 : 1;
  }
  return 0;
}

int tn_space_siblings(const tn_family *f, const tn_candidate *a,
                      const tn_candidate *b)
{
  return tn_space_cmp_group(f, a, b) == 0;
}

/* Orders candidates by their non-layout parameters, so that siblings (the
 * same values of all of those) are adjacent; qsort has no context pointer,
 * hence the file-level family, one a thread. */
static _Thread_local const tn_family *sort_family;
static _Thread_local const tn_candidate *sort_base;

static int cmp_siblings(const void *pa, const void *pb)
{
  const tn_candidate *a = &sort_base[*(const int *)pa];
  const tn_candidate *b = &sort_base[*(const int *)pb];
  int g = tn_space_cmp_group(sort_family, a, b);
  if (g != 0)
    return g;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* 1 if c has a time model's prediction to make: a model of its own. */
static int predictable(const tn_candidate *c)
{
  return tn_candidate_modelled(c);
}

void tn_space_predict(const tn_job *job, const tn_profile *p,
                      tn_space *space)
{
  const tn_family *f = job->family;
  price_memo memo;
  int i, k;
  if (space->arch == NULL)
    return;
  if (p != &space->profile)
    space->profile = *p;
  space->have_profile = 1;
  memo_init(&memo, f, space->n);
  for (i = 0; i < space->n; i++) {
    tn_candidate *c = &space->c[i];
    int regs = c->status >= TN_ST_COMPILED ? c->regs : 0, same;
    if (!predictable(c))
      continue;
    /* before the compile, a point predicts as its model's twin */
    same = regs == 0 ? memo_find(&memo, c, i) : -1;
    if (same >= 0) {
      for (k = 0; k < job->n_problems; k++)
        c->pred[k] = space->c[same].pred[k];
      c->pred_total = space->c[same].pred_total;
      continue;
    }
    for (k = 0; k < job->n_problems; k++)
      tn_family_time(f, &c->params, &job->problems[k], space->arch,
                     &space->profile, &c->model[k], regs, &c->pred[k]);
    tn_time_sum(c->pred, job->n_problems, &c->pred_total);
  }
  memo_free(&memo);
}

/* 1 if a's predicted lo exceeds margin times b's predicted hi at every
 * size: b beats a there even at a's best and b's worst. */
static int slower_everywhere(const tn_job *job, const tn_candidate *a,
                             const double *hi, double margin)
{
  int k;
  for (k = 0; k < job->n_problems; k++)
    if (!(a->pred[k].lo_ms > margin * hi[k]))
      return 0;
  return 1;
}

/* The least over the sizes of a's predicted time over least[k], the
 * least predicted time of a's group at size k. */
static double sibling_ratio(const tn_job *job, const tn_candidate *a,
                            const double *least)
{
  double r = -1;
  int k;
  for (k = 0; k < job->n_problems; k++) {
    double q = least[k] > 0 ? a->pred[k].ms / least[k] : 0;
    if (r < 0 || q < r)
      r = q;
  }
  return r < 0 ? 0 : r;
}

static void prune_reason(tn_candidate *c, const tn_candidate *b,
                         const char *against, const char *text)
{
  c->status = TN_ST_PRUNED;
  c->pruned_by = TN_BY_TIME_MODEL;
  tn_candidate_set_reason(c,
           "predicted %.4g ms (%.4g-%.4g, %s-bound, %lld wavefronts) "
           "against %.4g ms (%.4g-%.4g, %lld wavefronts) for %s %d (%s)",
           c->pred_total.ms, c->pred_total.lo_ms, c->pred_total.hi_ms,
           tn_bound_name(c->pred_total.bound), c->model_total,
           b->pred_total.ms, b->pred_total.lo_ms, b->pred_total.hi_ms,
           b->model_total, against, b->id, text);
}

int tn_space_prune(const tn_job *job, tn_space *space)
{
  const tn_family *f = job->family;
  int *order = malloc(sizeof(int) * (size_t)(space->n ? space->n : 1));
  double hi[TN_MAX_SIZES], ms[TN_MAX_SIZES], ghi[TN_MAX_SIZES];
  int gbest[TN_MAX_SIZES];
  int i, k, start, n = 0, pruned = 0;

  if (order == NULL || space->arch == NULL) {
    free(order);
    return 0; /* pruning is an optimisation: without memory, run all */
  }
  if (!space->have_profile) {
    tn_err ignore = {{0}};
    tn_profile p;
    if (tn_profile_for(NULL, TN_PROFILE_DIR, space->arch, &p, &ignore) != 0)
      tn_profile_derive(space->arch, NULL, &p);
    tn_space_predict(job, &p, space);
  }
  for (k = 0; k < job->n_problems; k++) {
    ghi[k] = -1;
    gbest[k] = -1;
  }
  for (i = 0; i < space->n; i++) {
    if (space->c[i].status != TN_ST_PENDING)
      continue;
    order[n++] = i;
    for (k = 0; k < job->n_problems; k++)
      if (ghi[k] < 0 || space->c[i].pred[k].hi_ms < ghi[k]) {
        ghi[k] = space->c[i].pred[k].hi_ms;
        gbest[k] = i;
      }
  }
  sort_family = f;
  sort_base = space->c;
  qsort(order, (size_t)n, sizeof(int), cmp_siblings);

  for (start = 0; start < n;) {
    int end = start + 1, best = order[start];
    char sib[512];
    while (end < n && tn_space_siblings(f, &space->c[order[start]],
                               &space->c[order[end]]))
      end++;
    for (i = start; i < end; i++)
      if (space->c[order[i]].pred_total.hi_ms <
          space->c[best].pred_total.hi_ms)
        best = order[i];
    for (k = 0; k < job->n_problems; k++) {
      hi[k] = space->c[best].pred[k].hi_ms;
      ms[k] = space->c[best].pred[k].ms;
      for (i = start; i < end; i++) {
        if (space->c[order[i]].pred[k].hi_ms < hi[k])
          hi[k] = space->c[order[i]].pred[k].hi_ms;
        if (space->c[order[i]].pred[k].ms < ms[k])
          ms[k] = space->c[order[i]].pred[k].ms;
      }
    }
    tn_params_format(f->params, f->n_params, &space->c[best].params, sib,
                     sizeof(sib));
    for (i = start; i < end; i++) {
      tn_candidate *c = &space->c[order[i]];
      double ratio;
      if (order[i] == best)
        continue;
      if (slower_everywhere(job, c, hi, 1.0)) {
        prune_reason(c, &space->c[best], "sibling", sib);
        pruned++;
      } else if ((ratio = sibling_ratio(job, c, ms)) >= TN_PRUNE_SIBLING_RATIO) {
        char text[600];
        snprintf(text, sizeof(text),
                 "%s; at every size at least %.3f times the least predicted "
                 "sibling's, %.3f here",
                 sib, TN_PRUNE_SIBLING_RATIO, ratio);
        prune_reason(c, &space->c[best], "sibling", text);
        pruned++;
      }
    }
    start = end;
  }
  /* across groups, at TN_PRUNE_GLOBAL_MARGIN (1: the same lo against hi
   * as siblings; at 1 or more the group of the least hi never goes, as
   * lo <= hi), a whole group at a time: within a group the model's
   * order of conflict-free layouts is not reliable (measured on the H200:
   * xor ahead of a pad that it predicted faster), so cutting part of a
   * group could leave it its worse layouts (docs/notes/pruning.md) */
  for (start = 0; start < n;) {
    int end = start + 1, out = 1;
    const tn_candidate *b = &space->c[gbest[0]];
    char text[512];
    while (end < n && tn_space_siblings(f, &space->c[order[start]],
                               &space->c[order[end]]))
      end++;
    for (i = start; i < end && out; i++) {
      const tn_candidate *c = &space->c[order[i]];
      out = c->status != TN_ST_PENDING ||
            slower_everywhere(job, c, ghi, TN_PRUNE_GLOBAL_MARGIN);
    }
    tn_params_format(f->params, f->n_params, &b->params, text,
                     sizeof(text));
    for (i = start; i < end && out; i++) {
      tn_candidate *c = &space->c[order[i]];
      if (c->status != TN_ST_PENDING)
        continue;
      prune_reason(c, b, "its whole group, against the space's least hi, "
                         "candidate", text);
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
    tn_candidate_set_reason(c,
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

int tn_space_copy(tn_space *dst, const tn_space *src)
{
  int i, bad = 0;
  *dst = *src;
  dst->c = NULL;
  dst->per_problem = NULL;
  dst->n = 0;
  if (src->n == 0)
    return 0;
  dst->c = malloc(sizeof(tn_candidate) * (size_t)src->n);
  if (dst->c == NULL)
    return TN_ETOOL;
  memcpy(dst->c, src->c, sizeof(tn_candidate) * (size_t)src->n);
  dst->n = src->n;
  for (i = 0; i < dst->n; i++) {
    dst->c[i].reason = "";
    dst->c[i].log = NULL;
    dst->c[i].cubin = NULL;
  }
  bad = tn_candidates_per_problem(dst->c, dst->n, src->c[0].n_problems,
                                  &dst->per_problem) != 0;
  for (i = 0; i < dst->n && !bad; i++)
    bad = tn_candidate_copy_owned(&dst->c[i], &src->c[i]) != 0;
  if (bad) {
    tn_space_free(dst);
    return TN_ETOOL;
  }
  return 0;
}

void tn_space_free(tn_space *space)
{
  int i;
  for (i = 0; i < space->n; i++)
    tn_candidate_free_owned(&space->c[i]);
  free(space->c);
  free(space->per_problem);
  space->c = NULL;
  space->per_problem = NULL;
  space->n = 0;
}

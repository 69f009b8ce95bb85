/* plan_price.c -- a declared plan priced one access at a time
 * (plan_price.h).
 *
 * Each access goes alone through tn_user_plan_access into a model cost
 * of its own; its instructions and wavefronts go to the kind its op is
 * counted under.  The accesses of a point must add up to the model the
 * space computed for it, so that what `tuner plan` prints is the model
 * the run prunes with, not a second one. */
#include "pipeline/plan_price.h"

#include <stdio.h>
#include <string.h>

#include "family/user_plan.h"

tn_ncu_kind tn_plan_access_kind(const tn_uaccess *x)
{
  tn_warp_access a;
  tn_warp_access_init(&a, (tn_op)x->op, x->width);
  return tn_model_ncu_kind(&a);
}

const char *tn_plan_op_name(int op)
{
  switch ((tn_op)op) {
  case TN_OP_LD:
    return "ld";
  case TN_OP_ST:
    return "st";
  case TN_OP_LDMATRIX:
    return "ldmatrix";
  case TN_OP_STMATRIX:
    return "stmatrix";
  case TN_OP_CP_ASYNC_CA:
    return "cp.async";
  case TN_OP_CP_ASYNC_CG:
    break;
  }
  return "cp.async.cg";
}

int tn_plan_price(const tn_job *job, const tn_arch *arch,
                  const tn_candidate *c, int k, tn_plan_priced *out,
                  char *why, size_t n)
{
  const tn_family *f = job->family;
  const tn_user_kernel *u = job->user;
  const tn_problem *prob = &job->problems[k];
  const tn_model_cost *m = &c->model[k];
  long long ld_i = 0, st_i = 0, ld_w = 0, st_w = 0;
  int i;

  memset(out, 0, sizeof(*out));
  f->launch(f, &c->params, prob, &out->launch);
  out->blocks = (long long)out->launch.grid[0] * out->launch.grid[1] *
                out->launch.grid[2];
  for (i = 0; i < u->n_accesses; i++) {
    tn_model_cost cost;
    tn_access_sink sink;
    tn_ncu_kind kind = tn_plan_access_kind(&u->accesses[i]);
    memset(&cost, 0, sizeof(cost));
    memset(&sink, 0, sizeof(sink));
    sink.total = &cost;
    sink.arch = arch;
    if (tn_user_plan_access(f, &c->params, prob, i, &sink) != 0) {
      snprintf(why, n, "%s", sink.why);
      return -1;
    }
    out->access[i].insts = cost.ld_insts + cost.st_insts;
    out->access[i].wavefronts = cost.ld_wavefronts + cost.st_wavefronts;
    out->kind[kind].insts += out->access[i].insts;
    out->kind[kind].wavefronts += out->access[i].wavefronts;
    ld_i += cost.ld_insts;
    st_i += cost.st_insts;
    ld_w += cost.ld_wavefronts;
    st_w += cost.st_wavefronts;
  }
  if (ld_i != m->ld_insts || st_i != m->st_insts || ld_w != m->ld_wavefronts ||
      st_w != m->st_wavefronts) {
    snprintf(why, n, "candidate %d, problem %d: its accesses priced one by "
                     "one (ld %lld/%lld, st %lld/%lld instructions/"
                     "wavefronts) do not add up to the model of the "
                     "launch (ld %lld/%lld, st %lld/%lld): a bug",
             c->id, k, ld_i, ld_w, st_i, st_w, m->ld_insts, m->ld_wavefronts,
             m->st_insts, m->st_wavefronts);
    return -1;
  }
  return 0;
}

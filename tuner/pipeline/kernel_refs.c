/* kernel_refs.c -- a described kernel's reference and baseline, compiled
 * for the run's architecture. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/kernel_refs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family/user_eval.h"
#include "pipeline/compile_nvrtc.h"
#include "pipeline/render.h"

/* file rendered with the default point's macros, compiled for arch. */
static int build(const tn_job *job, const char *file, int line,
                 const char *kernel, const tn_arch *arch, tn_kernel_ref *r,
                 tn_err *err)
{
  const tn_user_kernel *u = job->user;
  tn_template t;
  char *source = NULL, *log = NULL;
  int rc = tn_template_load(file, &t, err);
  if (rc)
    return rc;
  r->params = u->default_point;
  tn_strlcpy(r->kernel, kernel, sizeof(r->kernel));
  rc = tn_render(job->family, &r->params, &job->problems[0], &t, &source,
                 err);
  if (rc == 0)
    rc = tn_compile_source(source, file, &t, arch, &r->cubin, &r->len, &log,
                           err);
  if (rc == 1)
    rc = tn_errf(err, TN_EINPUT,
                 "%s:%d: %s does not compile for %s with the default point's "
                 "macros: %.1500s",
                 job->path, line, file, arch->name, log ? log : "(no log)");
  free(source);
  free(log);
  tn_template_free(&t);
  return rc;
}

int tn_kernel_refs_build(const tn_job *job, const tn_arch *arch,
                         tn_kernel_ref *ref, tn_kernel_ref *base,
                         tn_err *err)
{
  const tn_user_kernel *u = job->user;
  int rc;
  memset(ref, 0, sizeof(*ref));
  memset(base, 0, sizeof(*base));
  if (u == NULL)
    return 0;
  base->which = 1;
  if (u->ref_kind == TN_UREF_KERNEL)
    rc = build(job, u->reference.file, u->reference.line,
               u->reference.lowered, arch, ref, err);
  else
    rc = build(job, u->file, u->kernel_line, u->lowered, arch, ref, err);
  if (rc == 0 && u->base_kind == TN_UBASE_KERNEL)
    rc = build(job, u->baseline.file, u->baseline.line, u->baseline.lowered,
               arch, base, err);
  if (rc != 0) {
    tn_kernel_ref_free(ref);
    tn_kernel_ref_free(base);
  }
  return rc;
}

int tn_kernel_ref_launch(const tn_job *job, const tn_kernel_ref *r,
                         const tn_problem *prob, tn_launch *out, char *why,
                         size_t n)
{
  const tn_user_kernel *u = job->user;
  const tn_ulaunch *l = r->which ? &u->baseline.launch : &u->reference.launch;
  long long slots[TN_USLOT_COUNT];
  int smem = 0;

  if (!r->which && u->ref_kind == TN_UREF_DEFAULT) {
    job->family->launch(job->family, &r->params, prob, out);
    return 0;
  }
  memset(out, 0, sizeof(*out));
  tn_user_slots(u, &r->params, prob, slots);
  if (tn_user_eval_launch(l, slots, out->grid, out->block, &smem, why, n))
    return -1;
  out->threads = (int)(out->block[0] * out->block[1] * out->block[2]);
  out->smem_dynamic = smem;
  return 0;
}

int tn_kernel_ref_attach(const tn_job *job, const tn_kernel_ref *ref,
                         tn_bench_job *bj, int k, tn_err *err)
{
  char why[512];
  if (ref->cubin == NULL)
    return 0;
  bj->ref.cubin_len = ref->len;
  tn_strlcpy(bj->ref.kernel, ref->kernel, sizeof(bj->ref.kernel));
  bj->ref.params = ref->params;
  if (tn_kernel_ref_launch(job, ref, &job->problems[k], &bj->ref.launch, why,
                           sizeof(why)) != 0)
    return tn_errf(err, TN_EINPUT, "%s: check.reference: %s", job->path, why);
  return 0;
}

int tn_kernel_ref_baseline_job(const tn_job *job, const tn_kernel_ref *base,
                               const tn_kernel_ref *ref, tn_bench_job *bj,
                               int k, tn_err *err)
{
  char why[512];
  if (base->cubin == NULL)
    return 0;
  bj->cubin_len = base->len;
  tn_strlcpy(bj->kernel, base->kernel, sizeof(bj->kernel));
  bj->params = base->params;
  if (tn_kernel_ref_launch(job, base, &job->problems[k], &bj->launch, why,
                           sizeof(why)) != 0)
    return tn_errf(err, TN_EINPUT, "%s: baseline: %s", job->path, why);
  return tn_kernel_ref_attach(job, ref, bj, k, err);
}

void tn_kernel_ref_free(tn_kernel_ref *r)
{
  free(r->cubin);
  r->cubin = NULL;
  r->len = 0;
}

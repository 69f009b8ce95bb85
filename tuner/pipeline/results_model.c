/* results_model.c -- the models' part of the results: wavefronts, the
 * time model's prediction, the device profile used. */
#include "pipeline/results_model.h"

int tn_results_modelled(const tn_candidate *c)
{
  return tn_candidate_modelled(c);
}

json_t *tn_results_model(const tn_model_cost *m)
{
  return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:I, s:f}",
                   "ld_wavefronts", (json_int_t)m->ld_wavefronts,
                   "st_wavefronts", (json_int_t)m->st_wavefronts, "ld_insts",
                   (json_int_t)m->ld_insts, "st_insts",
                   (json_int_t)m->st_insts, "cp_async_wavefronts",
                   (json_int_t)m->async_wavefronts, "cp_async_insts",
                   (json_int_t)m->async_insts, "ideal_wavefronts",
                   (json_int_t)m->ideal_wavefronts, "max_degree",
                   m->max_degree, "blocks", (json_int_t)m->blocks,
                   "wavefronts_per_block", tn_model_wavefronts_per_block(m));
}

/* each resource's time alone at the profile's medians, so that a reader
 * sees what the prediction (and a pruning reason) rests on */
static json_t *terms_json(const tn_time_pred *t)
{
  json_t *o = json_object();
  int b;
  for (b = 0; b < TN_N_BOUNDS; b++)
    json_object_set_new(o, tn_bound_name((tn_bound)b),
                        json_real(t->term_ms[b]));
  return o;
}

static json_t *pred_json(const tn_time_pred *t)
{
  return json_pack("{s:f, s:f, s:f, s:s, s:i, s:f, s:o}", "ms", t->ms,
                   "lo_ms", t->lo_ms, "hi_ms", t->hi_ms, "bound",
                   tn_bound_name(t->bound), "blocks_per_sm",
                   t->blocks_per_sm, "waves", t->waves, "terms_ms",
                   terms_json(t));
}

json_t *tn_results_predicted(const tn_run *run, const tn_candidate *c)
{
  json_t *o = pred_json(&c->pred_total), *per = json_array();
  int k;
  for (k = 0; k < run->job->n_problems; k++)
    json_array_append_new(per, pred_json(&c->pred[k]));
  json_object_set_new(o, "per_problem", per);
  return o;
}

static json_t *range_json(const tn_range *r)
{
  return json_pack("{s:f, s:f, s:f}", "median", r->mid, "q1", r->lo, "q3",
                   r->hi);
}

void tn_results_profile(const tn_run *run, json_t *run_obj)
{
  const tn_profile *p = &run->space.profile;
  json_t *info;
  if (!run->space.have_profile) {
    json_object_set_new(run_obj, "profile", json_null());
    return;
  }
  json_object_set_new(run_obj, "profile",
                      p->derived ? json_null() : json_string(p->path));
  info = json_pack("{s:s, s:s, s:b, s:i, s:o, s:o, s:o, s:o, s:o, s:o, "
                   "s:o, s:o, s:[fff]}",
                   "arch", p->arch, "device", p->device, "derived",
                   p->derived, "sm_count", p->sm_count, "sm_clock_mhz",
                   range_json(&p->clock_mhz), "launch_us",
                   range_json(&p->launch_us), "copy_gbs",
                   range_json(&p->copy_gbs), "fma_tflops",
                   range_json(&p->fma_tflops), "imad_gops",
                   range_json(&p->imad_gops), "lop3_gops",
                   range_json(&p->lop3_gops), "mma_tflops",
                   range_json(&p->mma_tflops), "gemm_tflops",
                   range_json(&p->gemm_tflops),
                   "smem_cycles_per_wavefront",
                   p->smem_cycles_per_wavefront[0],
                   p->smem_cycles_per_wavefront[1],
                   p->smem_cycles_per_wavefront[2]);
  if (p->derived)
    json_object_set_new(info, "derived_from", json_string(p->derived_from));
  json_object_set_new(run_obj, "profile_info", info);
}

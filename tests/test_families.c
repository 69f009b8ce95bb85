/* test_families.c -- every registered family fills the interface within
 * the tables' limits: the sizes of its parameter, option, dimension,
 * buffer and baseline tables, its units, its size keys, its defaults in
 * their own ranges, and the macros of its default point fitting
 * tn_defines.  The
 * limits are fixed arrays elsewhere (tn_params, tn_problem, tn_defines),
 * so a family past one would overflow them or lose macros silently. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "family/family.h"
#include "pipeline/render.h"
#include "pipeline/run.h"
#include "test_util.h"

static void check_family(const tn_family *f)
{
  tn_params p;
  tn_problem prob;
  tn_buffer_desc bufs[TN_MAX_BUFFERS * 2];
  tn_defines d;
  tn_launch l;
  char why[512];
  int k, nb;

  fprintf(stderr, "family %s\n", f->name);
  CHECK(f->kernel != NULL && f->kernel[0] != '\0');
  CHECK(f->n_params >= 1 && f->n_params <= TN_MAX_PARAMS);
  CHECK(f->n_options >= 0 && f->n_options <= TN_MAX_OPTIONS);
  CHECK(f->n_options == 0 || f->options != NULL);
  CHECK(f->n_dims >= 1 && f->n_dims <= TN_MAX_DIMS);
  CHECK(f->dim_names != NULL);
  CHECK(f->unit != NULL && f->unit[0] != '\0');
  CHECK(f->unit_scale > 0);
  CHECK(f->n_baselines >= 1 && f->n_baselines <= TN_MAX_BASELINES);
  CHECK(f->baseline != NULL);
  CHECK(f->prepare && f->launch && f->plan && f->buffers && f->args &&
        f->verify && f->work && f->one_block);
  for (k = 0; k < f->n_params; k++) {
    const tn_param_desc *pd = &f->params[k];
    CHECK(strlen(pd->name) < TN_NAME_LEN);
    if (pd->kind == TN_PARAM_INT)
      CHECK(pd->def >= pd->min && pd->def <= pd->max);
  }
  for (k = 0; k < f->n_options && k < TN_MAX_OPTIONS; k++) {
    const tn_option_desc *od = &f->options[k];
    CHECK(tn_param_index(f->params, f->n_params, od->name) < 0);
    if (od->kind == TN_OPT_NUMBER)
      CHECK(od->def >= od->min && od->def <= od->max);
    else
      CHECK(od->def == 0 || od->def == 1);
  }

  /* the default point on a problem of 1024 in every dimension */
  memset(&p, 0, sizeof(p));
  for (k = 0; k < f->n_params; k++)
    p.v[k].i = f->params[k].def; /* a swizzle's default 0 is "none" */
  tn_problem_defaults(f, &prob);
  prob.size.n_dims = f->n_dims;
  for (k = 0; k < f->n_dims; k++)
    prob.size.dims[k] = 1024;
  if (f->prepare(&p, &prob, why, sizeof(why)) != 0) {
    fprintf(stderr, "  the default point is not valid: %s\n", why);
    CHECK(0);
    return;
  }
  tn_render_macros(f, &p, &prob, &d);
  CHECK(!d.overflow);
  CHECK(d.n > f->n_params - 1);
  /* the size keys (family/size.h): within the table, powers small, a
   * size its own nearest; and no macro of a size's row in a header
   * (NAME_SIZE<I>_<DIM>, NAME_SIZE<I>_<PARAM>, _<DERIVED>) twice */
  {
    tn_size_keys keys, dims;
    CHECK(f->n_size_keys >= 0 && f->n_size_keys <= TN_MAX_SIZE_KEYS);
    CHECK(f->n_size_keys == 0 || f->size_keys != NULL);
    tn_family_size_keys(f, &keys);
    CHECK(keys.n >= 1);
    for (k = 0; k < keys.n * TN_MAX_DIMS; k++)
      CHECK(keys.exp[k / TN_MAX_DIMS][k % TN_MAX_DIMS] >= -4 &&
            keys.exp[k / TN_MAX_DIMS][k % TN_MAX_DIMS] <= 4);
    CHECK(tn_size_distance(&keys, &prob.size, &prob.size) == 1.0);
    tn_size_keys_make(NULL, 0, f->n_dims, f->dim_names, &dims);
    for (k = 0; k < f->n_dims; k++) {
      char dim[32], *c;
      int j;
      snprintf(dim, sizeof(dim), "TN_%s", dims.name[k]);
      for (c = dim; *c; c++)
        *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
      for (j = 0; j < d.n; j++)
        if (strcmp(d.name[j], dim) == 0) {
          fprintf(stderr, "  %s: a macro named like dimension %s\n",
                  d.name[j], dims.name[k]);
          CHECK(0);
        }
    }
  }
  nb = f->buffers(&prob, bufs);
  CHECK(nb >= 1 && nb <= TN_MAX_BUFFERS);
  f->launch(&p, &prob, &l);
  CHECK(l.threads >= 1 && l.threads <= 1024);
  CHECK(f->work(&prob) > 0);
}

int main(void)
{
  char list[256], *name, *save = NULL;
  int n = 0;
  tn_defines d;

  tn_family_list(list, sizeof(list));
  for (name = strtok_r(list, ", ", &save); name;
       name = strtok_r(NULL, ", ", &save)) {
    const tn_family *f = tn_family_find(name);
    CHECK(f != NULL);
    if (f)
      check_family(f);
    n++;
  }
  CHECK(n >= 2);

  /* tn_defines refuses what does not fit, and says so */
  memset(&d, 0, sizeof(d));
  tn_defines_add(&d, "TN_A_NAME_OF_FORTY_EIGHT_CHARACTERS_OR_MORE_XXXX", "1");
  CHECK(d.n == 0 && d.overflow);
  memset(&d, 0, sizeof(d));
  for (n = 0; n <= TN_MAX_DEFINES; n++)
    tn_defines_add(&d, "TN_X", "%d", n);
  CHECK(d.n == TN_MAX_DEFINES && d.overflow);
  TEST_DONE();
}

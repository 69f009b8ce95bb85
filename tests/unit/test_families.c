/* test_families.c -- every registered family fills the interface within
 * the tables' limits: the sizes of its parameter, option, dimension,
 * buffer and baseline tables, its units, its size keys, its defaults in
 * their own ranges, its choice options' names, its buffers' element
 * types, and the macros of its default point fitting tn_defines.  The
 * limits are fixed arrays elsewhere (tn_params, tn_problem, tn_defines),
 * so a family past one would overflow them or lose macros silently. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "family/family.h"
#include "pipeline/render.h"
#include "pipeline/run.h"
#include "test_util.h"

/* A choice has names (its value is one's index, its default too), each
 * a non-empty string told apart from the others: the config and the JSON
 * name it by its string.  1 if od is such a table, else 0 with why. */
static int choices_ok(const tn_option_desc *od)
{
  int a, b;
  if (od->n_choices < 1 || od->choices == NULL) {
    fprintf(stderr, "  %s: a choice without names\n", od->name);
    return 0;
  }
  if (!(od->def >= 0 && od->def < od->n_choices) ||
      od->def != (double)(int)od->def) {
    fprintf(stderr, "  %s: default %g is not an index of its %d names\n",
            od->name, od->def, od->n_choices);
    return 0;
  }
  for (a = 0; a < od->n_choices; a++) {
    if (od->choices[a] == NULL || od->choices[a][0] == '\0') {
      fprintf(stderr, "  %s: name %d is empty\n", od->name, a);
      return 0;
    }
    for (b = 0; b < a; b++)
      if (strcmp(od->choices[a], od->choices[b]) == 0) {
        fprintf(stderr, "  %s: '%s' twice\n", od->name, od->choices[a]);
        return 0;
      }
  }
  return 1;
}

/* choices_ok itself, on tables no family has: no shipped family has a
 * choice yet, and a check that never fails checks nothing. */
static void check_choices_ok(void)
{
  static const char *const good[] = {"f32", "bf16", "f16"};
  static const char *const dup[] = {"bf16", "f16", "bf16"};
  static const char *const empty[] = {"bf16", ""};
  tn_option_desc d = {"type", TN_OPT_CHOICE, 1, 0, 0, "", good, 3};
  fprintf(stderr, "choice tables (the bad ones say why)\n");
  CHECK(choices_ok(&d));
  d.def = 3;
  CHECK(!choices_ok(&d));
  d.def = 0.5;
  CHECK(!choices_ok(&d));
  d.def = 0;
  d.n_choices = 0;
  CHECK(!choices_ok(&d));
  d.choices = dup;
  d.n_choices = 3;
  CHECK(!choices_ok(&d));
  d.choices = empty;
  d.n_choices = 2;
  CHECK(!choices_ok(&d));
}

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
    else if (od->kind == TN_OPT_CHOICE)
      CHECK(choices_ok(od));
    else
      CHECK(od->kind == TN_OPT_BOOL && (od->def == 0 || od->def == 1));
  }


  /* the default point on a problem of 1024 in every dimension */
  memset(&p, 0, sizeof(p));
  for (k = 0; k < f->n_params; k++)
    p.v[k].i = f->params[k].def; /* a swizzle's default 0 is "none" */
  tn_problem_defaults(f, &prob);
  prob.size.n_dims = f->n_dims;
  for (k = 0; k < f->n_dims; k++)
    prob.size.dims[k] = 1024;
  if (f->prepare(f, &p, &prob, why, sizeof(why)) != 0) {
    fprintf(stderr, "  the default point is not valid: %s\n", why);
    CHECK(0);
    return;
  }
  tn_family_macros(f, &p, &prob, &d);
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
  memset(bufs, 0, sizeof(bufs)); /* as the bench does */
  nb = f->buffers(f, &prob, bufs);
  CHECK(nb >= 1 && nb <= TN_MAX_BUFFERS);
  /* element types the generator writes, whole numbers of them */
  for (k = 0; k < nb && k < TN_MAX_BUFFERS; k++) {
    int eb = tn_elem_bytes(bufs[k].elem);
    CHECK(eb > 0 && bufs[k].bytes % (size_t)eb == 0);
  }
  f->launch(f, &p, &prob, &l);
  CHECK(l.threads >= 1 && l.threads <= 1024);
  CHECK(f->work(f, &prob) > 0);
  /* every kernel argument fits (a dropped one would make cuLaunchKernel
   * read past the array) */
  {
    tn_devptr ptrs[TN_MAX_BUFFERS] = {0};
    tn_args a;
    memset(&a, 0, sizeof(a));
    f->args(f, &p, &prob, ptrs, &a);
    CHECK(!a.overflow && a.n >= 1);
  }
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
  check_choices_ok();

  /* tn_defines refuses what does not fit, and says so */
  memset(&d, 0, sizeof(d));
  tn_defines_add(&d, "TN_A_NAME_OF_FORTY_EIGHT_CHARACTERS_OR_MORE_XXXX", "1");
  CHECK(d.n == 0 && d.overflow);
  memset(&d, 0, sizeof(d));
  for (n = 0; n <= TN_MAX_DEFINES; n++)
    tn_defines_add(&d, "TN_X", "%d", n);
  CHECK(d.n == TN_MAX_DEFINES && d.overflow);
  /* so does tn_args */
  {
    tn_args a;
    double x = 1.0;
    char big[17] = {0};
    memset(&a, 0, sizeof(a));
    for (n = 0; n <= TN_MAX_ARGS; n++)
      tn_args_add(&a, &x, sizeof(x));
    CHECK(a.n == TN_MAX_ARGS && a.overflow);
    memset(&a, 0, sizeof(a));
    tn_args_add(&a, big, sizeof(big));
    CHECK(a.n == 0 && a.overflow);
  }
  TEST_DONE();
}

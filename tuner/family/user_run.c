/* user_run.c -- the family a config describes: the worker's side (its
 * buffers, arguments and __constant__ symbols, the check of its outputs
 * against the reference's, the copy baseline). */
#include "family/user_run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "family/user_eval.h"

/* Buffer index of argument a (its place among the buffers), or -1. */
static int buffer_index(const tn_user_kernel *u, int a)
{
  int i, b = 0;
  if (u->args[a].kind != TN_UARG_BUFFER)
    return -1;
  for (i = 0; i < a; i++)
    b += u->args[i].kind == TN_UARG_BUFFER;
  return b;
}

static int n_buffer_args(const tn_user_kernel *u)
{
  int i, b = 0;
  for (i = 0; i < u->n_args; i++)
    b += u->args[i].kind == TN_UARG_BUFFER;
  return b;
}

/* Elements of a counted thing (buffer, constant) on prob's dimensions;
 * the config's reader checked every problem, so a failure is 0. */
static long long count_of(const tn_user_kernel *u, const tn_uexpr *e,
                          const tn_problem *prob)
{
  long long slots[TN_USLOT_COUNT], v = 0;
  tn_params p;
  char why[256];
  memset(&p, 0, sizeof(p));
  tn_user_slots(u, &p, prob, slots);
  if (tn_uexpr_eval(e, slots, &v, why, sizeof(why)) != 0 || v < 0)
    return 0;
  return v;
}

int tn_user_buffers(const tn_family *f, const tn_problem *prob,
                    tn_buffer_desc *out)
{
  const tn_user_kernel *u = tn_user_of(f);
  int a, b = 0;

  for (a = 0; a < u->n_args; a++) {
    const tn_uarg *g = &u->args[a];
    if (g->kind != TN_UARG_BUFFER)
      continue;
    out[b].name = g->name;
    out[b].elem = g->type;
    out[b].bytes =
        (size_t)count_of(u, &g->count, prob) * (size_t)tn_elem_bytes(g->type);
    out[b].role = !g->output ? TN_BUF_IN
                  : g->has_init ? TN_BUF_INOUT
                                : TN_BUF_OUT;
    out[b].init = g->init;
    b++;
  }
  if (u->base_kind == TN_UBASE_COPY) {
    /* the copy baseline's own source and destination */
    size_t bytes = (size_t)count_of(u, &u->copy_bytes, prob);
    out[b].name = "copy source";
    out[b].elem = TN_ELEM_U8;
    out[b].bytes = bytes;
    out[b].role = TN_BUF_IN;
    out[b].init.kind = TN_INIT_UNIFORM;
    out[b].init.a = 0;
    out[b].init.b = 255;
    b++;
    out[b].name = "copy destination";
    out[b].elem = TN_ELEM_U8;
    out[b].bytes = bytes;
    out[b].role = TN_BUF_OUT;
    b++;
  }
  return b;
}

/* Scalar argument g of p on prob into a's next slot, in its type. */
static void add_scalar(const tn_user_kernel *u, const tn_uarg *g,
                       const long long *slots, tn_args *a)
{
  unsigned char bytes[8];
  double v;
  long long i = 0;
  char why[256];

  if (g->literal) {
    v = g->literal_value;
  } else {
    /* prepare() evaluated it for this point */
    if (tn_uexpr_eval(&g->value, slots, &i, why, sizeof(why)) != 0)
      i = 0;
    v = (double)i;
  }
  memset(bytes, 0, sizeof(bytes));
  if (!tn_elem_is_float(g->type) && !g->literal) {
    /* integers exactly, past 2^53 too: the low bytes of i */
    memcpy(bytes, &i, (size_t)tn_elem_bytes(g->type));
  } else {
    tn_elem_store(bytes, 0, g->type, v);
  }
  tn_args_add(a, bytes, (size_t)tn_elem_bytes(g->type));
  (void)u;
}

void tn_user_args(const tn_family *f, const tn_params *p,
                  const tn_problem *prob, const tn_devptr *bufs,
                  tn_args *out)
{
  const tn_user_kernel *u = tn_user_of(f);
  long long slots[TN_USLOT_COUNT];
  int a;

  tn_user_slots(u, p, prob, slots);
  for (a = 0; a < u->n_args; a++) {
    const tn_uarg *g = &u->args[a];
    if (g->kind == TN_UARG_BUFFER)
      tn_args_add(out, &bufs[buffer_index(u, a)], sizeof(tn_devptr));
    else
      add_scalar(u, g, slots, out);
  }
}

int tn_user_constants(const tn_family *f, const tn_params *p,
                      const tn_problem *prob, tn_constant_desc *out)
{
  const tn_user_kernel *u = tn_user_of(f);
  int c;
  for (c = 0; c < u->n_constants; c++) {
    const tn_uconstant *k = &u->constants[c];
    out[c].name = k->name;
    out[c].elem = k->type;
    out[c].bytes =
        (size_t)count_of(u, &k->count, prob) * (size_t)tn_elem_bytes(k->type);
    out[c].init = k->init;
  }
  return u->n_constants;
}

int tn_user_verify(tn_verify_env *env, char *why, size_t n)
{
  const tn_user_kernel *u = tn_user_of(env->family);
  int a;

  for (a = 0; a < u->n_args; a++) {
    const tn_uarg *g = &u->args[a];
    int b = buffer_index(u, a), eb = tn_elem_bytes(g->type);
    unsigned long long bad = 0, first = 0;
    unsigned char got[8], want[8];
    size_t count;
    if (b < 0 || !g->output)
      continue;
    if (env->expected[b] == 0) {
      snprintf(why, n, "%s: no reference output to compare with", g->name);
      return -1;
    }
    count = env->descs[b].bytes / (size_t)eb;
    if (env->compare(env, env->dev[b], env->expected[b], count, g->type,
                     g->atol, g->rtol, &bad, &first) != 0)
      return -1;
    if (bad == 0)
      continue;
    /* the first element that differs, for the message */
    if (env->download(env, got, env->dev[b] + first * (size_t)eb,
                      (size_t)eb) != 0 ||
        env->download(env, want, env->expected[b] + first * (size_t)eb,
                      (size_t)eb) != 0)
      return -1;
    if (tn_elem_is_float(g->type))
      snprintf(why, n,
               "%s: %llu of %zu elements differ from the reference beyond "
               "atol %g + rtol %g |ref|; the first, [%llu], is %.9g against "
               "%.9g",
               g->name, bad, count, g->atol, g->rtol, first,
               tn_elem_load(got, 0, g->type), tn_elem_load(want, 0, g->type));
    else
      snprintf(why, n,
               "%s: %llu of %zu elements differ from the reference; the "
               "first, [%llu], is %.17g against %.17g",
               g->name, bad, count, first, tn_elem_load(got, 0, g->type),
               tn_elem_load(want, 0, g->type));
    return 1;
  }
  return 0;
}

int tn_user_baseline(const char *name, tn_baseline_env *env, char *why,
                     size_t n)
{
  const tn_user_kernel *u = tn_user_of(env->family);
  int src = n_buffer_args(u);
  if (u->base_kind != TN_UBASE_COPY || strcmp(name, "memcpy") != 0) {
    snprintf(why, n, "%s has no baseline '%s'", env->family->name, name);
    return -1;
  }
  return env->copy(env, env->dev[src + 1], env->dev[src],
                   env->descs[src].bytes, why, n);
}

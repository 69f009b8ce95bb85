/* sizes.c -- the per-size part of the headers: the nearest-size rule as C
 * (family/size.h; the same operations in the same order, so the doubles
 * are those of tn_size_nearest bit for bit), and a per-architecture
 * header's table of sizes: the winner of each size as macros and the index
 * of the nearest size at run time.  The dispatch header's rows by size are
 * in dispatch.c. */
#include "emit/internal.h"

#include <string.h>

#include "family/size.h"

void tn__emit_dim_names(const tn_family *f, char names[][24], int upper)
{
  tn_size_keys dims;
  int d;
  char *c;
  tn_size_keys_make(NULL, 0, f->n_dims, f->dim_names, &dims);
  for (d = 0; d < dims.n; d++) {
    tn_strlcpy(names[d], dims.name[d], 24);
    for (c = names[d]; *c; c++) {
      if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
            (*c >= '0' && *c <= '9')))
        *c = '_';
      else if (upper && *c >= 'a' && *c <= 'z')
        *c = (char)(*c - 32);
      else if (!upper && *c >= 'A' && *c <= 'Z')
        *c = (char)(*c + 32);
    }
  }
}

void tn__emit_size_rule(FILE *o, const tn_family *f, const char *M,
                        const char *id)
{
  tn_size_keys k;
  int j, i, e, nd = f->n_dims;
  tn_family_size_keys(f, &k);
  /* host code only: NVRTC takes no unannotated function, and a kernel
   * compiled at run time has the macros */
  fprintf(o,
          "\n#if !defined(TUNER_%s_SIZE_RULE) && !defined(__CUDACC_RTC__)\n"
          "#define TUNER_%s_SIZE_RULE\n"
          "/* The nearest size (the rule of tuner/family/size.h): the\n"
          " * distance of sizes a and b is the product over the keys (",
          M, M);
  for (j = 0; j < k.n; j++)
    fprintf(o, "%s%s", j ? ", " : "", k.name[j]);
  fprintf(o,
          ")\n * of max(r, 1/r), r = key(a) / key(b): L1 in log space.  "
          "Distances within\n * a relative 1e-9 tie, and a tie goes to the "
          "larger size (the larger\n * product of the dimensions, then the "
          "larger first dimension that\n * differs).  A dimension below 1 "
          "counts as 1.  Host code (not under\n * NVRTC, where the macros "
          "are what a kernel has). */\n");
  fprintf(o, "static inline double %s_size_dim(long long v)\n{\n"
             "  return v > 0 ? (double)v : 1.0;\n}\n",
          id);
  fprintf(o,
          "static inline double %s_size_distance(const long long *a,\n"
          "                                      const long long *b)\n{\n"
          "  double x[%d], d = 1.0, r;\n",
          id, nd);
  for (i = 0; i < nd; i++)
    fprintf(o, "  x[%d] = %s_size_dim(a[%d]) / %s_size_dim(b[%d]);\n", i, id,
            i, id, i);
  for (j = 0; j < k.n; j++) {
    fprintf(o, "  r = 1.0; /* %s */\n", k.name[j]);
    for (i = 0; i < nd; i++) {
      for (e = k.exp[j][i]; e > 0; e--)
        fprintf(o, "  r *= x[%d];\n", i);
      for (e = k.exp[j][i]; e < 0; e++)
        fprintf(o, "  r /= x[%d];\n", i);
    }
    fprintf(o, "  d *= r >= 1.0 ? r : 1.0 / r;\n");
  }
  fprintf(o, "  return d;\n}\n");
  fprintf(o,
          "static inline int %s_size_larger(const long long *a,\n"
          "                                 const long long *b)\n{\n"
          "  double pa = 1.0, pb = 1.0;\n  int i;\n"
          "  for (i = 0; i < %d; i++) {\n"
          "    pa *= %s_size_dim(a[i]);\n    pb *= %s_size_dim(b[i]);\n  }\n"
          "  if (pa != pb)\n    return pa > pb;\n"
          "  for (i = 0; i < %d; i++)\n"
          "    if (%s_size_dim(a[i]) != %s_size_dim(b[i]))\n"
          "      return %s_size_dim(a[i]) > %s_size_dim(b[i]);\n"
          "  return 0;\n}\n",
          id, nd, id, id, nd, id, id, id, id);
  fprintf(o,
          "/* The index of the size of sizes[0 .. n-1] (%d numbers each)\n"
          " * nearest to want, -1 if n is 0. */\n"
          "static inline int %s_nearest_size(const long long *sizes, int n,\n"
          "                                  const long long *want)\n{\n"
          "  double bd = 0.0;\n  int i, best = -1;\n"
          "  for (i = 0; i < n; i++) {\n"
          "    double d = %s_size_distance(want, sizes + %d * i);\n"
          "    if (best < 0 || d < bd * (1.0 - %g) ||\n"
          "        (d <= bd * (1.0 + %g) &&\n"
          "         %s_size_larger(sizes + %d * i, sizes + %d * best))) {\n"
          "      best = i;\n      bd = d;\n    }\n  }\n  return best;\n}\n"
          "#endif\n",
          nd, id, id, nd, TN_SIZE_TIE, TN_SIZE_TIE, id, nd, nd);
}

/* One size's macros under prefix: its dimensions, its parameters and the
 * family's derived macros for it. */
static void size_values(FILE *o, const tn_header_entry *e,
                        const tn_header_size *s, char dims[][24],
                        const char *prefix)
{
  const tn_family *f = e->family;
  tn_defines der;
  int d;
  for (d = 0; d < f->n_dims; d++)
    fprintf(o, "#define %s_%s %lld\n", prefix, dims[d],
            s->problem->size.dims[d]);
  tn__emit_derived(f, s->params, s->problem, &der);
  tn__emit_values(o, f, s->params, der.n > 0 ? &der : NULL, prefix);
}

void tn__emit_arch_sizes(FILE *o, const tn_header_entry *e, const char *M,
                         const char *id, const char *arch)
{
  const tn_family *f = e->family;
  char dims[TN_MAX_DIMS][24], args[TN_MAX_DIMS][24], larch[16], prefix[128];
  int i, d;

  if (e->n_sizes <= 0)
    return;
  tn__emit_dim_names(f, dims, 1);
  tn__emit_dim_names(f, args, 0);
  tn_strlcpy(larch, arch, sizeof(larch));
  for (i = 0; larch[i]; i++)
    if (larch[i] >= 'A' && larch[i] <= 'Z')
      larch[i] = (char)(larch[i] + 32);
  fprintf(o,
          "\n/* By size: the winner of each size tuned (%s_%s_<PARAM> above "
          "is the\n * single best over all of them).  Size I is "
          "%s_%s_SIZE<I>_<DIM>, its\n * configuration %s_%s_SIZE<I>_<PARAM>"
          " (and %s_SIZE<I>_... unless\n * TUNER_ONLY_ARCH_NAMES); "
          "%s_%s_nearest_size() is the index of the\n * nearest size to a "
          "problem, by the rule below. */\n",
          M, arch, M, arch, M, arch, M, id, larch);
  fprintf(o, "#define %s_%s_N_SIZES %d\n", M, arch, e->n_sizes);
  for (i = 0; i < e->n_sizes; i++) {
    const tn_header_size *s = &e->sizes[i];
    char size[128];
    tn_size_format(&s->problem->size, size, sizeof(size));
    fprintf(o, "/* size %d: %s", i, size);
    if (s->why) {
      fprintf(o, ": ");
      tn_emit_comment(o, s->why);
    }
    fprintf(o, " */\n");
    snprintf(prefix, sizeof(prefix), "%s_%s_SIZE%d", M, arch, i);
    size_values(o, e, s, dims, prefix);
  }
  fprintf(o, "\n#ifndef TUNER_ONLY_ARCH_NAMES\n#define %s_N_SIZES %d\n", M,
          e->n_sizes);
  for (i = 0; i < e->n_sizes; i++) {
    snprintf(prefix, sizeof(prefix), "%s_SIZE%d", M, i);
    size_values(o, e, &e->sizes[i], dims, prefix);
  }
  fprintf(o, "#endif\n");
  tn__emit_size_rule(o, f, M, id);
  fprintf(o, "\n#ifndef __CUDACC_RTC__\n"
             "/* The index (0 .. %s_%s_N_SIZES - 1) of the size nearest to "
             "the problem. */\n"
             "static inline int %s_%s_nearest_size(",
          M, arch, id, larch);
  for (d = 0; d < f->n_dims; d++)
    fprintf(o, "%slong long %s", d ? ", " : "", args[d]);
  fprintf(o, ")\n{\n  static const long long sizes[%d] = {",
          e->n_sizes * f->n_dims);
  for (i = 0; i < e->n_sizes; i++)
    for (d = 0; d < f->n_dims; d++)
      fprintf(o, "%s%s%lld", i || d ? "," : "",
              d == 0 ? "\n      " : " ", e->sizes[i].problem->size.dims[d]);
  fprintf(o, "};\n  const long long want[%d] = {", f->n_dims);
  for (d = 0; d < f->n_dims; d++)
    fprintf(o, "%s%s", d ? ", " : "", args[d]);
  fprintf(o, "};\n  return %s_nearest_size(sizes, %d, want);\n}\n#endif\n",
          id, e->n_sizes);
}

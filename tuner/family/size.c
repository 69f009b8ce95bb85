/* size.c -- a family's size keys, the distance of two sizes and the
 * nearest of a list (the rule is in size.h).  tuner/emit/sizes.c writes
 * the same operations, in the same order, into the headers: the doubles
 * come out bit for bit the same. */
#include "family/size.h"

#include <stdio.h>
#include <string.h>

void tn_size_keys_make(const tn_size_key *keys, int n_keys, int n_dims,
                       const char *dim_names, tn_size_keys *out)
{
  int j, i;
  memset(out, 0, sizeof(*out));
  out->n_dims = n_dims;
  if (keys != NULL && n_keys > 0) {
    out->n = n_keys < TN_MAX_SIZE_KEYS ? n_keys : TN_MAX_SIZE_KEYS;
    for (j = 0; j < out->n; j++) {
      snprintf(out->name[j], sizeof(out->name[j]), "%s", keys[j].name);
      for (i = 0; i < n_dims && i < TN_MAX_DIMS; i++)
        out->exp[j][i] = keys[j].exp[i];
    }
    return;
  }
  /* one key per dimension, named as the family names its dimensions */
  out->n = n_dims < TN_MAX_SIZE_KEYS ? n_dims : TN_MAX_SIZE_KEYS;
  for (j = 0; j < out->n; j++) {
    const char *p = dim_names;
    size_t len;
    for (i = 0; p && i < j; i++) {
      p = strchr(p, ',');
      if (p)
        p++;
    }
    while (p && *p == ' ')
      p++;
    len = p ? strcspn(p, ",") : 0;
    if (len == 0 || len >= sizeof(out->name[j]))
      snprintf(out->name[j], sizeof(out->name[j]), "d%d", j);
    else
      snprintf(out->name[j], sizeof(out->name[j]), "%.*s", (int)len, p);
    out->exp[j][j] = 1;
  }
}

static double dim(const tn_size *s, int i)
{
  return s->dims[i] > 0 ? (double)s->dims[i] : 1.0;
}

double tn_size_distance(const tn_size_keys *k, const tn_size *a,
                        const tn_size *b)
{
  double x[TN_MAX_DIMS], d = 1.0;
  int i, j;
  for (i = 0; i < k->n_dims && i < TN_MAX_DIMS; i++)
    x[i] = dim(a, i) / dim(b, i);
  for (j = 0; j < k->n; j++) {
    double r = 1.0;
    for (i = 0; i < k->n_dims && i < TN_MAX_DIMS; i++) {
      int e;
      for (e = k->exp[j][i]; e > 0; e--)
        r *= x[i];
      for (e = k->exp[j][i]; e < 0; e++)
        r /= x[i];
    }
    d *= r >= 1.0 ? r : 1.0 / r;
  }
  return d;
}

int tn_size_larger(const tn_size *a, const tn_size *b)
{
  double pa = 1.0, pb = 1.0;
  int i;
  for (i = 0; i < a->n_dims && i < TN_MAX_DIMS; i++) {
    pa *= dim(a, i);
    pb *= dim(b, i);
  }
  if (pa != pb)
    return pa > pb;
  for (i = 0; i < a->n_dims && i < TN_MAX_DIMS; i++)
    if (dim(a, i) != dim(b, i))
      return dim(a, i) > dim(b, i);
  return 0;
}

int tn_size_nearest(const tn_size_keys *k, const tn_size *list, int n,
                    const tn_size *want)
{
  double bd = 0.0;
  int i, best = -1;
  for (i = 0; i < n; i++) {
    double d = tn_size_distance(k, want, &list[i]);
    if (best < 0 || d < bd * (1.0 - TN_SIZE_TIE) ||
        (d <= bd * (1.0 + TN_SIZE_TIE) &&
         tn_size_larger(&list[i], &list[best]))) {
      best = i;
      bd = d;
    }
  }
  return best;
}

int tn_size_same(const tn_size_keys *k, const tn_size *a, const tn_size *b)
{
  return tn_size_distance(k, a, b) <= 1.0 + TN_SIZE_TIE;
}

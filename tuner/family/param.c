/* param.c -- parameter values: swizzle names and formatting. */
#include "family/param.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int log2_exact(int x)
{
  int k = 0;
  if (x <= 0 || (x & (x - 1)) != 0)
    return -1;
  while ((1 << k) < x)
    k++;
  return k;
}

const char *tn_swizzle_name(const tn_swizzle *sw, char *buf, size_t n)
{
  switch (sw->kind) {
  case TN_SWZ_NONE:
    snprintf(buf, n, "none");
    break;
  case TN_SWZ_XOR:
    snprintf(buf, n, "xor");
    break;
  case TN_SWZ_SW32:
    snprintf(buf, n, "sw32");
    break;
  case TN_SWZ_SW64:
    snprintf(buf, n, "sw64");
    break;
  case TN_SWZ_SW128:
    snprintf(buf, n, "sw128");
    break;
  default:
    snprintf(buf, n, "cute(%d,%d,%d)", sw->b, sw->m, sw->s);
    break;
  }
  return buf;
}

int tn_swizzle_tma_span(const tn_swizzle *sw)
{
  switch (sw->kind) {
  case TN_SWZ_NONE:
    return 0;
  case TN_SWZ_SW32:
    return 32;
  case TN_SWZ_SW64:
    return 64;
  case TN_SWZ_SW128:
    return 128;
  default:
    return -1;
  }
}

/* "B,M,S)" of "cute(B,M,S)" into v, each number whole (no wrap: strtol's
 * ERANGE gives LONG_MAX, out of every range); spaces around numbers are
 * allowed.  Returns 0, or -1 when the text is not that shape. */
static int cute_numbers(const char *p, long v[3])
{
  int i;
  for (i = 0; i < 3; i++) {
    char *end;
    while (*p == ' ')
      p++;
    if (!isdigit((unsigned char)p[*p == '-' || *p == '+']))
      return -1;
    errno = 0;
    v[i] = strtol(p, &end, 10);
    if (errno == ERANGE)
      v[i] = v[i] < 0 ? -1 : 99;
    p = end;
    while (*p == ' ')
      p++;
    if (*p != (i < 2 ? ',' : ')'))
      return -1;
    p++;
  }
  return *p == '\0' ? 0 : -1;
}

int tn_swizzle_parse(const char *text, tn_swizzle *sw, char *why, size_t n)
{
  long v[3];
  memset(sw, 0, sizeof(*sw));
  if (strcmp(text, "none") == 0)
    sw->kind = TN_SWZ_NONE;
  else if (strcmp(text, "xor") == 0)
    sw->kind = TN_SWZ_XOR;
  else if (strcmp(text, "sw32") == 0)
    sw->kind = TN_SWZ_SW32;
  else if (strcmp(text, "sw64") == 0)
    sw->kind = TN_SWZ_SW64;
  else if (strcmp(text, "sw128") == 0)
    sw->kind = TN_SWZ_SW128;
  else if (strncmp(text, "cute(", 5) == 0 && cute_numbers(text + 5, v) == 0) {
    long b = v[0], m = v[1], s = v[2];
    if (b < 0 || b > 5 || m < 0 || m > 8 || s < b || s > 10) {
      snprintf(why, n,
               "swizzle '%s': need 0 <= B <= 5, 0 <= M <= 8, B <= S <= 10",
               text);
      return -1;
    }
    sw->kind = TN_SWZ_CUTE;
    sw->b = (int)b;
    sw->m = (int)m;
    sw->s = (int)s;
  } else {
    snprintf(why, n,
             "swizzle '%s': expected none, xor, sw32, sw64, sw128 or "
             "cute(B,M,S)",
             text);
    return -1;
  }
  return 0;
}

int tn_swizzle_resolve(tn_swizzle *sw, int width, int elem_bytes, char *why,
                       size_t n)
{
  int lw = log2_exact(width), le = log2_exact(elem_bytes);
  if (lw < 0 || le < 0 || le > 4) {
    snprintf(why, n, "swizzle needs a power-of-two tile width");
    return -1;
  }
  switch (sw->kind) {
  case TN_SWZ_NONE:
    sw->b = sw->m = sw->s = 0;
    break;
  case TN_SWZ_XOR: {
    /* column ^= row over as many columns as one 128-byte bank row holds */
    int cols = 128 / elem_bytes;
    int lc = log2_exact(width < cols ? width : cols);
    sw->b = lc;
    sw->m = 0;
    sw->s = lw;
    break;
  }
  case TN_SWZ_SW32:
  case TN_SWZ_SW64:
  case TN_SWZ_SW128:
    /* 16-byte chunks (M = log2(16 / elem)), rows of 128 bytes. */
    sw->b = sw->kind == TN_SWZ_SW32 ? 1 : sw->kind == TN_SWZ_SW64 ? 2 : 3;
    sw->m = 4 - le;
    sw->s = 3;
    if ((width * elem_bytes) % (16 << sw->b) != 0) {
      snprintf(why, n, "a %d-byte swizzle needs rows of a multiple of %d "
                       "bytes, the tile's are %d",
               16 << sw->b, 16 << sw->b, width * elem_bytes);
      return -1;
    }
    break;
  case TN_SWZ_CUTE:
    break;
  }
  return 0;
}

void tn_size_format(const tn_size *s, char *out, size_t n)
{
  size_t used = 0;
  int d;
  out[0] = '\0';
  for (d = 0; d < s->n_dims && used < n; d++)
    used += (size_t)snprintf(out + used, n - used, "%s%lld", d ? "x" : "",
                             s->dims[d]);
}

void tn_params_format(const tn_param_desc *descs, int n_params,
                      const tn_params *p, char *out, size_t n)
{
  size_t used = 0;
  int i;
  out[0] = '\0';
  for (i = 0; i < n_params && used < n; i++) {
    char sw[32];
    int w;
    if (descs[i].added && descs[i].kind == TN_PARAM_INT &&
        p->v[i].i == descs[i].def)
      continue; /* as the texts written before it was added */
    if (descs[i].kind == TN_PARAM_SWIZZLE)
      w = snprintf(out + used, n - used, "%s%s=%s", used ? " " : "",
                   descs[i].name, tn_swizzle_name(&p->v[i].sw, sw, sizeof(sw)));
    else
      w = snprintf(out + used, n - used, "%s%s=%lld", used ? " " : "",
                   descs[i].name, p->v[i].i);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

int tn_param_index(const tn_param_desc *descs, int n_params, const char *name)
{
  int i;
  for (i = 0; i < n_params; i++)
    if (strcmp(descs[i].name, name) == 0)
      return i;
  return -1;
}

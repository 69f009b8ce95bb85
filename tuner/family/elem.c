/* elem.c -- the element types of buffers. */
#include "family/elem.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const struct {
  const char *name;
  int bytes, is_float, is_signed;
} elem_types[TN_ELEM_COUNT] = {
    [TN_ELEM_F32] = {"f32", 4, 1, 1}, [TN_ELEM_BF16] = {"bf16", 2, 1, 1},
    [TN_ELEM_F16] = {"f16", 2, 1, 1}, [TN_ELEM_F64] = {"f64", 8, 1, 1},
    [TN_ELEM_I8] = {"i8", 1, 0, 1},   [TN_ELEM_I16] = {"i16", 2, 0, 1},
    [TN_ELEM_I32] = {"i32", 4, 0, 1}, [TN_ELEM_I64] = {"i64", 8, 0, 1},
    [TN_ELEM_U8] = {"u8", 1, 0, 0},   [TN_ELEM_U16] = {"u16", 2, 0, 0},
    [TN_ELEM_U32] = {"u32", 4, 0, 0}, [TN_ELEM_U64] = {"u64", 8, 0, 0},
    [TN_ELEM_E4M3] = {"e4m3", 1, 1, 1}, [TN_ELEM_E5M2] = {"e5m2", 1, 1, 1},
};

static int elem_known(tn_elem_type t)
{
  return (int)t >= 0 && (int)t < TN_ELEM_COUNT;
}

int tn_elem_bytes(tn_elem_type t)
{
  return elem_known(t) ? elem_types[t].bytes : 0;
}

const char *tn_elem_name(tn_elem_type t)
{
  return elem_known(t) ? elem_types[t].name : "?";
}

int tn_elem_is_float(tn_elem_type t)
{
  return elem_known(t) && elem_types[t].is_float;
}

int tn_elem_is_signed(tn_elem_type t)
{
  return elem_known(t) && elem_types[t].is_signed;
}

/* fp16's bits of a double, rounded to nearest, ties to even; out of
 * range: infinity; NaN stays NaN. */
static uint16_t half_bits(double v)
{
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double a = fabs(v), r;
  int e;
  if (isnan(v))
    return 0x7e00;
  if (a >= 65520.0) /* rounds past the largest, 65504 */
    return sign | 0x7c00;
  if (a < ldexp(1.0, -14)) { /* subnormal: multiples of 2^-24 */
    r = nearbyint(ldexp(a, 24));
    return sign | (uint16_t)r; /* 1024 is the smallest normal: right */
  }
  e = ilogb(a);                       /* a = 1.m x 2^e, e in [-14, 15] */
  r = nearbyint(ldexp(a, 10 - e));    /* 1024 .. 2048 */
  if (r >= 2048.0) {
    r /= 2;
    e++;
  }
  return sign | (uint16_t)((e + 15) << 10) | ((uint16_t)r & 1023);
}

/* bf16's bits of a double: through fp32, rounded to nearest even. */
static uint16_t bf16_bits(double v)
{
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, sizeof(u));
  if (isnan(f))
    return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

/* The two 8-bit formats: mantissa bits, exponent bias, whether the top
 * exponent holds infinities and NaNs (e5m2) or numbers with one NaN
 * code, S.1111.111 (e4m3), and the largest finite value. */
typedef struct {
  int mbits, bias, ieee;
  double max;
} fp8_format;

static fp8_format fp8_of(tn_elem_type t)
{
  fp8_format f;
  if (t == TN_ELEM_E5M2) {
    f.mbits = 2;
    f.bias = 15;
    f.ieee = 1;
    f.max = 57344.0; /* 1.75 x 2^15 */
  } else {
    f.mbits = 3;
    f.bias = 7;
    f.ieee = 0;
    f.max = 448.0; /* 1.75 x 2^8: S.1111.110 */
  }
  return f;
}

double tn_fp8_decode(unsigned char b, tn_elem_type t)
{
  fp8_format f = fp8_of(t);
  int ebits = 7 - f.mbits, top = (1 << ebits) - 1;
  int e = (b >> f.mbits) & top, m = b & ((1 << f.mbits) - 1);
  double v;
  if (f.ieee && e == top)
    v = m ? NAN : INFINITY;
  else if (!f.ieee && e == top && m == (1 << f.mbits) - 1)
    v = NAN;
  else if (e == 0) /* subnormal: m x 2^(1 - bias - mbits) */
    v = ldexp((double)m, 1 - f.bias - f.mbits);
  else
    v = ldexp((double)(m | 1 << f.mbits), e - f.bias - f.mbits);
  return (b & 0x80) ? -v : v;
}

unsigned char tn_fp8_encode(double v, tn_elem_type t)
{
  fp8_format f = fp8_of(t);
  unsigned char sign = signbit(v) ? 0x80 : 0;
  int emin = 1 - f.bias, e;
  double a = fabs(v), r;
  if (isnan(v))
    return sign | 0x7f; /* a NaN in both formats */
  /* the multiple of the quantum at a's exponent (or the subnormals'),
   * rounded to nearest even: exact in a double, and past the largest
   * finite value it saturates */
  e = a == 0.0 ? emin : ilogb(a);
  if (e < emin)
    e = emin;
  r = isinf(a) ? INFINITY
               : ldexp(nearbyint(ldexp(a, f.mbits - e)), e - f.mbits);
  if (r > f.max)
    r = f.max;
  if (r == 0.0)
    return sign;
  if (r < ldexp(1.0, emin)) /* subnormal */
    return sign | (unsigned char)ldexp(r, f.bias - 1 + f.mbits);
  e = ilogb(r);
  return sign | (unsigned char)((e + f.bias) << f.mbits) |
         (unsigned char)((int)ldexp(r, f.mbits - e) & ((1 << f.mbits) - 1));
}

double tn_elem_load(const void *base, size_t i, tn_elem_type t)
{
  const unsigned char *p = base;
  switch (t) {
  case TN_ELEM_F32: {
    float f;
    memcpy(&f, p + 4 * i, 4);
    return f;
  }
  case TN_ELEM_F64: {
    double d;
    memcpy(&d, p + 8 * i, 8);
    return d;
  }
  case TN_ELEM_BF16:
  case TN_ELEM_F16: {
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    if (t == TN_ELEM_BF16) {
      uint32_t u = (uint32_t)h << 16;
      float f;
      memcpy(&f, &u, sizeof(f));
      return f;
    } else {
      int e = (h >> 10) & 31, m = h & 1023;
      double v = e == 31   ? (m ? NAN : INFINITY)
                 : e == 0 ? ldexp((double)m, -24)
                          : ldexp((double)(m | 1024), e - 25);
      return (h & 0x8000) ? -v : v;
    }
  }
  case TN_ELEM_I8:
    return (double)(int8_t)p[i];
  case TN_ELEM_U8:
    return (double)p[i];
  case TN_ELEM_I16: {
    int16_t v;
    memcpy(&v, p + 2 * i, 2);
    return v;
  }
  case TN_ELEM_U16: {
    uint16_t v;
    memcpy(&v, p + 2 * i, 2);
    return v;
  }
  case TN_ELEM_I32: {
    int32_t v;
    memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case TN_ELEM_U32: {
    uint32_t v;
    memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case TN_ELEM_I64: {
    int64_t v;
    memcpy(&v, p + 8 * i, 8);
    return (double)v;
  }
  case TN_ELEM_U64: {
    uint64_t v;
    memcpy(&v, p + 8 * i, 8);
    return (double)v;
  }
  case TN_ELEM_E4M3:
  case TN_ELEM_E5M2:
    return tn_fp8_decode(p[i], t);
  }
  return NAN;
}

void tn_elem_store(void *base, size_t i, tn_elem_type t, double v)
{
  unsigned char *p = base;
  switch (t) {
  case TN_ELEM_F32: {
    float f = (float)v;
    memcpy(p + 4 * i, &f, 4);
    return;
  }
  case TN_ELEM_F64:
    memcpy(p + 8 * i, &v, 8);
    return;
  case TN_ELEM_BF16: {
    uint16_t h = bf16_bits(v);
    memcpy(p + 2 * i, &h, 2);
    return;
  }
  case TN_ELEM_F16: {
    uint16_t h = half_bits(v);
    memcpy(p + 2 * i, &h, 2);
    return;
  }
  case TN_ELEM_I8:
    p[i] = (unsigned char)(int8_t)v;
    return;
  case TN_ELEM_U8:
    p[i] = (unsigned char)v;
    return;
  case TN_ELEM_I16: {
    int16_t x = (int16_t)v;
    memcpy(p + 2 * i, &x, 2);
    return;
  }
  case TN_ELEM_U16: {
    uint16_t x = (uint16_t)v;
    memcpy(p + 2 * i, &x, 2);
    return;
  }
  case TN_ELEM_I32: {
    int32_t x = (int32_t)v;
    memcpy(p + 4 * i, &x, 4);
    return;
  }
  case TN_ELEM_U32: {
    uint32_t x = (uint32_t)v;
    memcpy(p + 4 * i, &x, 4);
    return;
  }
  case TN_ELEM_I64: {
    int64_t x = (int64_t)v;
    memcpy(p + 8 * i, &x, 8);
    return;
  }
  case TN_ELEM_U64: {
    uint64_t x = (uint64_t)v;
    memcpy(p + 8 * i, &x, 8);
    return;
  }
  case TN_ELEM_E4M3:
  case TN_ELEM_E5M2:
    p[i] = tn_fp8_encode(v, t);
    return;
  }
}

/* The names a config gives element types, with their aliases. */
static const struct {
  const char *name;
  tn_elem_type type;
} type_names[] = {
    {"fp64", TN_ELEM_F64},    {"float64", TN_ELEM_F64},
    {"double", TN_ELEM_F64},  {"f64", TN_ELEM_F64},
    {"fp32", TN_ELEM_F32},    {"float32", TN_ELEM_F32},
    {"float", TN_ELEM_F32},   {"f32", TN_ELEM_F32},
    {"fp16", TN_ELEM_F16},    {"float16", TN_ELEM_F16},
    {"half", TN_ELEM_F16},    {"f16", TN_ELEM_F16},
    {"bf16", TN_ELEM_BF16},   {"bfloat16", TN_ELEM_BF16},
    {"int8", TN_ELEM_I8},     {"i8", TN_ELEM_I8},
    {"int16", TN_ELEM_I16},   {"i16", TN_ELEM_I16},
    {"int32", TN_ELEM_I32},   {"i32", TN_ELEM_I32},
    {"int", TN_ELEM_I32},     {"int64", TN_ELEM_I64},
    {"i64", TN_ELEM_I64},     {"uint8", TN_ELEM_U8},
    {"u8", TN_ELEM_U8},       {"uint16", TN_ELEM_U16},
    {"u16", TN_ELEM_U16},     {"uint32", TN_ELEM_U32},
    {"u32", TN_ELEM_U32},     {"unsigned", TN_ELEM_U32},
    {"uint64", TN_ELEM_U64},  {"u64", TN_ELEM_U64},
};

int tn_elem_parse(const char *name)
{
  size_t i;
  for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
    if (strcmp(type_names[i].name, name) == 0)
      return (int)type_names[i].type;
  return -1;
}

const char *tn_elem_long_name(tn_elem_type t)
{
  static const char *const names[TN_ELEM_COUNT] = {
      [TN_ELEM_F32] = "fp32", [TN_ELEM_BF16] = "bf16",
      [TN_ELEM_F16] = "fp16", [TN_ELEM_F64] = "fp64",
      [TN_ELEM_I8] = "int8",  [TN_ELEM_I16] = "int16",
      [TN_ELEM_I32] = "int32", [TN_ELEM_I64] = "int64",
      [TN_ELEM_U8] = "uint8", [TN_ELEM_U16] = "uint16",
      [TN_ELEM_U32] = "uint32", [TN_ELEM_U64] = "uint64",
      [TN_ELEM_E4M3] = "e4m3", [TN_ELEM_E5M2] = "e5m2"};
  return (int)t >= 0 && (int)t < TN_ELEM_COUNT ? names[t] : "?";
}

/* elem.h -- the element types of buffers: their sizes, names, and their
 * values read and written on the host. */
#ifndef TN_ELEM_H
#define TN_ELEM_H

#include <stddef.h>

/* The element type of a buffer.  Zero is fp32, so a buffer a family
 * describes without one is what every buffer was before 16-bit types;
 * the types from F64 to U64 are those a user's kernel may take.  E4M3 and
 * E5M2 are the OCP 8-bit floats (OCP 8-bit Floating Point Specification
 * 1.0) that Hopper's tensor cores multiply: e4m3 has no infinities (max
 * 448, NaN S.1111.111), e5m2 is IEEE-like (max 57344, infinities, NaNs
 * S.11111.xx); the wgmma GEMM's inputs (family/gemm_wg.c), which a
 * config names there, not as a user kernel's buffer type. */
typedef enum {
  TN_ELEM_F32 = 0,
  TN_ELEM_BF16,
  TN_ELEM_F16,
  TN_ELEM_F64,
  TN_ELEM_I8,
  TN_ELEM_I16,
  TN_ELEM_I32,
  TN_ELEM_I64,
  TN_ELEM_U8,
  TN_ELEM_U16,
  TN_ELEM_U32,
  TN_ELEM_U64,
  TN_ELEM_E4M3,
  TN_ELEM_E5M2
} tn_elem_type;
#define TN_ELEM_COUNT (TN_ELEM_E5M2 + 1)

/* Bytes of one element of type t: 1 to 8 (0 for a value not in the
 * enum, which a caller treats as a bug in the family). */
int tn_elem_bytes(tn_elem_type t);
/* "f32", "bf16", "f16", "f64", "i8" ... "u64" ("?" for a value not in
 * the enum). */
const char *tn_elem_name(tn_elem_type t);
/* 1 if t is a floating-point type, 0 for an integer. */
int tn_elem_is_float(tn_elem_type t);
/* 1 if t is a signed integer type. */
int tn_elem_is_signed(tn_elem_type t);
/* Element i of an array of type t at base, as a double (16- and 8-bit
 * floats decoded exactly, subnormals, infinities and NaNs included; 64-bit
 * integers rounded past 2^53). */
double tn_elem_load(const void *base, size_t i, tn_elem_type t);
/* Stores v as element i of type t: floating types rounded to nearest
 * (ties to even); integers converted as C converts (the caller keeps v in
 * the type's range).  The 8-bit floats saturate: a value whose rounding
 * passes the largest finite one (infinities too) is stored as +-448
 * (e4m3) or +-57344 (e5m2), as cvt.rn.satfinite does; NaN stays NaN. */
void tn_elem_store(void *base, size_t i, tn_elem_type t, double v);
/* The value of 8-bit float code b of type t (TN_ELEM_E4M3 or E5M2),
 * exactly; and the code of v, rounded and saturated as tn_elem_store
 * does. */
double tn_fp8_decode(unsigned char b, tn_elem_type t);
unsigned char tn_fp8_encode(double v, tn_elem_type t);
/* The type a config calls name ("fp32", "float32", "float", "f32",
 * "bf16", "int8", "uint64", ...), or -1: the types a user's kernel may
 * take (not the 8-bit floats). */
int tn_elem_parse(const char *name);
/* The name a config gives t ("fp32", "int8", ...; "?" if unknown). */
const char *tn_elem_long_name(tn_elem_type t);

#endif

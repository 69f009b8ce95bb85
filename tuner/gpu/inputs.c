/* inputs.c -- fresh random inputs and poisoned outputs, in each buffer's
 * element type, inside the worker. */
#define _POSIX_C_SOURCE 200809L
#include "gpu/inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "gpu/nvrtc.h"

/* The source numbers the types as the enum does. */
_Static_assert(TN_ELEM_F32 == 0 && TN_ELEM_BF16 == 1 && TN_ELEM_F16 == 2 &&
                   TN_ELEM_E4M3 == 12 && TN_ELEM_E5M2 == 13,
               "tn_fill_random's type argument follows tn_elem_type");

/* Element i of x is tn_random_elem(seed, i, type) (family.h): the same
 * splitmix64 bits; fp32 and bf16 from the fp32 value, fp16 from the top
 * 11 of the 24 bits, the 8-bit floats from 5 u >> 24.  (float)(k - 1024)
 * / 1024 is exact, so the conversion's rounding never applies.
 * tn_fp8_bits is the host's tn_fp8_encode (family/elem.c), line for line:
 * round to nearest even, saturated to the largest finite value. */
const char tn_inputs_generator_source[] =
    "__device__ unsigned char tn_fp8_bits(double v, int e5m2)\n"
    "{\n"
    "  int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7, emin = 1 - bias, e;\n"
    "  double maxv = e5m2 ? 57344.0 : 448.0, a = fabs(v), r;\n"
    "  unsigned char sign = signbit(v) ? 0x80 : 0;\n"
    "  if (isnan(v)) return sign | 0x7f;\n"
    "  e = a == 0.0 ? emin : ilogb(a);\n"
    "  if (e < emin) e = emin;\n"
    "  r = isinf(a) ? maxv : ldexp(rint(ldexp(a, mbits - e)), e - mbits);\n"
    "  if (r > maxv) r = maxv;\n"
    "  if (r == 0.0) return sign;\n"
    "  if (r < ldexp(1.0, emin))\n"
    "    return sign | (unsigned char)ldexp(r, bias - 1 + mbits);\n"
    "  e = ilogb(r);\n"
    "  return sign | (unsigned char)((e + bias) << mbits) |\n"
    "         (unsigned char)((int)ldexp(r, mbits - e) & ((1 << mbits) - 1));\n"
    "}\n"
    "extern \"C\" __global__ void tn_fill_random(void *x,\n"
    "    unsigned long long n, unsigned long long seed, int type)\n"
    "{\n"
    "  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x\n"
    "                         + threadIdx.x;\n"
    "  for (; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {\n"
    "    unsigned long long z = seed + i * 0x9e3779b97f4a7c15ULL;\n"
    "    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;\n"
    "    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;\n"
    "    z ^= z >> 31;\n"
    "    z >>= 40;\n"
    "    if (type == 12 || type == 13) {\n"
    "      double v = (double)((long long)((z * 5) >> 24) - 2) / 8.0;\n"
    "      ((unsigned char *)x)[i] = tn_fp8_bits(v, type == 13);\n"
    "    } else if (type == 2) {\n"
    "      float v = (float)((long long)(z >> 13) - 1024) * (1.0f / 1024);\n"
    "      unsigned short h;\n"
    "      asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(v));\n"
    "      ((unsigned short *)x)[i] = h;\n"
    "    } else {\n"
    "      union { float f; unsigned u; } v;\n"
    "      v.f = (float)((double)z * (1.0 / 8388608.0) - 1.0);\n"
    "      if (type == 1)\n"
    "        ((unsigned short *)x)[i] = (unsigned short)(v.u >> 16);\n"
    "      else\n"
    "        ((float *)x)[i] = v.f;\n"
    "    }\n"
    "  }\n"
    "}\n";

/* What a user's buffer holds before a launch (tn_buffer_init): element i
 * of type t (tn_elem_type's numbers) by kind (tn_init_kind's): uniform in
 * [a, b] (integers inclusive, from 64 random bits; floating values from
 * 53), zeros, the constant a, or the ramp a + i b; integers computed as
 * integers.  16- and 8-bit floats are rounded to nearest even by hand,
 * the same way the host's tn_elem_store rounds them (the 8-bit ones with
 * the generator's tn_fp8_bits, in the same module).  The shipped families
 * take it for constant inputs too (the fp8 GEMM's scales). */
const char tn_inputs_values_source[] =
    "__device__ unsigned long long tn_mix(unsigned long long z)\n"
    "{\n"
    "  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;\n"
    "  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;\n"
    "  return z ^ (z >> 31);\n"
    "}\n"
    "__device__ unsigned short tn_half_bits(double v)\n"
    "{\n"
    "  unsigned short sign = signbit(v) ? 0x8000 : 0;\n"
    "  double a = fabs(v), r;\n"
    "  int e;\n"
    "  if (isnan(v)) return 0x7e00;\n"
    "  if (a >= 65520.0) return sign | 0x7c00;\n"
    "  if (a < ldexp(1.0, -14))\n"
    "    return sign | (unsigned short)rint(ldexp(a, 24));\n"
    "  e = ilogb(a);\n"
    "  r = rint(ldexp(a, 10 - e));\n"
    "  if (r >= 2048.0) { r /= 2; e++; }\n"
    "  return sign | (unsigned short)((e + 15) << 10) |\n"
    "         ((unsigned short)r & 1023);\n"
    "}\n"
    "__device__ unsigned short tn_bf16_bits(double v)\n"
    "{\n"
    "  float f = (float)v;\n"
    "  unsigned u = __float_as_uint(f);\n"
    "  if (isnan(f)) return (unsigned short)((u >> 16) | 0x40);\n"
    "  u += 0x7fff + ((u >> 16) & 1);\n"
    "  return (unsigned short)(u >> 16);\n"
    "}\n"
    "extern \"C\" __global__ void tn_fill_values(void *x,\n"
    "    unsigned long long n, unsigned long long seed, int type, int kind,\n"
    "    double a, double b)\n"
    "{\n"
    "  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x\n"
    "                         + threadIdx.x;\n"
    "  for (; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {\n"
    "    unsigned long long r = tn_mix(seed + i * 0x9e3779b97f4a7c15ULL);\n"
    "    double v = 0.0;\n"
    "    long long k = 0;\n"
    "    int is_float = type <= 3 || type == 12 || type == 13;\n"
    "    if (kind == 1 && is_float)\n"
    "      v = a + (b - a) * ((double)(r >> 11) * (1.0 / 9007199254740992.0));\n"
    "    else if (kind == 1) {\n"
    "      unsigned long long span = (unsigned long long)((long long)b -\n"
    "                                (long long)a) + 1;\n"
    "      k = (long long)a + (long long)(span ? r % span : r);\n"
    "    } else if (kind == 3) {\n"
    "      v = a; k = (long long)a;\n"
    "    } else if (kind == 4) {\n"
    "      v = a + (double)i * b;\n"
    "      k = (long long)a + (long long)i * (long long)b;\n"
    "    }\n"
    "    switch (type) {\n"
    "    case 0: ((float *)x)[i] = (float)v; break;\n"
    "    case 1: ((unsigned short *)x)[i] = tn_bf16_bits(v); break;\n"
    "    case 2: ((unsigned short *)x)[i] = tn_half_bits(v); break;\n"
    "    case 3: ((double *)x)[i] = v; break;\n"
    "    case 12: case 13:\n"
    "      ((unsigned char *)x)[i] = tn_fp8_bits(v, type == 13); break;\n"
    "    case 4: case 8: ((unsigned char *)x)[i] = (unsigned char)k; break;\n"
    "    case 5: case 9: ((unsigned short *)x)[i] = (unsigned short)k;\n"
    "      break;\n"
    "    case 6: case 10: ((unsigned *)x)[i] = (unsigned)k; break;\n"
    "    default: ((unsigned long long *)x)[i] = (unsigned long long)k;\n"
    "    }\n"
    "  }\n"
    "}\n";
_Static_assert(TN_ELEM_F64 == 3 && TN_ELEM_I8 == 4 && TN_ELEM_U8 == 8 &&
                   TN_ELEM_U64 == 11,
               "tn_fill_values's type argument follows tn_elem_type");
_Static_assert(TN_INIT_UNIFORM == 1 && TN_INIT_ZEROS == 2 &&
                   TN_INIT_CONSTANT == 3 && TN_INIT_RAMP == 4,
               "tn_fill_values's kind argument follows tn_init_kind");

#define CU(call) tn_cuda_failed(in->cu, in->st, in->cu->call, #call)

int tn_inputs_load(tn_inputs *in, int cc_major, int cc_minor, char *why,
                   size_t n)
{
  size_t la = strlen(tn_inputs_generator_source);
  size_t lb = strlen(tn_inputs_values_source);
  char *both;
  void *cubin;
  size_t len;
  int rc;

  if (in->fn)
    return 0;
  both = malloc(la + lb + 1);
  if (both == NULL) {
    snprintf(why, n, "out of memory");
    return -1;
  }
  memcpy(both, tn_inputs_generator_source, la);
  memcpy(both + la, tn_inputs_values_source, lb + 1);
  rc = tn_nvrtc_helper_cc(both, "generator.cu", cc_major, cc_minor,
                          "the input generator does not compile", &cubin,
                          &len, why, n);
  free(both);
  if (rc != 0)
    return -1;
  rc = CU(cuModuleLoadData(&in->module, cubin)) ||
       CU(cuModuleGetFunction(&in->fn, in->module, "tn_fill_random")) ||
       CU(cuModuleGetFunction(&in->values_fn, in->module, "tn_fill_values"));
  free(cubin);
  return rc ? -1 : 0;
}

void tn_inputs_unload(tn_inputs *in)
{
  if (in->module)
    in->cu->cuModuleUnload(in->module);
  in->module = NULL;
  in->fn = NULL;
}

/* Enqueues the generator filling count elements of type t at x. */
static int generate(tn_inputs *in, CUdeviceptr x, size_t count,
                    tn_elem_type t, unsigned long long seed)
{
  unsigned long long nc = count;
  int type = (int)t;
  unsigned blocks = (unsigned)((count + 255) / 256);
  unsigned cap = (unsigned)(in->sm_count > 0 ? in->sm_count : 1) * 32;
  void *args[4];
  args[0] = &x;
  args[1] = &nc;
  args[2] = &seed;
  args[3] = &type;
  if (blocks > cap)
    blocks = cap;
  if (blocks == 0)
    blocks = 1;
  return CU(cuLaunchKernel(in->fn, blocks, 1, 1, 256, 1, 1, 0, in->stream,
                           args, NULL))
             ? -1
             : 0;
}

/* Enqueues the values kernel filling count elements of type t at x as
 * init says. */
static int generate_values(tn_inputs *in, CUdeviceptr x, size_t count,
                           tn_elem_type t, const tn_buffer_init *init,
                           unsigned long long seed)
{
  unsigned long long nc = count;
  int type = (int)t, kind = (int)init->kind;
  double a = init->a, b = init->b;
  unsigned blocks = (unsigned)((count + 255) / 256);
  unsigned cap = (unsigned)(in->sm_count > 0 ? in->sm_count : 1) * 32;
  void *args[7];
  args[0] = &x;
  args[1] = &nc;
  args[2] = &seed;
  args[3] = &type;
  args[4] = &kind;
  args[5] = &a;
  args[6] = &b;
  if (blocks > cap)
    blocks = cap;
  if (blocks == 0)
    blocks = 1;
  return CU(cuLaunchKernel(in->values_fn, blocks, 1, 1, 256, 1, 1, 0,
                           in->stream, args, NULL))
             ? -1
             : 0;
}

/* Every buffer a whole number of elements of a type the generator
 * writes: else a family's buffers() is wrong, and nothing is filled. */
static int check_types(const tn_buffers *bufs, char *why, size_t n)
{
  int i;
  for (i = 0; i < bufs->n; i++) {
    const tn_buffer_desc *d = &bufs->desc[i];
    int eb = tn_elem_bytes(d->elem);
    if (eb == 0) {
      snprintf(why, n, "buffer %s: unknown element type %d", d->name,
               (int)d->elem);
      return -1;
    }
    if (d->bytes % (size_t)eb != 0) {
      snprintf(why, n, "buffer %s: %zu bytes is not a whole number of %s "
                       "elements",
               d->name, d->bytes, tn_elem_name(d->elem));
      return -1;
    }
  }
  return 0;
}

/* Poisons output buffer i of set s with the NaN of its type. */
static int poison(tn_inputs *in, const tn_buffers *bufs, int i, int s)
{
  const tn_buffer_desc *d = &bufs->desc[i];
  if (!tn_elem_is_float(d->elem))
    return CU(cuMemsetD8(bufs->dev[s][i], TN_POISON_BYTE, d->bytes));
  if (d->elem == TN_ELEM_F64) /* 0x7ff8dead twice: a NaN in fp64 */
    return CU(cuMemsetD32(bufs->dev[s][i], TN_POISON_BITS64_HALF,
                          d->bytes / 4));
  if (tn_elem_bytes(d->elem) == 2)
    return CU(cuMemsetD16(bufs->dev[s][i], (unsigned short)TN_POISON_BITS16,
                          d->bytes / 2));
  if (tn_elem_bytes(d->elem) == 1)
    return CU(cuMemsetD8(bufs->dev[s][i], TN_POISON_BITS8, d->bytes));
  return CU(cuMemsetD32(bufs->dev[s][i], TN_POISON_BITS, d->bytes / 4));
}

int tn_inputs_fill(tn_inputs *in, tn_buffers *bufs, unsigned long long seed,
                   char *why, size_t n)
{
  int i, s;
  if (check_types(bufs, why, n) != 0)
    return -1;
  for (i = 0; i < bufs->n; i++)
    if (bufs->desc[i].role == TN_BUF_OUT)
      for (s = 0; s < bufs->sets; s++)
        if (poison(in, bufs, i, s))
          return -1;
  /* the memsets run on the legacy stream, the rest on ours */
  if (CU(cuCtxSynchronize()))
    return -1;
  for (i = 0; i < bufs->n; i++) {
    const tn_buffer_desc *d = &bufs->desc[i];
    CUdeviceptr first;
    if (d->role == TN_BUF_OUT)
      continue;
    first = d->role == TN_BUF_INOUT ? bufs->dev_init[i] : bufs->dev[0][i];
    if (d->init.kind == TN_INIT_SEEDED
            ? generate(in, first, d->bytes / (size_t)tn_elem_bytes(d->elem),
                       d->elem, tn_buffer_seed(seed, i))
            : generate_values(in, first,
                              d->bytes / (size_t)tn_elem_bytes(d->elem),
                              d->elem, &d->init, tn_buffer_seed(seed, i)))
      return -1;
    for (s = 0; s < bufs->sets; s++)
      if (bufs->dev[s][i] != first &&
          CU(cuMemcpyDtoDAsync(bufs->dev[s][i], first, d->bytes,
                               in->stream)))
        return -1;
  }
  if (CU(cuStreamSynchronize(in->stream)))
    return -1;
  for (i = 0; i < bufs->n; i++) {
    const tn_buffer_desc *d = &bufs->desc[i];
    if (d->role == TN_BUF_OUT || bufs->host[i] == NULL)
      continue;
    if (CU(cuMemcpyDtoH(bufs->host[i], bufs->dev[0][i], d->bytes)))
      return -1;
    if (d->role == TN_BUF_INOUT)
      memcpy(bufs->host_init[i], bufs->host[i], d->bytes);
  }
  return 0;
}

/* compare.c -- an output compared with the output it should be, on the
 * GPU (compare.h). */
#define _POSIX_C_SOURCE 200809L
#include "gpu/compare.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/arch.h"
#include "gpu/nvrtc.h"

/* The types follow tn_elem_type; 16-bit floats are decoded from their
 * bits, as the host's tn_elem_load decodes them.  counts[0] counts the
 * elements that differ, counts[1] keeps the least index of one. */
const char tn_compare_source[] =
    "__device__ double tn_load(const void *p, unsigned long long i, int t)\n"
    "{\n"
    "  switch (t) {\n"
    "  case 0: return ((const float *)p)[i];\n"
    "  case 1: return __uint_as_float(\n"
    "      (unsigned)((const unsigned short *)p)[i] << 16);\n"
    "  case 2: {\n"
    "    unsigned short h = ((const unsigned short *)p)[i];\n"
    "    int e = (h >> 10) & 31, m = h & 1023;\n"
    "    double v = e == 31 ? (m ? __longlong_as_double(0x7ff8000000000000LL)\n"
    "                            : __longlong_as_double(0x7ff0000000000000LL))\n"
    "               : e == 0 ? ldexp((double)m, -24)\n"
    "                        : ldexp((double)(m | 1024), e - 25);\n"
    "    return (h & 0x8000) ? -v : v;\n"
    "  }\n"
    "  default: return ((const double *)p)[i];\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void tn_compare(const void *got,\n"
    "    const void *want, unsigned long long n, int type, int bytes,\n"
    "    double atol, double rtol, unsigned long long *counts)\n"
    "{\n"
    "  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x\n"
    "                         + threadIdx.x;\n"
    "  for (; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {\n"
    "    int differs;\n"
    "    if (type <= 3) {\n"
    "      double x = tn_load(got, i, type), r = tn_load(want, i, type);\n"
    "      double err = fabs(x - r);\n"
    "      differs = !(err <= atol + rtol * fabs(r));\n"
    "    } else if (bytes == 1) {\n"
    "      differs = ((const unsigned char *)got)[i] !=\n"
    "                ((const unsigned char *)want)[i];\n"
    "    } else if (bytes == 2) {\n"
    "      differs = ((const unsigned short *)got)[i] !=\n"
    "                ((const unsigned short *)want)[i];\n"
    "    } else if (bytes == 4) {\n"
    "      differs = ((const unsigned *)got)[i] != ((const unsigned *)want)[i];\n"
    "    } else {\n"
    "      differs = ((const unsigned long long *)got)[i] !=\n"
    "                ((const unsigned long long *)want)[i];\n"
    "    }\n"
    "    if (differs) {\n"
    "      atomicAdd(&counts[0], 1ULL);\n"
    "      atomicMin(&counts[1], i);\n"
    "    }\n"
    "  }\n"
    "}\n";
_Static_assert(TN_ELEM_F32 == 0 && TN_ELEM_BF16 == 1 && TN_ELEM_F16 == 2 &&
                   TN_ELEM_F64 == 3,
               "tn_compare's type argument follows tn_elem_type");

#define CU(call) tn_cuda_failed(c->cu, c->st, c->cu->call, #call)

static int load(tn_compare *c, int cc_major, int cc_minor, char *why,
                size_t n)
{
  void *cubin;
  size_t len;
  int rc;

  if (c->fn)
    return 0;
  if (tn_nvrtc_helper_cc(tn_compare_source, "compare.cu", cc_major, cc_minor,
                         "the comparison kernel does not compile", &cubin,
                         &len, why, n) != 0)
    return -1;
  rc = CU(cuModuleLoadData(&c->module, cubin)) ||
       CU(cuModuleGetFunction(&c->fn, c->module, "tn_compare")) ||
       CU(cuMemAlloc(&c->counts, 2 * sizeof(unsigned long long)));
  free(cubin);
  return rc ? -1 : 0;
}

int tn_compare_run(tn_compare *c, int cc_major, int cc_minor,
                   CUdeviceptr got, CUdeviceptr want, size_t count,
                   tn_elem_type t, double atol, double rtol,
                   unsigned long long *bad, unsigned long long *first,
                   char *why, size_t n)
{
  unsigned long long start[2] = {0, ~0ULL}, nc = count, out[2];
  int type = (int)t, bytes = tn_elem_bytes(t);
  unsigned blocks = (unsigned)((count + 255) / 256);
  unsigned cap = (unsigned)(c->sm_count > 0 ? c->sm_count : 1) * 32;
  void *args[8];

  if (load(c, cc_major, cc_minor, why, n) != 0)
    return -1;
  args[0] = &got;
  args[1] = &want;
  args[2] = &nc;
  args[3] = &type;
  args[4] = &bytes;
  args[5] = &atol;
  args[6] = &rtol;
  args[7] = &c->counts;
  if (blocks > cap)
    blocks = cap;
  if (blocks == 0)
    blocks = 1;
  if (CU(cuMemcpyHtoD(c->counts, start, sizeof(start))) ||
      CU(cuLaunchKernel(c->fn, blocks, 1, 1, 256, 1, 1, 0, c->stream, args,
                        NULL)) ||
      CU(cuStreamSynchronize(c->stream)) ||
      CU(cuMemcpyDtoH(out, c->counts, sizeof(out))))
    return -1;
  *bad = out[0];
  *first = out[1];
  return 0;
}

void tn_compare_unload(tn_compare *c)
{
  if (c->counts)
    c->cu->cuMemFree(c->counts);
  if (c->module)
    c->cu->cuModuleUnload(c->module);
  c->counts = 0;
  c->module = NULL;
  c->fn = NULL;
}

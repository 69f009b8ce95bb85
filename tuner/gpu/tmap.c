/* tmap.c -- tensor maps encoded against a buffer set (tmap.h). */
#include <stdio.h>
#include <string.h>

#include "gpu/tmap.h"

/* The copy engine's type of t: it moves bits, so a type it has no name
 * for travels as the unsigned one of its width (int8 and fp8 as bytes). */
static CUtensorMapDataType data_type(tn_elem_type t)
{
  switch (t) {
  case TN_ELEM_BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case TN_ELEM_F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case TN_ELEM_F64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  case TN_ELEM_I8:
  case TN_ELEM_U8:
  case TN_ELEM_E4M3:
  case TN_ELEM_E5M2:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case TN_ELEM_I16:
  case TN_ELEM_U16:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case TN_ELEM_I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case TN_ELEM_U32:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  case TN_ELEM_I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case TN_ELEM_U64:
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  default:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  }
}

static CUtensorMapSwizzle swizzle(int bytes)
{
  return bytes == 32    ? CU_TENSOR_MAP_SWIZZLE_32B
         : bytes == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
         : bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                        : CU_TENSOR_MAP_SWIZZLE_NONE;
}

static CUtensorMapL2promotion promotion(int bytes)
{
  return bytes == 64    ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
         : bytes == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
         : bytes == 256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                        : CU_TENSOR_MAP_L2_PROMOTION_NONE;
}

int tn_tmap_encode(const tn_cuda *cu, const tn_tmap_desc *d, tn_devptr base,
                   void *map, char *why, size_t n)
{
  cuuint64_t dims[TN_TMAP_MAX_RANK], strides[TN_TMAP_MAX_RANK - 1];
  cuuint32_t box[TN_TMAP_MAX_RANK], estr[TN_TMAP_MAX_RANK];
  char msg[200];
  CUresult r;
  int i;

  if (cu->cuTensorMapEncodeTiled == NULL) {
    snprintf(why, n, "the driver has no cuTensorMapEncodeTiled (CUDA 12.0 "
                     "or later has): no tensor maps");
    return -1;
  }
  if (tn_tmap_check(d, why, n) != 0)
    return -1;
  if (base % 16 != 0) {
    snprintf(why, n, "tensor map: buffer %d at 0x%llx is not 16-byte "
                     "aligned", d->buffer, base);
    return -1;
  }
  for (i = 0; i < d->rank; i++) {
    dims[i] = d->dims[i];
    box[i] = d->box[i];
    estr[i] = 1;
    if (i > 0)
      strides[i - 1] = d->strides[i - 1];
  }
  r = cu->cuTensorMapEncodeTiled(
      (CUtensorMap *)map, data_type(d->elem), (cuuint32_t)d->rank,
      (void *)(uintptr_t)base, dims, strides, box, estr,
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle(d->swizzle),
      promotion(d->l2_promotion), CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    snprintf(why, n, "cuTensorMapEncodeTiled (buffer %d): %s", d->buffer,
             tn_cuda_strerror(cu, r, msg, sizeof(msg)));
    return -1;
  }
  return 0;
}

int tn_kernel_args(const tn_cuda *cu, const tn_family *f, const tn_params *p,
                   const tn_problem *prob, const tn_devptr *bufs,
                   tn_devptr workspace, tn_args *a, char *why, size_t n)
{
  tn_tmap_desc maps[TN_MAX_TMAPS];
  int nm = 0, i;

  memset(maps, 0, sizeof(maps));
  if (f->tensor_maps)
    nm = f->tensor_maps(f, p, prob, maps);
  if (nm < 0 || nm > TN_MAX_TMAPS) {
    snprintf(why, n, "family %s asks for %d tensor maps (at most %d)", f->name,
             nm, TN_MAX_TMAPS);
    return -1;
  }
  for (i = 0; i < nm; i++) {
    void *slot = tn_args_add_map(a);
    if (slot == NULL) {
      snprintf(why, n, "family %s: no room for tensor map %d", f->name, i);
      return -1;
    }
    if (maps[i].buffer < 0 || maps[i].buffer >= TN_MAX_BUFFERS) {
      snprintf(why, n, "family %s: tensor map %d names buffer %d", f->name,
               i, maps[i].buffer);
      return -1;
    }
    if (tn_tmap_encode(cu, &maps[i], bufs[maps[i].buffer], slot, why, n) !=
        0)
      return -1;
  }
  f->args(f, p, prob, bufs, a);
  if (workspace != 0)
    tn_args_add(a, &workspace, sizeof(workspace));
  if (a->overflow) {
    snprintf(why, n,
             "family %s has more kernel arguments than %d (or "
             "one over 16 bytes)",
             f->name, TN_MAX_ARGS);
    return -1;
  }
  return 0;
}

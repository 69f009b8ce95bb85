/* copy_engine.c -- the copy engine's time per box (copy_engine.h).
 *
 * Why it is measured as it is:
 * - the data stay in L2 (a 4 MiB tensor each way), so that what limits
 *   is the engine and the path to L2, not DRAM, which the time model
 *   prices on its own;
 * - one thread a block issues, as the templates' kernels do, and as many
 *   blocks as fit share each SM's engine: what a tile's boxes cost an SM
 *   when its blocks all copy;
 * - loads keep two halves of the block's buffer in flight on two
 *   mbarriers, stores two bulk groups: the engine never waits for the
 *   issuing thread;
 * - each block writes the count of its boxes, and the host checks them
 *   all after each shape, so no work is dropped unseen;
 * - a kernel that does not compile, or maps the driver refuses, leave
 *   the boxes unmeasured (skipped, with why), not the whole profile.
 * The PTX is the templates' (templates/tma_ops.h), written here in the
 * calibration's own NVRTC program, which needs no include path. */
#define _POSIX_C_SOURCE 200809L
#include "calibrate/copy_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family/tmap.h"
#include "gpu/tmap.h"

#define CU(call) tn_cuda_failed(&g->cu, &g->st, g->cu.call, #call)

/* A block's buffer (two halves), the tensor's extent (floats: 8 KiB
 * rows, 512 of them: 4 MiB), the bytes each block moves a launch (about
 * 1 ms on an H200) and the most blocks an SM runs. */
#define CE_SMEM 32768
#define CE_COLS 2048
#define CE_ROWS 512
#define CE_BLOCK_BYTES (8 << 20)
#define CE_MOST_BLOCKS 8

#define STR_(x) #x
#define STR(x) STR_(x)

const char tn_calib_copy_engine_source[] =
    "#define CE_SMEM " STR(CE_SMEM) "\n"
    "struct __align__(64) ce_map { unsigned long long o[16]; };\n"
    "\n"
    "/* Boxes of box_w x box_h floats (box_bytes each) at the b-th place\n"
    " * of a grid of across x down boxes, b counting on from the block's\n"
    " * own start: `half` boxes a batch, `iters` batches, load (store 0)\n"
    " * or store (store 1).  Thread 0 issues; out gets the boxes' count. */\n"
    "extern \"C\" __global__ void tn_cal_tma(const __grid_constant__ ce_map src,\n"
    "    const __grid_constant__ ce_map dst, int store, int box_w, int box_h,\n"
    "    unsigned box_bytes, int half, int iters, int across, int down,\n"
    "    unsigned *out)\n"
    "{\n"
    "#if __CUDA_ARCH__ >= 900\n"
    "  __shared__ __align__(1024) unsigned char buf[CE_SMEM];\n"
    "  __shared__ __align__(8) unsigned long long bar[2];\n"
    "  unsigned sb = (unsigned)__cvta_generic_to_shared(buf);\n"
    "  unsigned bars = (unsigned)__cvta_generic_to_shared(bar);\n"
    "  unsigned b = blockIdx.x * 97u, n = 0;\n"
    "  for (int i = threadIdx.x; i < CE_SMEM / 4; i += blockDim.x)\n"
    "    ((unsigned *)buf)[i] = (unsigned)i;\n"
    "  /* the threads' writes, visible to the copy engine */\n"
    "  asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x != 0)\n"
    "    return;\n"
    "  if (!store) {\n"
    "    asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" :: \"r\"(bars)\n"
    "                 : \"memory\");\n"
    "    asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" ::\n"
    "                 \"r\"(bars + 8) : \"memory\");\n"
    "    asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
    "    /* barrier h's k-th batch is batch 2k + h; its phase k completes\n"
    "     * with parity k & 1; the last two batches are waited after */\n"
    "    for (int i = 0; i < iters + 2; i++) {\n"
    "      unsigned h = (unsigned)i & 1u, bh = bars + 8u * h, done = 0;\n"
    "      if (i >= 2)\n"
    "        while (!done)\n"
    "          asm volatile(\"{\\n .reg .pred p;\\n\"\n"
    "                       \" mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\\n\"\n"
    "                       \" selp.u32 %0, 1, 0, p;\\n}\"\n"
    "                       : \"=r\"(done) : \"r\"(bh), \"r\"(((unsigned)(i - 2) >> 1) & 1u)\n"
    "                       : \"memory\");\n"
    "      if (i >= iters)\n"
    "        continue;\n"
    "      asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\"\n"
    "                   :: \"r\"(bh), \"r\"((unsigned)half * box_bytes) : \"memory\");\n"
    "      for (int s = 0; s < half; s++, b++, n++) {\n"
    "        int c0 = (int)(b % (unsigned)across) * box_w;\n"
    "        int c1 = (int)((b / (unsigned)across) % (unsigned)down) * box_h;\n"
    "        asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.\"\n"
    "                     \"mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\"\n"
    "                     :: \"r\"(sb + (h * (unsigned)half + (unsigned)s) * box_bytes),\n"
    "                     \"l\"((unsigned long long)&src), \"r\"(bh), \"r\"(c0), \"r\"(c1)\n"
    "                     : \"memory\");\n"
    "      }\n"
    "    }\n"
    "  } else {\n"
    "    for (int i = 0; i < iters; i++) {\n"
    "      unsigned h = (unsigned)i & 1u;\n"
    "      for (int s = 0; s < half; s++, b++, n++) {\n"
    "        int c0 = (int)(b % (unsigned)across) * box_w;\n"
    "        int c1 = (int)((b / (unsigned)across) % (unsigned)down) * box_h;\n"
    "        asm volatile(\"cp.async.bulk.tensor.2d.global.shared::cta.bulk_group \"\n"
    "                     \"[%0, {%2, %3}], [%1];\"\n"
    "                     :: \"l\"((unsigned long long)&dst),\n"
    "                     \"r\"(sb + (h * (unsigned)half + (unsigned)s) * box_bytes),\n"
    "                     \"r\"(c0), \"r\"(c1) : \"memory\");\n"
    "      }\n"
    "      asm volatile(\"cp.async.bulk.commit_group;\" ::: \"memory\");\n"
    "      asm volatile(\"cp.async.bulk.wait_group.read 1;\" ::: \"memory\");\n"
    "    }\n"
    "    asm volatile(\"cp.async.bulk.wait_group 0;\" ::: \"memory\");\n"
    "  }\n"
    "  out[blockIdx.x] = n;\n"
    "#endif\n"
    "}\n";

/* The swizzle a box of row_bytes rows is measured under: the span of
 * its width (none for 256 bytes, wider than any swizzle). */
static int swizzle_of(int row_bytes)
{
  return row_bytes <= 128 ? row_bytes : 0;
}

static int skip_all(tn_calib_profile *p, const char *why)
{
  int op, w, r;
  for (op = 0; op < TN_PROFILE_TMA_OPS; op++)
    for (w = 0; w < TN_PROFILE_TMA_N_WIDTHS; w++)
      for (r = 0; r < TN_PROFILE_TMA_N_ROWS; r++) {
        p->tma[op][w][r].measured = 0; /* all or none: the reader's rule */
        tn_strlcpy(p->tma[op][w][r].skipped, why,
                   sizeof(p->tma[op][w][r].skipped));
      }
  return 0;
}

/* A 2D float tensor map over base (CE_COLS x CE_ROWS) in boxes of
 * row_bytes x rows under the width's swizzle, encoded into map. */
static int encode(tn_calib_gpu *g, CUdeviceptr base, int row_bytes, int rows,
                  CUtensorMap *map)
{
  tn_tmap_desc d;
  memset(&d, 0, sizeof(d));
  d.elem = TN_ELEM_F32;
  d.rank = 2;
  d.dims[0] = CE_COLS;
  d.dims[1] = CE_ROWS;
  d.strides[0] = CE_COLS * 4;
  d.box[0] = (unsigned)(row_bytes / 4);
  d.box[1] = (unsigned)rows;
  d.swizzle = swizzle_of(row_bytes);
  d.l2_promotion = 128; /* as the transpose's maps */
  if (tn_tmap_encode(&g->cu, &d, (tn_devptr)base, map, g->st.what,
                     sizeof(g->st.what)) != 0) {
    g->st.last = CUDA_ERROR_INVALID_VALUE;
    return -1;
  }
  return 0;
}

/* Every block wrote the count of the boxes it moved: all of them, or the
 * time measured is not the boxes' (a body compiled out, a loop cut). */
static int check_counts(tn_calib_gpu *g, CUdeviceptr out, unsigned blocks,
                        unsigned want, unsigned *counts)
{
  unsigned b;
  if (CU(cuMemcpyDtoH(counts, out, sizeof(*counts) * blocks)))
    return -1;
  for (b = 0; b < blocks; b++)
    if (counts[b] != want) {
      snprintf(g->st.what, sizeof(g->st.what),
               "the copy engine's kernel: block %u moved %u boxes, not %u",
               b, counts[b], want);
      g->st.last = CUDA_ERROR_UNKNOWN;
      return -1;
    }
  return 0;
}

int tn_calib_measure_copy_engine(tn_calib_gpu *g, tn_calib_profile *p,
                                 tn_err *err)
{
  static const int widths[TN_PROFILE_TMA_N_WIDTHS] = TN_PROFILE_TMA_WIDTHS;
  static const int rows[TN_PROFILE_TMA_N_ROWS] = TN_PROFILE_TMA_ROWS;
  size_t bytes = (size_t)CE_COLS * CE_ROWS * 4;
  CUdeviceptr src = 0, dst = 0, out = 0;
  CUmodule mod = NULL;
  CUfunction fn = NULL;
  unsigned *counts = NULL;
  int bps, rc = -1, op, w, r;

  if (p->cc_major < 9)
    return skip_all(p, "no copy engine (TMA) before sm_90");
  /* a toolkit that cannot compile the kernel, or a driver that refuses
   * its maps, leaves the boxes unmeasured (the model then prices none),
   * not the rest of the profile */
  if (tn_calib_load_module(g, p, tn_calib_copy_engine_source,
                           "calibrate_copy_engine.cu",
                           "the copy engine's kernel", &mod, err) != 0) {
    skip_all(p, err->msg);
    memset(&g->st, 0, sizeof(g->st));
    memset(err, 0, sizeof(*err));
    return 0;
  }
  /* blocks an SM holds by shared memory (1 KiB each reserved), at most
   * CE_MOST_BLOCKS: one wave over every SM */
  bps = p->smem_per_sm / (CE_SMEM + 1024 + 64);
  if (bps > CE_MOST_BLOCKS)
    bps = CE_MOST_BLOCKS;
  if (bps < 1)
    bps = 1;
  counts = malloc(sizeof(*counts) * (size_t)p->sm_count * (size_t)bps);
  if (counts == NULL) {
    snprintf(g->st.what, sizeof(g->st.what), "out of memory");
    g->st.last = CUDA_ERROR_OUT_OF_MEMORY;
    goto done;
  }
  if (CU(cuModuleGetFunction(&fn, mod, "tn_cal_tma")) ||
      CU(cuMemAlloc(&src, bytes)) || CU(cuMemAlloc(&dst, bytes)) ||
      CU(cuMemAlloc(&out, (size_t)p->sm_count * bps * 4)) ||
      CU(cuMemsetD32(src, 0x3f800000u, bytes / 4)) ||
      CU(cuMemsetD32(dst, 0u, bytes / 4)) || CU(cuCtxSynchronize()))
    goto done;
  fprintf(stderr, "calibrate: the copy engine's boxes\n");
  for (op = 0; op < TN_PROFILE_TMA_OPS; op++)
    for (w = 0; w < TN_PROFILE_TMA_N_WIDTHS; w++)
      for (r = 0; r < TN_PROFILE_TMA_N_ROWS; r++) {
        CUtensorMap maps[2];
        int store = op, box_w = widths[w] / 4, box_h = rows[r];
        unsigned box_bytes = (unsigned)(widths[w] * rows[r]);
        int slots = CE_SMEM / (int)box_bytes, half = slots / 2;
        int iters = CE_BLOCK_BYTES / (half * (int)box_bytes);
        int across = CE_COLS / box_w, down = CE_ROWS / box_h;
        unsigned grid = (unsigned)(p->sm_count * bps);
        double boxes_per_sm = (double)bps * iters * half;
        void *args[11] = {&maps[0], &maps[1], &store, &box_w, &box_h,
                          &box_bytes, &half, &iters, &across, &down, &out};
        if (encode(g, src, widths[w], rows[r], &maps[0]) ||
            encode(g, dst, widths[w], rows[r], &maps[1])) {
          skip_all(p, g->st.what);
          memset(&g->st, 0, sizeof(g->st));
          rc = 0;
          goto done;
        }
        /* ns a box an SM = ms * 1e6 / the boxes of one SM */
        if (tn_calib_sample_launch(g, fn, grid, 32, args, boxes_per_sm,
                                   1e6 / boxes_per_sm, 0, &p->tma[op][w][r]) ||
            check_counts(g, out, grid, (unsigned)(iters * half), counts))
          goto done;
      }
  rc = 0;
done:
  if (src)
    g->cu.cuMemFree(src);
  if (dst)
    g->cu.cuMemFree(dst);
  if (out)
    g->cu.cuMemFree(out);
  if (mod)
    g->cu.cuModuleUnload(mod);
  free(counts);
  return rc ? tn_calib_fail(g, err) : 0;
}

/* arch.h -- per-architecture limits, sm_75 to sm_121. */
#ifndef TN_ARCH_H
#define TN_ARCH_H

typedef struct {
  const char *name;      /* "sm_90" */
  int major, minor;      /* compute capability */
  const char *generation;
  int smem_per_sm;       /* bytes of shared memory one SM can hold */
  int smem_per_block;    /* bytes one block may use, opt-in included */
  int smem_static_max;   /* bytes of static __shared__ one block may use */
  int max_threads_per_block;
  int max_threads_per_sm;
  int regs_per_sm;
  int max_regs_per_thread;
  int banks;             /* shared-memory banks ... */
  int bank_bytes;        /* ... of this many bytes each */
  int has_cp_async;      /* cp.async (sm_80+) */
  int has_stmatrix;      /* stmatrix (sm_90+) */
  /* 1: the architecture-specific target "sm_XXa" (NVRTC's -arch=sm_90a):
   * sm_XX's limits and instructions, and the features only that
   * architecture has (wgmma and setmaxnreg on sm_90a), whose code runs on
   * that compute capability only, not on later ones.  Not in the table
   * tn_arch_at walks (one entry per compute capability): tn_arch_find
   * knows these names, tn_arch_features gives one. */
  int features;
  /* Vendor figures, for a time model's profile where no GPU of the
   * architecture was measured (model/profile.c scales them by what was
   * measured elsewhere): per SM and clock from the architecture's
   * whitepaper, the rest of one reference product, named with the
   * document it comes from (arch.c).  0: not in the table. */
  int fp32_lanes_per_sm;   /* fp32 FMA lanes per SM */
  int tensor_flops_per_sm_clk; /* dense fp16/bf16, fp32 accumulate */
  const char *product;     /* the reference product */
  int product_sms;
  int product_boost_mhz;
  int product_dram_gbs;    /* GB/s, the datasheet's peak */
  const char *source;      /* where those figures come from */
} tn_arch;

/* The architecture named "sm_XX", or NULL. */
const tn_arch *tn_arch_find(const char *name);
/* The architecture-specific target of arch's compute capability
 * ("sm_90a" of sm_90, or arch itself if it is one), or NULL if NVRTC has
 * none for it. */
const tn_arch *tn_arch_features(const tn_arch *arch);
/* 1 if a and b are one compute capability (sm_90 and sm_90a are). */
int tn_arch_same_cc(const tn_arch *a, const tn_arch *b);
/* The architecture of compute capability major.minor, or NULL. */
const tn_arch *tn_arch_from_cc(int major, int minor);
/* The newest known architecture not newer than major.minor, or NULL. */
const tn_arch *tn_arch_nearest_older(int major, int minor);
/* Number of known architectures and the i-th, oldest first. */
int tn_arch_count(void);
const tn_arch *tn_arch_at(int i);
/* Writes the known names, comma-separated, into out. */
void tn_arch_list(char *out, int n);

/* The architecture of a dry run on a machine without a GPU (and of
 * `tuner conflicts` there), said so whenever it is used. */
#define TN_DEFAULT_ARCH "sm_90"

#endif

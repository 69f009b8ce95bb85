/* predict.c -- the wavefront model's prediction for the stride sweep. */
#include "calibrate/predict.h"

#include "model/model.h"

/* The load of lane l at byte (l * stride * width), all 32 lanes on. */
static int wavefronts(int width, int stride, const tn_arch *arch,
                      tn_access_cost *cost)
{
  tn_warp_access a;
  char why[256];
  int lane;
  tn_warp_access_init(&a, TN_OP_LD, width);
  a.active = 0xffffffffu;
  for (lane = 0; lane < 32; lane++)
    a.addr[lane] = (uint32_t)lane * (uint32_t)stride * (uint32_t)width;
  return tn_model_access(&a, arch, cost, why, sizeof(why));
}

int tn_calib_predict(int width, int stride, const tn_arch *arch,
                     tn_calib_predicted *out)
{
  tn_access_cost base, c;
  if (stride < 1 || wavefronts(width, 1, arch, &base) != 0 ||
      wavefronts(width, stride, arch, &c) != 0 || base.wavefronts <= 0)
    return -1;
  out->wavefronts = c.wavefronts;
  out->degree = c.degree;
  out->ratio = (double)c.wavefronts / (double)base.wavefronts;
  return 0;
}

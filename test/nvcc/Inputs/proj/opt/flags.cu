// kernelskill-flags: -DKS_FROM_FLAGS=1
// flags.cu — a verified version that carries its own compile flags.
#include "scale.h"
#ifndef KS_FROM_FLAGS
#error "the kernelskill-flags line was not applied"
#endif
__global__ void scale(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = SCALE * x[i];
}
const char *ks_which_flags = "FLAGS=applied";

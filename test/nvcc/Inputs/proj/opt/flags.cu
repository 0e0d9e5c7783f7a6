// kernelskill-flags: -lineinfo
// flags.cu — a verified version that carries its own compile flags.
#include "scale.h"
__global__ void scale(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = SCALE * x[i];
}
const char *ks_which_flags = "FLAGS=applied";

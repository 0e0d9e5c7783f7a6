// scale.cu — the "verified" version: the warning and the string below let the
// tests see that it was compiled, and under which file name.
#include "scale.h"
// kernelskill: mem.restrict-const (round 1) test entry
__global__ void scale(float *__restrict__ y, const float *__restrict__ x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#warning "verified version in use"
  if (i < n) y[i] = SCALE * x[i];
}
extern "C" void scale_forward(float *y, const float *x, int n) { scale<<<(n + 255) / 256, 256>>>(y, x, n); }
const char *ks_which_file = "FILE=" __FILE__;

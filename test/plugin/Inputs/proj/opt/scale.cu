// scale.cu — the "verified" version: the #warning, the marker variable and the
// __FILE__ string let the tests see that it was compiled, under which name.
#include "scale.h"
#warning "verified version in use"
__device__ int ks_verified_marker = 42;
__global__ void scale(float *__restrict__ y, const float *__restrict__ x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = SCALE * x[i] + ks_verified_marker * 0;
}
void scale_forward(float *y, const float *x, int n) { scale<<<(n + 255) / 256, 256>>>(y, x, n); }
const char *ks_which_file = "FILE=" __FILE__;

// scale.cu — a kernel that the tests' store holds a verified version of.
#include "scale.h"
__global__ void scale(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = SCALE * x[i];
}
void scale_forward(float *y, const float *x, int n) { scale<<<(n + 255) / 256, 256>>>(y, x, n); }

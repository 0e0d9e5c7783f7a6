// Lit and unit test input for `kernelskill optimize`: a naive pointwise
// kernel (y = a * x + b) that the vectorize, coarsen, restrict-const and
// launch-bounds rules all accept.
#include <cuda_runtime.h>

__global__ void scale_kernel(const float *x, float *y, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

extern "C" void scale_forward(const float *x, float *y, float a, float b, int n) {
  scale_kernel<<<(n + 255) / 256, 256>>>(x, y, a, b, n);
}

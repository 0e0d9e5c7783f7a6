// bad_sticky.cu — deliberately bad candidate: computes the right result, then
// makes a launch with an invalid configuration (2048 threads per block) and
// leaves that CUDA error behind for the caller.
#include <cuda_runtime.h>
__global__ void vadd_kernel(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" void vadd(const float *a, const float *b, float *c, int n) {
  vadd_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
  vadd_kernel<<<1, 2048>>>(a, b, c, n);
}

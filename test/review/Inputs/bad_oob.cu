// bad_oob.cu — deliberately bad candidate: an off-by-one read past the end of b
// (b[i + 1]); the harness's guard pages turn it into an illegal address.
#include <cuda_runtime.h>
__global__ void vadd_kernel(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i] + 0.0f * b[i + 1];
}
extern "C" void vadd(const float *a, const float *b, float *c, int n) { vadd_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n); }

// bad_half.cu — deliberately bad candidate: writes only the first half of c.
#include <cuda_runtime.h>
__global__ void vadd_kernel(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2) c[i] = a[i] + b[i];
}
extern "C" void vadd(const float *a, const float *b, float *c, int n) { vadd_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n); }

// bad_mutate.cu — deliberately bad candidate: right result, but it writes into
// its input a (an `in` tensor).
#include <cuda_runtime.h>
__global__ void vadd_kernel(float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
    a[i] = 0.0f;
  }
}
extern "C" void vadd(const float *a, const float *b, float *c, int n) {
  vadd_kernel<<<(n + 255) / 256, 256>>>((float *)a, b, c, n);
}

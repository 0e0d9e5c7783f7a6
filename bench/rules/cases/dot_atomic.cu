// Case atomic-aggregate (bench/rules/cases/atomic-aggregate.json): a dot
// product summed with one atomicAdd per element on one address.
#include <cuda_runtime.h>

__global__ void dot_atomic(const float *a, const float *b, float *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(result, a[i] * b[i]);
}

extern "C" void dot_forward(const float *a, const float *b, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  dot_atomic<<<(n + 255) / 256, 256>>>(a, b, out, n);
}

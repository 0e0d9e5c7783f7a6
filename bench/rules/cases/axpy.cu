// Seed for bench/rules cases (vectorize, grid-stride, coarsen, the restrict-const ->
// vectorize -> launch-bounds chain): out = a * x + y, one element per thread,
// 256-thread blocks, the plain first draft of a streaming kernel.
#include <cuda_runtime.h>

__global__ void axpy(const float* x, const float* y, float* out, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = a * x[i] + y[i];
  }
}

extern "C" void axpy_forward(const float* x, const float* y, float* out, float a, int n) {
  axpy<<<(n + 255) / 256, 256>>>(x, y, out, a, n);
}

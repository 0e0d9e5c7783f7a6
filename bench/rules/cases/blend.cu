// Seed for the bench/rules restrict-const case: two outputs from two inputs, written
// without const or __restrict__, so after the store to out[i] the compiler must
// reload x[i] and y[i] (they might alias out) and cannot use the read-only path.
#include <cuda_runtime.h>

__global__ void blend(float* x, float* y, float* out, float* out2, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = a * x[i] + y[i];
    out2[i] = x[i] * y[i] - out[i];
  }
}

extern "C" void blend_forward(float* x, float* y, float* out, float* out2, float a, int n) {
  blend<<<(n + 255) / 256, 256>>>(x, y, out, out2, a, n);
}

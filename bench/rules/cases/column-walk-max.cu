// Seed for the bench/rules column-walk-max case: y[c] = max over r of x[r, c], one
// thread per column walking down its column (coalesced across the warp, but only
// as many threads as columns). The rule's result is exact (max is order-free).
#include <cuda_runtime.h>

__global__ void colmax(const float* x, float* y, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float m = -3.0e38f;
  for (int r = 0; r < rows; ++r) m = fmaxf(m, x[(long long)r * cols + c]);
  y[c] = m;
}

extern "C" void colmax_forward(const float* x, float* y, int rows, int cols) {
  colmax<<<(cols + 255) / 256, 256>>>(x, y, rows, cols);
}

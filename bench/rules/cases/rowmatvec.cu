// Seed for the bench/rules row-reduce warp case: y = A x, A row-major m x k, one
// thread per row of A (each thread walks its own row: uncoalesced reads).
#include <cuda_runtime.h>

__global__ void matvec(const float* a, const float* x, float* y, int m, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m) return;
  const float* ar = a + (size_t)row * k;
  float acc = 0.0f;
  for (int j = 0; j < k; j++) acc += ar[j] * x[j];
  y[row] = acc;
}

extern "C" void matvec_forward(const float* a, const float* x, float* y, int m, int k) {
  matvec<<<(m + 255) / 256, 256>>>(a, x, y, m, k);
}

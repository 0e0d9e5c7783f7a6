// Seed for the bench/rules launch-bounds case: a batch of 4x4 matrix products, one
// matrix per thread (c[i] = a[i] * b[i]). ptxas gives it 40 registers, which caps a
// 256-thread block at 6 blocks per SM; __launch_bounds__(256, 8) asks for 8.
#include <cuda_runtime.h>

__global__ void bmm4(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float* p = a + 16 * (long long)i;
    const float* q = b + 16 * (long long)i;
    float A[16], B[16];
    for (int k = 0; k < 16; k++) {
      A[k] = p[k];
      B[k] = q[k];
    }
    float* r = c + 16 * (long long)i;
    for (int row = 0; row < 4; row++)
      for (int col = 0; col < 4; col++)
        r[row * 4 + col] = A[row * 4] * B[col] + A[row * 4 + 1] * B[4 + col] + A[row * 4 + 2] * B[8 + col] +
                           A[row * 4 + 3] * B[12 + col];
  }
}

extern "C" void bmm4_forward(const float* a, const float* b, float* c, int n) {
  bmm4<<<(n + 255) / 256, 256>>>(a, b, c, n);
}

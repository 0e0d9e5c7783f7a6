// Seed for the sgemm_2048 task: C = A B for square row-major fp32 matrices at
// 2048^3. One thread per element of C in 32x32 blocks, a dot product over k.
#include <cuda_runtime.h>

#define BLOCK 32

__global__ void gemm_naive(int n, const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c) {
  int i = blockIdx.y * BLOCK + threadIdx.y;
  int j = blockIdx.x * BLOCK + threadIdx.x;
  if (i >= n || j >= n) return;
  float acc = 0.f;
  for (int k = 0; k < n; ++k) acc += a[i * n + k] * b[k * n + j];
  c[i * n + j] = acc;
}

extern "C" void sgemm_2048_forward(const float *a, const float *b, float *c, int n) {
  dim3 threads(BLOCK, BLOCK);
  dim3 blocks((n + BLOCK - 1) / BLOCK, (n + BLOCK - 1) / BLOCK);
  gemm_naive<<<blocks, threads>>>(n, a, b, c);
}

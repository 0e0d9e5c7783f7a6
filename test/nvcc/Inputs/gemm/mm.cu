// mm.cu — GPU test input for KS_MODE=optimize and optimize --commit: a naive
// fp32 matrix product (one thread per output, no tiling) that the loop makes
// faster in one round (the smem-tile-gemm rule: shared-memory tiles, with or
// without register blocking).
#include <cuda_runtime.h>

__global__ void mm_kernel(const float *a, const float *b, float *c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; k++) acc += a[(size_t)row * n + k] * b[(size_t)k * n + col];
  c[(size_t)row * n + col] = acc;
}

extern "C" void mm_forward(const float *a, const float *b, float *c, int n) {
  dim3 threads(16, 16);
  dim3 blocks((n + 15) / 16, (n + 15) / 16);
  mm_kernel<<<blocks, threads>>>(a, b, c, n);
}

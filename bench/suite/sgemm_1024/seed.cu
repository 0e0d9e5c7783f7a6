// Seed for the sgemm_1024 task: C = A B with A M x K, B K x N, row-major fp32,
// at 1024^3 (a size where a 128x128 block tile leaves most SMs idle).
// One thread per element of C in 32x8 blocks, a plain dot product over k.
#include <cuda_runtime.h>

__global__ void matmul_kernel(const float *A, const float *B, float *C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

extern "C" void sgemm_1024_forward(const float *A, const float *B, float *C, int M, int N, int K) {
  dim3 block(32, 8);
  dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
  matmul_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

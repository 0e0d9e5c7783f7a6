// Input of test/rewrite/gemm-tf32-sm90.test: two naive GEMMs launched from one
// host function that comes before their definitions (declared above it).
#include <cuda_runtime.h>

__global__ void mm_first(const float *A, const float *B, float *C, int M, int N, int K);
__global__ void mm_second(const float *A, const float *B, float *C, int M, int N, int K);

// Both launches in one function.
void run_both(const float *A, const float *B, float *C, float *D, int M, int N, int K) {
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  mm_first<<<grid, block>>>(A, B, C, M, N, K);
  mm_second<<<grid, block>>>(A, C, D, M, N, N);
}

__global__ void mm_first(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

__global__ void mm_second(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
// end of file

// gemm_tiled.cu — GEMM three ways: naive, shared-memory tiled (template tile
// size), and a bias+ReLU epilogue kernel; a host wrapper launches them.
#include <cuda_runtime.h>

__global__ void gemm_naive(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

template <int TILE>
__global__ void gemm_tiled(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N,
                           int K) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE + 1];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
    int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[row * K + ka] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[kb * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

__global__ void bias_relu(float *C, const float *bias, int M, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) C[i] = fmaxf(C[i] + bias[i % N], 0.f);
}

void gemm(const float *A, const float *B, float *C, const float *bias, int M, int N, int K) {
  dim3 b(16, 16), g((N + 15) / 16, (M + 15) / 16);
  gemm_naive<<<g, b>>>(A, B, C, M, N, K);
  gemm_tiled<16><<<g, b>>>(A, B, C, M, N, K);
  dim3 b32(32, 32), g32((N + 31) / 32, (M + 31) / 32);
  gemm_tiled<32><<<g32, b32>>>(A, B, C, M, N, K);
  bias_relu<<<(M * N + 255) / 256, 256>>>(C, bias, M, N);
}

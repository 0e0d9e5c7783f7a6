// Inputs of test/rewrite/gemm-tiled-dsmem.test (no check lines: the rule
// rewrites this file). gemm-tiled on dynamic shared memory: the launch sites
// a rewrite must change (a plain launch, one in a braceless if, one in a
// braceless for, one with a stream, one with a shared-memory size that has no
// effect) and those it must refuse (a size with an effect, a template
// kernel, a launch written in a macro).
#include <cuda_runtime.h>

// NN, launched from three kinds of statement
__global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// NT (gemm_bias_relu's layout), launched on a stream with 0 bytes
__global__ void gemm_nt(const float *A, const float *B, float *C, int M, int N, int K, int lda, int ldb, int ldc) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  for (int k = 0; k < K; k++) sum += A[row * lda + k] * B[col * ldb + k];
  C[row * ldc + col] = sum;
}

// bias + ReLU, launched with a shared-memory size the tiled kernel replaces
__global__ void gemm_bias_relu(const float *A, const float *B, const float *bias, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[col * K + k];
    acc += bias[col];
    C[row * N + col] = fmaxf(acc, 0.0f);
  }
}

// refused: its launch computes the shared-memory size with a call
__global__ void neg_smem_call(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// refused: a template kernel (launched as tgemm<float>)
template <typename T> __global__ void tgemm(const T *A, const T *B, T *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    T acc = 0;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// refused: launched from a macro
__global__ void neg_macro_launch(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

#define LAUNCH_GEMM(kern) kern<<<grid, block>>>(a, b, c, m, n, k)

static size_t smem_bytes(int n);

void run(const float *a, const float *b, const float *bias, float *c, int m, int n, int k, int reps,
         cudaStream_t s) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  sgemm<<<grid, block>>>(a, b, c, m, n, k);
  if (m > 0)
    sgemm<<<grid, block>>>(a, b, c, m, n, k);
  for (int r = 0; r < reps; r++) sgemm<<<grid, block>>>(a, b, c, m, n, k);
  gemm_nt<<<grid, block, 0, s>>>(a, b, c, m, n, k, k, k, n);
  gemm_bias_relu<<<grid, block, 16 * 16 * sizeof(float)>>>(a, b, bias, c, m, n, k);
  neg_smem_call<<<grid, block, smem_bytes(n), s>>>(a, b, c, m, n, k);
  tgemm<float><<<grid, block>>>(a, b, c, m, n, k);
  LAUNCH_GEMM(neg_macro_launch);
}

static size_t smem_bytes(int n) { return (size_t)n * sizeof(float); }

// Inputs of test/rewrite/gemm-tiled.test (no check lines: the rule rewrites
// this file). Naive FP32 GEMMs in the forms gemm-tiled takes, and some it must
// refuse; the launches at the end.
#include <cuda_runtime.h>

// NN, the suite's sgemm
__global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// B transposed (N x K), leading dimensions as parameters
__global__ void gemm_nt(const float *A, const float *B, float *C, int M, int N, int K, int lda, int ldb, int ldc) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  for (int k = 0; k < K; k++) sum += A[row * lda + k] * B[col * ldb + k];
  C[row * ldc + col] = sum;
}

// A transposed (K x M)
__global__ void gemm_tn(const float *A, const float *B, float *C, int M, int N, int K, int lda, int ldb, int ldc) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[k * lda + row] * B[k * ldb + col];
    C[row * ldc + col] = acc;
  }
}

// both transposed, the factors in the other order
__global__ void gemm_tt(const float *A, const float *B, float *C, int M, int N, int K, int lda, int ldb, int ldc) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += B[col * ldb + k] * A[k * lda + row];
    C[row * ldc + col] = acc;
  }
}

// BLAS: C = alpha * A B + beta * C
__global__ void gemm_ab(const float *A, const float *B, float *C, int M, int N, int K, int lda, int ldb, int ldc,
                        float alpha, float beta) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * lda + k] * B[k * ldb + col];
    C[row * ldc + col] = alpha * acc + beta * C[row * ldc + col];
  }
}

// accumulating into C in global memory, each thread its own output
__global__ void gemm_acc(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    for (int k = 0; k < K; ++k) C[row * N + col] += A[row * K + k] * B[k * N + col];
  }
}

// bias and ReLU epilogue
__global__ void gemm_bias_relu(const float *A, const float *B, const float *bias, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    acc += bias[col];
    C[row * N + col] = fmaxf(acc, 0.0f);
  }
}

// ---- must not change ----

// double: the template is FP32
__global__ void dgemm(const double *A, const double *B, double *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    double acc = 0.0;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// reads C at another output than its own (the transposed element)
__global__ void neg_other_c(const float *A, const float *B, float *C, int M, int N, int K, float beta) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc + beta * C[col * N + row];
  }
}

// reads C at its own (row, col) but with another stride: another element
__global__ void neg_c_stride(const float *A, const float *B, float *C, int M, int N, int K, float beta) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc + beta * C[row * K + col];
  }
}

// accumulates into another element than the thread's own output
__global__ void neg_acc_other(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    for (int k = 0; k < K; ++k) C[row * N + k] += A[row * K + k] * B[k * N + col];
  }
}

namespace inner {
__global__ void ns_gemm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
} // namespace inner

void run(const float *a, const float *b, const float *bias, float *c, double *da, double *db, double *dc, int m, int n,
         int k, float alpha, float beta, cudaStream_t s) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  sgemm<<<grid, block>>>(a, b, c, m, n, k);
  gemm_nt<<<grid, block, 0, s>>>(a, b, c, m, n, k, k, k, n);
  gemm_tn<<<grid, block>>>(a, b, c, m, n, k, m, n, n);
  gemm_tt<<<grid, block>>>(a, b, c, m, n, k, m, k, n);
  gemm_ab<<<grid, block>>>(a, b, c, m, n, k, k, n, n, alpha, beta);
  gemm_acc<<<grid, block>>>(a, b, c, m, n, k);
  gemm_bias_relu<<<grid, block>>>(a, b, bias, c, m, n, k);
  dgemm<<<grid, block>>>(da, db, dc, m, n, k);
  neg_other_c<<<grid, block>>>(a, b, c, m, n, k, beta);
  neg_c_stride<<<grid, block>>>(a, b, c, m, n, k, beta);
  neg_acc_other<<<grid, block>>>(a, b, c, m, n, k);
  inner::ns_gemm<<<grid, block>>>(a, b, c, m, n, k);
}

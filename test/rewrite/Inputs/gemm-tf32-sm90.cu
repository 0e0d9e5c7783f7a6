// Input of test/rewrite/gemm-tf32-sm90.test: naive GEMMs for the rule
// gemm-tf32-sm90 (sgemm_ld, sgemm_relu, sgemm_bt: rewritten; the others: refused).
// kernelskill-flags: -O3
#include <cuda_runtime.h>
#include <stdio.h>

// Every size and stride its own parameter, in an order unlike the call's.
__global__ void sgemm_ld(int M, int N, int K, int ldc, float *C, const float *B, int ldb, const float *A, int lda) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * lda + k] * B[k * ldb + col];
    C[row * ldc + col] = acc;
  }
}

// The same GEMM in double: refused (TF32 takes fp32 operands).
__global__ void dgemm(const double *A, const double *B, double *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    double acc = 0.0;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// A ReLU epilogue: rewritten, the epilogue a functor of no member.
__global__ void sgemm_relu(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = fmaxf(acc, 0.0f);
  }
}

// B given transposed (N x K): rewritten to gemm_tf32_nt.
__global__ void sgemm_bt(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[col * K + k];
    C[row * N + col] = acc;
  }
}

// A's row stride K + 1, not one parameter: refused.
__global__ void sgemm_pad(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * (K + 1) + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// Launched inside an expression: refused.
__global__ void sgemm_expr(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// Launched under a cast, `(void)k<<<...>>>(...);`: refused (not a statement of its own).
__global__ void sgemm_cast(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// An argument that increments: refused (the call and the fallback would both evaluate it).
__global__ void sgemm_inc(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

extern "C" void forward(const float *dA, const float *dB, float *dC, int m, int n, int k, int sa, int sb, int sc,
                        cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  sgemm_ld<<<grid, block, 0, stream>>>(m, n, k, sc, dC, dB, sb, dA, sa);
  if (cudaGetLastError() != cudaSuccess) fprintf(stderr, "launch failed\n");
}

extern "C" void forward_default(const float *dA, const float *dB, float *dC, int m, int n, int k) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  if (m > 0)
    sgemm_ld<<<grid, block>>>(m, n, k, n, dC, dB, n, dA, k);
}

extern "C" void others(const float *fA, const float *fB, float *fC, const double *gA, const double *gB, double *gC,
                       int m, int n, int k) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  dgemm<<<grid, block>>>(gA, gB, gC, m, n, k);
  sgemm_relu<<<grid, block>>>(fA, fB, fC, m, n, k);
  sgemm_bt<<<grid, block>>>(fA, fB, fC, m, n, k);
  sgemm_pad<<<grid, block>>>(fA, fB, fC, m, n, k);
  cudaError_t e = (sgemm_expr<<<grid, block>>>(fA, fB, fC, m, n, k), cudaGetLastError());
  if (e != cudaSuccess) fprintf(stderr, "launch failed\n");
  (void)sgemm_cast<<<grid, block>>>(fA, fB, fC, m, n, k);
  int i = 0;
  sgemm_inc<<<grid, block>>>(fA, fB, fC, m, n, k + i++);
}
// end of file

// Naive GEMM: a k-loop accumulating a[row,k] * b[k,col], one output per thread.
// RUN: %kernelskill features %s --json | %python %S/Inputs/fsum.py | FileCheck %s

__global__ void sgemm_naive(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
// CHECK-LABEL: kernel sgemm_naive
// CHECK: access A load uniform [row * K + k]
// CHECK: access B load contiguous [k * N + col]
// CHECK: access C store contiguous [row * N + col]
// CHECK: fma_candidates=1
// CHECK: naive_gemm=true
// CHECK: has_reuse=true
// CHECK: structure="reuse"

// 1-D thread mapping works too.
__global__ void sgemm_1d(const float *A, const float *B, float *C, int N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int row = idx / N, col = idx % N;
  if (row < N) {
    float acc = 0.f;
    for (int k = 0; k < N; k++) acc = acc + A[row * N + k] * B[k * N + col];
    C[idx] = acc;
  }
}
// CHECK-LABEL: kernel sgemm_1d
// CHECK: naive_gemm=true

// Matrix-vector: x[k] is the same for every thread, so this is not a GEMM,
// but x is reused by every thread.
__global__ void matvec(const float *A, const float *x, float *y, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N) {
    float acc = 0.f;
    for (int k = 0; k < N; ++k) acc += A[row * N + k] * x[k];
    y[row] = acc;
  }
}
// CHECK-LABEL: kernel matvec
// CHECK: access x load uniform [k]
// CHECK: naive_gemm=false
// CHECK: has_reuse=true

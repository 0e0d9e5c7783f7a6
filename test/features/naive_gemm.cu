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

// Already tiled through shared memory: reuse, not a reduction, not naive.
#define TILE 16
__global__ void sgemm_tiled(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * K + t * TILE + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * N + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * N + col] = acc;
}
// CHECK-LABEL: kernel sgemm_tiled
// CHECK: reduction=false
// CHECK: naive_gemm=false
// CHECK: tiled_gemm=true
// CHECK: has_reuse=true
// CHECK: structure="reuse"

// A sum of squares multiplies one array by itself: not a GEMM.
__global__ void rms(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sq = 0.f;
  for (int j = 0; j < cols; j++) sq += x[r * cols + j] * x[r * cols + j];
  y[r] = sq;
}
// CHECK-LABEL: kernel rms
// CHECK: naive_gemm=false
// CHECK: structure="reduction"

// A direct 3x3 convolution: products over the taps' small constant window, not a GEMM.
__global__ void conv(const float *x, const float *w, float *y, int H, int W, int cin) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x, oy = blockIdx.y, co = blockIdx.z;
  float acc = 0.f;
  for (int ci = 0; ci < cin; ci++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++)
        acc += x[(ci * H + oy + ky) * W + ox + kx] * w[((co * cin + ci) * 3 + ky) * 3 + kx];
  y[(co * H + oy) * W + ox] = acc;
}
// CHECK-LABEL: kernel conv
// CHECK: naive_gemm=false
// CHECK: stencil=true

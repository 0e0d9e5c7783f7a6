// Inputs for gemm-tiled-dual.test: kernels summing two products per k into
// one accumulator (polybench's syr2k, the sum of two GEMMs).
#include <cuda_runtime.h>

// rewritten: C = alpha * A * B^T + alpha * B * A^T + beta * C, accumulated in C
__global__ void syr2k_k(int m, int n, float alpha, float beta, float *a, float *b, float *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < n) && (j < n)) {
    c[i * n + j] *= beta;
    int k;
    for (k = 0; k < m; k++) {
      c[i * n + j] += alpha * a[i * m + k] * b[j * m + k] + alpha * b[i * m + k] * a[j * m + k];
    }
  }
}

// rewritten: C = A * B + D * E, four matrices, an accumulator
__global__ void two_gemm(const float *A, const float *B, const float *D, const float *E, float *C, int M, int N,
                         int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[r * K + k] * B[k * N + col] + D[r * K + k] * E[k * N + col];
    C[r * N + col] = acc;
  }
}

// refused: the second product's A is transposed, the first's is not
__global__ void bad_layouts(const float *A, const float *B, const float *D, float *C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[r * K + k] * B[k * N + col] + D[k * M + r] * B[k * N + col];
    C[r * N + col] = acc;
  }
}

// refused: the two products are scaled by different scalars
__global__ void bad_scale(int m, int n, float alpha, float gamma, const float *a, const float *b, float *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    float acc = 0.0f;
    for (int k = 0; k < m; k++) acc += alpha * a[i * m + k] * b[j * m + k] + gamma * b[i * m + k] * a[j * m + k];
    c[i * n + j] = acc;
  }
}

void run(float *a, float *b, float *c, float *d, float *e, int m, int n, int k) {
  dim3 block(32, 8);
  dim3 grid((n + 31) / 32, (n + 7) / 8);
  syr2k_k<<<grid, block>>>(k, n, 1.5f, 0.5f, a, b, c);
  two_gemm<<<grid, block>>>(a, b, d, e, c, m, n, k);
  bad_layouts<<<grid, block>>>(a, b, d, c, m, n, k);
  bad_scale<<<grid, block>>>(k, n, 1.5f, 2.0f, a, b, c);
}

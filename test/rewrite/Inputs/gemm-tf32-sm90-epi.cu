// Input of test/rewrite/gemm-tf32-sm90.test: GEMMs with B given transposed
// and epilogues for the rule gemm-tf32-sm90 (linear_relu, sgemm_ab: rewritten;
// epi_call, epi_global, epi_tid: refused).
// kernelskill-flags: -O3
#include <cuda_runtime.h>

__constant__ float g_scale;
__device__ float my_act(float x) { return x > 0.0f ? x : 0.01f * x; }

// nn.Linear: y = relu(x W^T + b), W N x K (W[n*K + k]), the bias added by a statement.
__global__ void linear_relu(const float *__restrict__ X, const float *__restrict__ W, const float *__restrict__ bias,
                            float *Y, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += X[row * K + k] * W[col * K + k];
    acc += bias[col];
    Y[row * N + col] = fmaxf(acc, 0.0f);
  }
}

// C = alpha * A B + beta * C, every stride its own parameter.
__global__ void sgemm_ab(int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb, float beta,
                         float *C, int ldc) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * lda + k] * B[k * ldb + col];
    C[row * ldc + col] = alpha * acc + beta * C[row * ldc + col];
  }
}

// An epilogue calling a device function of the file: refused.
__global__ void epi_call(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = my_act(acc);
  }
}

// An epilogue reading a __constant__ variable: refused.
__global__ void epi_global(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc * g_scale;
  }
}

// An epilogue reading threadIdx: refused.
__global__ void epi_tid(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc + (float)threadIdx.x;
  }
}

extern "C" void linear(const float *x, const float *w, const float *b, float *y, int batch, int in, int out,
                       cudaStream_t s) {
  dim3 block(16, 16);
  dim3 grid((out + 15) / 16, (batch + 15) / 16);
  linear_relu<<<grid, block, 0, s>>>(x, w, b, y, batch, out, in);
}

extern "C" void gemm_ab(const float *a, const float *b, float *c, int m, int n, int k, float al, float be) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  sgemm_ab<<<grid, block>>>(m, n, k, al, a, k, b, n, be, c, n);
}

extern "C" void refused(const float *a, const float *b, float *c, int m, int n, int k) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  epi_call<<<grid, block>>>(a, b, c, m, n, k);
  epi_global<<<grid, block>>>(a, b, c, m, n, k);
  epi_tid<<<grid, block>>>(a, b, c, m, n, k);
}
// end of file

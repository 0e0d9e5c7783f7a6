// Corpus: naive GEMMs in styles common in public code (tutorials, training
// scripts, framework fallbacks), written here: a flat output index with an
// early return, a grid-stride loop over the outputs, a linear layer with a
// NULL-checked bias over row pointers, operands read through walked pointers,
// the column as idx - row * N with a bias added when given.
#include <cuda_runtime.h>

// one thread per output, the flat index bounded first, C written at it
__global__ void matmul_flat_return(const float *A, const float *B, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  int row = idx / N;
  int col = idx % N;
  float sum = 0.0f;
  for (int i = 0; i < K; ++i) sum += A[row * K + i] * B[i * N + col];
  C[idx] = sum;
}

// a fixed grid walking all outputs
__global__ void sgemm_grid_stride(int M, int N, int K, const float *A, const float *B, float *C) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < M * N; i += blockDim.x * gridDim.x) {
    const int r = i / N, c = i % N;
    float acc = 0.f;
    for (int k = 0; k < K; k++) acc += A[r * K + k] * B[k * N + c];
    C[r * N + c] = acc;
  }
}

// out = inp @ weight^T (+ bias): the bias optional, weight rows OC x C
__global__ void linear_forward_naive(float *out, const float *inp, const float *weight, const float *bias, int BT, int C,
                                     int OC) {
  int bt = blockIdx.x * blockDim.x + threadIdx.x;
  int oc = blockIdx.y * blockDim.y + threadIdx.y;
  if (bt < BT && oc < OC) {
    float val = (bias != NULL) ? bias[oc] : 0.0f;
    const float *wrow = weight + oc * C;
    const float *inp_bt = inp + bt * C;
    for (int i = 0; i < C; i++) val += inp_bt[i] * wrow[i];
    out[bt * OC + oc] = val;
  }
}

// the operands walked by pointers, one step per k
__global__ void matmul_ptr_walk(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  const float *a = A + row * K;
  const float *b = B + col;
  float sum = 0.0f;
  for (int k = 0; k < K; ++k) {
    sum += *a++ * *b;
    b += N;
  }
  C[row * N + col] = sum;
}

// the column as idx - row * N, a bias added after the k-loop when given, then ReLU
__global__ void dense_relu_flat(const float *x, const float *w, const float *b, float *y, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int row = idx / N;
  int col = idx - row * N;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += x[row * K + k] * w[k * N + col];
    if (b) acc += b[col];
    y[row * N + col] = fmaxf(acc, 0.0f);
  }
}

void gemm_styles_run(const float *A, const float *B, const float *bias, float *C, int M, int N, int K) {
  matmul_flat_return<<<(M * N + 255) / 256, 256>>>(A, B, C, M, N, K);
  sgemm_grid_stride<<<1024, 256>>>(M, N, K, A, B, C);
  linear_forward_naive<<<dim3((M + 31) / 32, (N + 7) / 8), dim3(32, 8)>>>(C, A, B, bias, M, K, N);
  dim3 bl(16, 16), g((N + 15) / 16, (M + 15) / 16);
  matmul_ptr_walk<<<g, bl>>>(A, B, C, M, N, K);
  dense_relu_flat<<<(M * N + 127) / 128, 128>>>(A, B, bias, C, M, N, K);
}

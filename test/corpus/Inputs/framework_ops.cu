// framework_ops.cu -- corpus (issue 14): elementwise and per-row ops in the
// style of a deep-learning framework's hand-written CUDA ops: THREADS and
// CEIL_DIV macros, index temporaries, early returns, eps constants declared
// before the guard, a thread-per-column reduction.
#include <cuda_runtime.h>

#define THREADS 256
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

__global__ void relu_backward_kernel(const float* grad_out, const float* input, float* grad_in, int n) {
  const int tid = threadIdx.x;
  const int idx = blockIdx.x * blockDim.x + tid;
  if (idx >= n) return;
  grad_in[idx] = input[idx] > 0.0f ? grad_out[idx] : 0.0f;
}

__global__ void axpby_kernel(float* y, const float* x, float alpha, float beta, int n) {
  int idx = threadIdx.x + blockIdx.x * blockDim.x;
  if (idx < n) {
    y[idx] = alpha * x[idx] + beta * y[idx];
  }
}

__global__ void l2norm_rows_kernel(const float* in, float* out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  const float eps = 1e-12f;
  if (row >= rows) return;
  float sq = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float v = in[row * cols + c];
    sq += v * v;
  }
  float inv = 1.0f / sqrtf(sq + eps);
  for (int c = 0; c < cols; ++c) out[row * cols + c] = in[row * cols + c] * inv;
}

__global__ void col_mean_kernel(const float* in, float* mean, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) s += in[r * cols + col];
  mean[col] = s / rows;
}

void framework_ops(float* a, float* b, float* c, int n, int rows, int cols) {
  relu_backward_kernel<<<CEIL_DIV(n, THREADS), THREADS>>>(a, b, c, n);
  axpby_kernel<<<CEIL_DIV(n, THREADS), THREADS>>>(c, a, 2.0f, 0.5f, n);
  l2norm_rows_kernel<<<CEIL_DIV(rows, THREADS), THREADS>>>(a, b, rows, cols);
  col_mean_kernel<<<CEIL_DIV(cols, THREADS), THREADS>>>(a, c, rows, cols);
}

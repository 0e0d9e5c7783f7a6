// Corpus: kernels written as templates over the element type, in the style of
// framework extension code (scalar_t kernels instantiated by the host code
// for float). Rules that read concrete kernels take them through the engine's
// copy of the instantiation launched (docs/rules.md, kernel templates).
#include <cuda_runtime.h>

template <typename scalar_t>
__global__ void softmax_rows_tpl(const scalar_t *__restrict__ input, scalar_t *__restrict__ output, int rows,
                                 int cols) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const scalar_t *in_row = input + (size_t)row * cols;
  scalar_t *out_row = output + (size_t)row * cols;
  scalar_t max_val = in_row[0];
  for (int j = 1; j < cols; ++j) max_val = max(max_val, in_row[j]);
  scalar_t sum = 0;
  for (int j = 0; j < cols; ++j) sum += exp(in_row[j] - max_val);
  for (int j = 0; j < cols; ++j) out_row[j] = exp(in_row[j] - max_val) / sum;
}

template <typename scalar_t>
__global__ void transpose_tpl(const scalar_t *__restrict__ src, scalar_t *__restrict__ dst, int height, int width) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < height && col < width) dst[col * height + row] = src[row * width + col];
}

template <typename scalar_t>
__global__ void relu_tpl(const scalar_t *__restrict__ x, scalar_t *__restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > scalar_t(0) ? x[i] : scalar_t(0);
}

template <typename scalar_t, int BLOCK>
__global__ void row_sum_tpl(const scalar_t *__restrict__ x, scalar_t *__restrict__ out, int rows, int cols) {
  const int row = blockIdx.x * BLOCK + threadIdx.x;
  if (row < rows) {
    scalar_t acc = 0;
    for (int j = 0; j < cols; ++j) acc += x[row * cols + j];
    out[row] = acc;
  }
}

template <typename scalar_t>
__global__ void matmul_tpl(const scalar_t *__restrict__ a, const scalar_t *__restrict__ b, scalar_t *__restrict__ c,
                           int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    scalar_t sum = 0;
    for (int k = 0; k < K; ++k) sum += a[row * K + k] * b[k * N + col];
    c[row * N + col] = sum;
  }
}

extern "C" void corpus_softmax_tpl(const float *input, float *output, int rows, int cols) {
  softmax_rows_tpl<float><<<(rows + 127) / 128, 128>>>(input, output, rows, cols);
}

extern "C" void corpus_transpose_tpl(const float *src, float *dst, int height, int width) {
  dim3 block(16, 16);
  dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  transpose_tpl<float><<<grid, block>>>(src, dst, height, width);
}

extern "C" void corpus_relu_tpl(const float *x, float *y, int n) {
  relu_tpl<<<(n + 255) / 256, 256>>>(x, y, n);
}

extern "C" void corpus_row_sum_tpl(const float *x, float *out, int rows, int cols) {
  row_sum_tpl<float, 128><<<(rows + 127) / 128, 128>>>(x, out, rows, cols);
}

extern "C" void corpus_matmul_tpl(const float *a, const float *b, float *c, int M, int N, int K) {
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  matmul_tpl<float><<<grid, block>>>(a, b, c, M, N, K);
}

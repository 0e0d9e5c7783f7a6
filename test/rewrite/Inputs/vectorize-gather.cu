// Kernels the vectorize rule must leave alone (issue 14): a gather at an index
// that uses the global index twice, and a thread that walks a whole row (a
// row reduction that the Feature Extractor may call a map). A broadcast
// operand read once per element (bias[i % cols]) is still vectorized.
#include <cstdint>

__global__ void gather_sq(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(unsigned)(i * i) % (unsigned)n];
}

__global__ void row_argmax(const float *in, int *out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    int best = 0;
    float bv = in[(int64_t)row * cols];
    for (int c = 1; c < cols; ++c) {
      float v = in[(int64_t)row * cols + c];
      if (v > bv) {
        bv = v;
        best = c;
      }
    }
    out[row] = best;
  }
}

__global__ void bias_cols(float *y, const float *x, const float *bias, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + bias[i % cols];
}

void run(float *y, const float *x, const float *bias, int *idx, int rows, int cols) {
  int n = rows * cols;
  gather_sq<<<(n + 255) / 256, 256>>>(y, x, n);
  row_argmax<<<(rows + 255) / 256, 256>>>(x, idx, rows, cols);
  bias_cols<<<(n + 255) / 256, 256>>>(y, x, bias, n, cols);
}

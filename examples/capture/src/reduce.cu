// reduce.cu — the capture example's reductions and activations: a naive
// row sum (one thread per row) and a sigmoid.
#include "ops.h"

__global__ void row_sum(const float *m, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int c = 0; c < cols; c++) s += m[r * cols + c];
    out[r] = s;
  }
}

__global__ void sigmoid(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f / (1.0f + expf(-x[i]));
}

void launch_row_sum(const float *m, float *out, int rows, int cols) {
  row_sum<<<(rows + 127) / 128, 128>>>(m, out, rows, cols);
}

void launch_sigmoid(const float *x, float *y, int n) {
  sigmoid<<<(n + 255) / 256, 256>>>(x, y, n);
}

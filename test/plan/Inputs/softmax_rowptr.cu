// Plan input: the naive row softmax written with per-row pointers
// (x = in + r * cols; x[c]), the other common way to write it.
#include <cuda_runtime.h>

__global__ void softmax_rowptr(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *x = in + (size_t)r * cols;
  float *y = out + (size_t)r * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, x[c]);
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += expf(x[c] - m);
  for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) / s;
}

void launch_softmax(const float *in, float *out, int rows, int cols) {
  softmax_rowptr<<<(rows + 255) / 256, 256>>>(in, out, rows, cols);
}

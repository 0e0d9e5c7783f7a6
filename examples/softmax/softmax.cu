// examples/softmax/softmax.cu — a first-draft row softmax: one thread per row,
// three passes over the row. Correct, and slow: a good start for KernelSkill.
#include <cuda_runtime.h>

__global__ void softmax_rows(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *xr = x + (long)r * cols;
  float *yr = y + (long)r * cols;
  float m = -INFINITY;
  for (int k = 0; k < cols; ++k) m = fmaxf(m, xr[k]);
  float s = 0.f;
  for (int k = 0; k < cols; ++k) s += expf(xr[k] - m);
  for (int k = 0; k < cols; ++k) yr[k] = expf(xr[k] - m) / s;
}

extern "C" void softmax_forward(const float *x, float *y, int rows, int cols) {
  softmax_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
}

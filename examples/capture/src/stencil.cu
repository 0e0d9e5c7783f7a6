// stencil.cu — element-wise kernels of the capture example: a naive
// transpose, an in-place scale-and-add (launched at two sizes) and a clamp
// that writes only a window of its buffer.
#include "ops.h"

__global__ void transpose_naive(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

__global__ void scale_add(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void clamp_window(float *y, int start, int count, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    float v = y[start + i];
    y[start + i] = v < lo ? lo : v > hi ? hi : v;
  }
}

void launch_transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  transpose_naive<<<grid, block>>>(in, out, rows, cols);
}

void launch_scale_add(const float *x, float *y, float a, int n) {
  scale_add<<<(n + 255) / 256, 256>>>(x, y, a, n);
}

void launch_clamp_window(float *y, int start, int count, float lo, float hi) {
  clamp_window<<<(count + 255) / 256, 256>>>(y, start, count, lo, hi);
}

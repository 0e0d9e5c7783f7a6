// Kernels of two namespaces that need the same shipped header
// (test/rewrite/shipped-namespaces.test): the header goes to file scope,
// above the outermost namespace, where the second namespace sees it too.
#include <cuda_runtime.h>

namespace red {
// Sum of each row, a thread per row.
__global__ void row_sum(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += x[r * cols + c];
    y[r] = s;
  }
}
} // namespace red

namespace other {
namespace inner {
// Largest element of each row.
__global__ void row_max(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = x[r * cols];
    for (int c = 1; c < cols; ++c) s = fmaxf(s, x[r * cols + c]);
    y[r] = s;
  }
}
} // namespace inner

template <typename T> __global__ void twice(const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * T(2);
}
} // namespace other

namespace more {
template <typename T> __global__ void halve(const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / T(2);
}
} // namespace more

extern "C" {
// Smallest element of each row, in a linkage block.
__global__ void row_min(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = x[r * cols];
    for (int c = 1; c < cols; ++c) s = fminf(s, x[r * cols + c]);
    y[r] = s;
  }
}
}

namespace fm {
__device__ float squash(float v) { return tanhf(v) * 0.5f; }
// A helper in the namespace calls tanhf (copied with ks_fast::tanh_approx).
__global__ void act(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = squash(x[i]);
}
} // namespace fm

namespace fm2 {
__global__ void act2(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tanhf(x[i]) + 1.0f;
}
} // namespace fm2

void run(const float *x, float *y, int rows, int cols) {
  red::row_sum<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  other::inner::row_max<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  other::twice<float><<<(rows + 255) / 256, 256>>>(x, y, rows);
  more::halve<float><<<(rows + 255) / 256, 256>>>(x, y, rows);
  fm::act<<<(rows + 255) / 256, 256>>>(x, y, rows);
  fm2::act2<<<(rows + 255) / 256, 256>>>(x, y, rows);
  row_min<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
}

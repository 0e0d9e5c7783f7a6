// Kernels for the row-reduce rule's multi-pass tests (issue 14): a row loop
// that both stores element j and accumulates, and a later pass that reads and
// stores again what an earlier pass stored (naive softmax as training
// codebases write it). bad_* must be refused: a later pass reads another
// element than the one its thread stored, or starts its loop elsewhere.
#include <cmath>
#include <cstddef>

__global__ void softmax_store_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    const float *xr = x + (size_t)row * cols;
    float *yr = y + (size_t)row * cols;
    float m = -INFINITY;
    for (int j = 0; j < cols; j++) {
      if (xr[j] > m) {
        m = xr[j];
      }
    }
    double sum = 0.0;
    for (int j = 0; j < cols; j++) {
      yr[j] = expf(xr[j] - m);
      sum += yr[j];
    }
    for (int j = 0; j < cols; j++) {
      yr[j] /= (float)sum;
    }
  }
}

__global__ void bad_neighbour_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float *yr = y + (size_t)row * cols;
  for (int j = 0; j < cols; j++) yr[j] = x[(size_t)row * cols + j] * 2.0f;
  for (int j = 0; j < cols - 1; j++) yr[j] = yr[j + 1] - x[(size_t)row * cols + j];
}

__global__ void bad_start_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float *yr = y + (size_t)row * cols;
  for (int j = 0; j < cols; j++) yr[j] = x[(size_t)row * cols + j];
  for (int j = 1; j < cols; j++) yr[j] += x[(size_t)row * cols + j - 1];
}

// The exp pass through a __device__ helper that only computes a value.
__device__ __forceinline__ float rr_shifted_exp(float v, float m) {
  const float d = v - m;
  return expf(d);
}
__global__ void softmax_helper_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    const float *xr = x + (size_t)row * cols;
    float *yr = y + (size_t)row * cols;
    float m = -INFINITY;
    for (int j = 0; j < cols; j++) m = fmaxf(m, xr[j]);
    double sum = 0.0;
    for (int j = 0; j < cols; j++) {
      yr[j] = rr_shifted_exp(xr[j], m);
      sum += yr[j];
    }
    for (int j = 0; j < cols; j++) yr[j] /= (float)sum;
  }
}

// min-max scaling: a float min (fminf) and a double max (an if) in one pass,
// then a store pass.
__global__ void minmax_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float *xr = x + (size_t)row * cols;
  float *yr = y + (size_t)row * cols;
  float lo = INFINITY;
  double hi = -INFINITY;
  for (int j = 0; j < cols; j++) {
    lo = fminf(lo, xr[j]);
    if (xr[j] > hi) hi = xr[j];
  }
  for (int j = 0; j < cols; j++) yr[j] = (xr[j] - lo) / ((float)hi - lo + 1.0f);
}

void run(const float *x, float *y, int rows, int cols) {
  softmax_store_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  bad_neighbour_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  bad_start_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  softmax_helper_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  minmax_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
}

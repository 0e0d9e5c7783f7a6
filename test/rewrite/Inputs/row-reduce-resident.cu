// Kernels for the row-reduce rule's resident rows (resident=K): the row kept
// in registers between passes when it fits. softmax_rows: 3 passes, pass 2's
// store is overwritten by pass 3 (dropped on the resident path); layernorm_rows:
// the input read by 3 passes; rmsnorm_rows: 2 passes; mix_rows: pass 3 reads
// x again after pass 2 stored y, so in place (y == x) it must read what pass 2
// stored (the alias check takes the memory path); cond_rows (a store under an
// if), branch_rows (the first read of x under an if: a load the original may
// not make), between_rows (a store between passes) and single_rows (one pass)
// keep their rows in memory.
#include <cmath>
#include <cstddef>

__global__ void softmax_rows(const float *x, float *y, int rows, int cols) {
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

__global__ void layernorm_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float *xr = x + (size_t)row * cols;
  float mean = 0.0f;
  for (int j = 0; j < cols; j++) mean += xr[j];
  mean = mean / cols;
  float var = 0.0f;
  for (int j = 0; j < cols; j++) {
    float d = xr[j] - mean;
    var += d * d;
  }
  float rstd = 1.0f / sqrtf(var / cols + 1e-5f);
  float *yr = y + (size_t)row * cols;
  for (int j = 0; j < cols; j++) yr[j] = (xr[j] - mean) * rstd;
}

__global__ void rmsnorm_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float ss = 0.0f;
  for (int j = 0; j < cols; j++) ss += x[(size_t)row * cols + j] * x[(size_t)row * cols + j];
  float s = 1.0f / sqrtf(ss / cols + 1e-6f);
  for (int j = 0; j < cols; j++) y[(size_t)row * cols + j] = x[(size_t)row * cols + j] * s;
}

__global__ void mix_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float *xr = x + (size_t)row * cols;
  float *yr = y + (size_t)row * cols;
  float m = -INFINITY;
  for (int j = 0; j < cols; j++) m = fmaxf(m, xr[j]);
  float sum = 0.0f;
  for (int j = 0; j < cols; j++) {
    yr[j] = expf(xr[j] - m);
    sum += yr[j];
  }
  for (int j = 0; j < cols; j++) yr[j] = yr[j] / sum + xr[j];
}

__global__ void cond_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int j = 0; j < cols; j++) sum += x[(size_t)row * cols + j];
  for (int j = 0; j < cols; j++) {
    if (x[(size_t)row * cols + j] > 0.0f) y[(size_t)row * cols + j] = x[(size_t)row * cols + j] / sum;
  }
}

__global__ void branch_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 1.0f;
  for (int j = 0; j < cols; j++) {
    float v = 0.0f;
    if (cols > 4) v = x[(size_t)row * cols + j];
    sum += v;
  }
  for (int j = 0; j < cols; j++) y[(size_t)row * cols + j] = x[(size_t)row * cols + j] / sum;
}

__global__ void between_rows(const float *x, float *y, float *mean, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int j = 0; j < cols; j++) sum += x[(size_t)row * cols + j];
  mean[row] = sum / cols;
  for (int j = 0; j < cols; j++) y[(size_t)row * cols + j] = x[(size_t)row * cols + j] - sum / cols;
}

__global__ void single_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int j = 0; j < cols; j++) y[(size_t)row * cols + j] = 2.0f * x[(size_t)row * cols + j];
}

void run(const float *x, float *y, float *mean, int rows, int cols) {
  softmax_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  layernorm_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  rmsnorm_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  mix_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  cond_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  branch_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  between_rows<<<(rows + 255) / 256, 256>>>(x, y, mean, rows, cols);
  single_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
}

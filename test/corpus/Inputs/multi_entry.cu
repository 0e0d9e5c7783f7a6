// Corpus (issue 14): several kernels behind one entry, several launch sites of
// one kernel, a kernel launched through cudaLaunchKernel, NULL in a body.
// Written for this project.
#include <cuda_runtime.h>

__global__ void relu_inplace(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] > 0.f ? x[i] : 0.f;
}

__global__ void bias_add(float* y, const float* bias, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) y[i] += bias[i % cols];
}

__global__ void row_max(const float* x, float* m, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float v = x[r * cols];
    for (int j = 1; j < cols; j++) v = fmaxf(v, x[r * cols + j]);
    m[r] = v;
  }
}

__global__ void row_sum_api(const float* x, float* s, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float v = 0.f;
    for (int j = 0; j < cols; j++) v += x[r * cols + j];
    s[r] = v;
  }
}

__global__ void masked_copy(const float* x, const float* mask, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (mask != NULL) ? x[i] * mask[i] : x[i];
}

void layer(float* x, float* y, const float* bias, float* m, int rows, int cols) {
  int n = rows * cols;
  relu_inplace<<<(n + 255) / 256, 256>>>(x, n);
  bias_add<<<(n + 255) / 256, 256>>>(y, bias, rows, cols);
  relu_inplace<<<(n + 255) / 256, 256>>>(y, n);
  row_max<<<(rows + 127) / 128, 128>>>(x, m, rows, cols);
  row_sum_api<<<(rows + 127) / 128, 128>>>(x, m, rows, cols);
  masked_copy<<<(n + 255) / 256, 256>>>(x, NULL, y, n);
  void* args[] = {&x, &m, &rows, &cols};
  cudaLaunchKernel((const void*)row_sum_api, dim3((rows + 127) / 128), dim3(128), args, 0, 0);
}

// Input of test/rewrite/engine-safety.test: row_sum is launched with <<<>>> and
// also through cudaLaunchKernel; row_sum2 only with <<<>>>. A rule that changes
// the launch contract (row-reduce: one block per row) must refuse the first.
#include <cuda_runtime.h>

__global__ void row_sum(const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; j++) s += x[r * cols + j];
    y[r] = s;
  }
}

__global__ void row_sum2(const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; j++) s += x[r * cols + j];
    y[r] = s;
  }
}

void run(const float* x, float* y, int rows, int cols, cudaStream_t st) {
  row_sum<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  row_sum2<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  void* args[] = {(void*)&x, (void*)&y, (void*)&rows, (void*)&cols};
  cudaLaunchKernel((const void*)row_sum, dim3((rows + 255) / 256), dim3(256), args, 0, st);
}

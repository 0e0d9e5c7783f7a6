// softmax.cu — the BRIEF's example task: row softmax, one block per row.
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_kernel(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x;
  const float *xr = x + (size_t)r * cols;
  float *yr = y + (size_t)r * cols;
  __shared__ float red[256];
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(xr[c] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  sum = red[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / sum;
}

extern "C" void softmax_forward(const float *x, float *y, int rows, int cols) {
  softmax_kernel<<<rows, 256>>>(x, y, rows, cols);
}

// softmax.cu — row softmax in three styles: a naive one-thread-per-row kernel,
// a block reduction with shared memory, and a warp-shuffle version.
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_naive(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY;
  for (int c = 0; c < cols; c++) m = fmaxf(m, x[r * cols + c]);
  float s = 0.f;
  for (int c = 0; c < cols; c++) s += expf(x[r * cols + c] - m);
  for (int c = 0; c < cols; c++) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}

__global__ void softmax_block(const float *__restrict__ x, float *__restrict__ y, int cols) {
  extern __shared__ float buf[];
  const float *row = x + blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  m = buf[0];
  __syncthreads();
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(row[c] - m);
  buf[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  sum = buf[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[blockIdx.x * cols + c] = __expf(row[c] - m) / sum;
}

__device__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  return v;
}
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

__global__ void softmax_warp(const float *__restrict__ x, float *__restrict__ y, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= rows) return;
  const float *row = x + (size_t)warp * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, row[c]);
  m = warp_max(m);
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += __expf(row[c] - m);
  s = warp_sum(s);
  for (int c = lane; c < cols; c += 32) y[(size_t)warp * cols + c] = __expf(row[c] - m) / s;
}

void softmax(const float *x, float *y, int rows, int cols, cudaStream_t st) {
  softmax_naive<<<(rows + 127) / 128, 128, 0, st>>>(x, y, rows, cols);
  softmax_block<<<rows, 256, 256 * sizeof(float), st>>>(x, y, cols);
  softmax_warp<<<(rows * 32 + 255) / 256, 256, 0, st>>>(x, y, rows, cols);
}

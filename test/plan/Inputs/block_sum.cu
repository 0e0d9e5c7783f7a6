// Plan input: block sum with a shared-memory tree reduction, 256 threads.
#include <cuda_runtime.h>

__global__ void block_sum(const float *in, float *partial, int n) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}

void launch_block_sum(const float *in, float *partial, int n) {
  block_sum<<<(n + 255) / 256, 256>>>(in, partial, n);
}

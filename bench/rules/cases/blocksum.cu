// Seed for the bench/rules warp-reduce case: per-block sums with a shared-memory
// tree (one barrier per halving step, down to s = 1).
#include <cuda_runtime.h>

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < (unsigned int)n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

extern "C" void block_sum_forward(const float* in, float* out, int n) {
  block_sum<<<(n + 255) / 256, 256>>>(in, out, n);
}

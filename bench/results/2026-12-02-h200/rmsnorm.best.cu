// Seed for the rmsnorm task: y = x / sqrt(mean(x^2) + eps) * weight over each row.
// One thread per row, two passes.
#include <cuda_runtime.h>

// kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 13%->75%, achieved_occupancy 6%->90%, 8.58x — block-wide sum by warp shuffles and one shared slot per warp: every thread gets the result
static __device__ __forceinline__ float ks_row_block_sum_f(float v) {
  __shared__ float ks_part[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  if ((threadIdx.x & 31u) == 0u) ks_part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? ks_part[threadIdx.x & 31u] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 13%->75%, achieved_occupancy 6%->90%, 8.58x — one block of 256 threads per row, cooperative reductions
__global__ void rmsnorm_kernel(const float *x, const float *weight, float *y, float eps,
                               int rows, int cols)
{
    int row = blockIdx.x;
    if (row >= rows)
        return;
    const float *xr = x + (size_t)row * cols;
    float *yr = y + (size_t)row * cols;
    float sq = 0.0f;
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 13%->75%, achieved_occupancy 6%->90%, 8.58x — row strided over the block's threads (coalesced), then block-wide sum(sq)
    {
      int ks_j = threadIdx.x;
      for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
        #pragma unroll
        for (int ks_u = 0; ks_u < 4; ks_u++) {
          int j = ks_j + (int)(ks_u * blockDim.x);
          sq += xr[j] * xr[j];
        }
      }
      for (int j = ks_j; j < (cols); j += blockDim.x)
        sq += xr[j] * xr[j];
    }
    sq = ks_row_block_sum_f(sq);
    float rrms = 1.0f / sqrtf(sq / cols + eps);
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 13%->75%, achieved_occupancy 6%->90%, 8.58x — row strided over the block's threads (coalesced stores)
    {
      int ks_j = threadIdx.x;
      for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
        #pragma unroll
        for (int ks_u = 0; ks_u < 4; ks_u++) {
          int j = ks_j + (int)(ks_u * blockDim.x);
          yr[j] = xr[j] * rrms * weight[j];
        }
      }
      for (int j = ks_j; j < (cols); j += blockDim.x)
        yr[j] = xr[j] * rrms * weight[j];
    }
}

extern "C" void rmsnorm_forward(const float *x, const float *weight, float *y, float eps,
                                int rows, int cols)
{
    int threads = 128;
    int blocks = (rows + threads - 1) / threads;
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 13%->75%, achieved_occupancy 6%->90%, 8.58x — one block of 256 threads per row
    rmsnorm_kernel<<<rows, 256>>>(x, weight, y, eps, rows, cols);
}

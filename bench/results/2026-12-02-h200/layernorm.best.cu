// Seed for the layernorm task: y = (x - mean) / sqrt(var + eps) * gamma + beta over
// each row (biased variance, as torch.nn.LayerNorm). One thread per row, three passes.
#include <cuda_runtime.h>

// kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->72%, achieved_occupancy 6%->92%, 10.00x — block-wide sum by warp shuffles and one shared slot per warp: every thread gets the result
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

// kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->72%, achieved_occupancy 6%->92%, 10.00x — one block of 256 threads per row, cooperative reductions
__global__ void layernorm_kernel(const float *x, const float *gamma, const float *beta,
                                 float *y, float eps, int rows, int cols)
{
    int row = blockIdx.x;
    if (row >= rows)
        return;
    const float *xr = x + (size_t)row * cols;
    float *yr = y + (size_t)row * cols;
    float sum = 0.0f;
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->72%, achieved_occupancy 6%->92%, 10.00x — row strided over the block's threads (coalesced), then block-wide sum(sum)
    {
      int ks_j = threadIdx.x;
      for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
        #pragma unroll
        for (int ks_u = 0; ks_u < 4; ks_u++) {
          int j = ks_j + (int)(ks_u * blockDim.x);
          sum += xr[j];
        }
      }
      for (int j = ks_j; j < (cols); j += blockDim.x)
        sum += xr[j];
    }
    sum = ks_row_block_sum_f(sum);
    float mean = sum / cols;
    float sq = 0.0f;
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->72%, achieved_occupancy 6%->92%, 10.00x — row strided over the block's threads (coalesced), then block-wide sum(sq)
    {
      int ks_j = threadIdx.x;
      for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
        #pragma unroll
        for (int ks_u = 0; ks_u < 4; ks_u++) {
          int j = ks_j + (int)(ks_u * blockDim.x);
          {
              float d = xr[j] - mean;
              sq += d * d;
          }
        }
      }
      for (int j = ks_j; j < (cols); j += blockDim.x) {
          float d = xr[j] - mean;
          sq += d * d;
      }
    }
    sq = ks_row_block_sum_f(sq);
    float rstd = 1.0f / sqrtf(sq / cols + eps);
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->72%, achieved_occupancy 6%->92%, 10.00x — row strided over the block's threads (coalesced stores)
    {
      int ks_j = threadIdx.x;
      for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
        #pragma unroll
        for (int ks_u = 0; ks_u < 4; ks_u++) {
          int j = ks_j + (int)(ks_u * blockDim.x);
          yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
        }
      }
      for (int j = ks_j; j < (cols); j += blockDim.x)
        yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
}

extern "C" void layernorm_forward(const float *x, const float *gamma, const float *beta,
                                  float *y, float eps, int rows, int cols)
{
    int threads = 128;
    int blocks = (rows + threads - 1) / threads;
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->72%, achieved_occupancy 6%->92%, 10.00x — one block of 256 threads per row
    layernorm_kernel<<<rows, 256>>>(x, gamma, beta, y, eps, rows, cols);
}

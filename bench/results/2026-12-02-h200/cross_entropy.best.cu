// Seed for the cross_entropy task: loss = mean over rows of
// logsumexp(logits[b]) - logits[b][target[b]] (torch.nn.functional.cross_entropy,
// reduction 'mean'). One thread per row; rows meet in one float by atomicAdd.
#include <cuda_runtime.h>

// kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 19%->44%, achieved_occupancy 11%->91%, 4.15x — block-wide sum by warp shuffles and one shared slot per warp: every thread gets the result
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

// kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 19%->44%, achieved_occupancy 11%->91%, 4.15x — block-wide max by warp shuffles and one shared slot per warp: every thread gets the result
static __device__ __forceinline__ float ks_row_block_max_f(float v) {
  __shared__ float ks_part[32];
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();
  if ((threadIdx.x & 31u) == 0u) ks_part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = ks_part[(threadIdx.x & 31u) < (blockDim.x >> 5) ? (threadIdx.x & 31u) : 0u];
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 19%->44%, achieved_occupancy 11%->91%, 4.15x — one block of 256 threads per row, cooperative reductions
__global__ void cross_entropy_kernel(const float *logits, const long long *target,
                                     float *loss, int rows, int cols)
{
    int row = blockIdx.x;
    if (row >= rows)
        return;
    const float *xr = logits + (size_t)row * cols;
    float m = xr[0];
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 19%->44%, achieved_occupancy 11%->91%, 4.15x — row strided over the block's threads (coalesced), then block-wide max(m)
    {
      int ks_j = 1 + (int)threadIdx.x;
      for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
        #pragma unroll
        for (int ks_u = 0; ks_u < 4; ks_u++) {
          int j = ks_j + (int)(ks_u * blockDim.x);
          m = fmaxf(m, xr[j]);
        }
      }
      for (int j = ks_j; j < (cols); j += blockDim.x)
        m = fmaxf(m, xr[j]);
    }
    m = ks_row_block_max_f(m);
    float sum = 0.0f;
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 19%->44%, achieved_occupancy 11%->91%, 4.15x — row strided over the block's threads (coalesced), then block-wide sum(sum)
    {
      int ks_j = threadIdx.x;
      for (; ks_j + (int)(3 * blockDim.x) < (cols); ks_j += (int)(4 * blockDim.x)) {
        #pragma unroll
        for (int ks_u = 0; ks_u < 4; ks_u++) {
          int j = ks_j + (int)(ks_u * blockDim.x);
          // kernelskill: num.fast-math-intrinsics (rule fast-math, round 2) inst_executed 5.59e+07->4.85e+07, stall_math_throttle 0.0362->0.0331, 1.08x — expf -> __expf
          sum += __expf(xr[j] - m);
        }
      }
      for (int j = ks_j; j < (cols); j += blockDim.x)
        // kernelskill: num.fast-math-intrinsics (rule fast-math, round 2) inst_executed 5.59e+07->4.85e+07, stall_math_throttle 0.0362->0.0331, 1.08x — expf -> __expf
        sum += __expf(xr[j] - m);
    }
    sum = ks_row_block_sum_f(sum);
    // kernelskill: num.fast-math-intrinsics (rule fast-math, round 2) inst_executed 5.59e+07->4.85e+07, stall_math_throttle 0.0362->0.0331, 1.08x — logf -> __logf
    // kernelskill: mem.read-only-cache (rule read-only-cache, round 3) l1_hit 58%->58%, dram 48%->50%, 1.03x — read-only loads of target through __ldg
    float row_loss = __logf(sum) + m - xr[__ldg(&target[row])];
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 19%->44%, achieved_occupancy 11%->91%, 4.15x — one thread stores the row's result
    // kernelskill: num.fast-math-intrinsics (rule fast-math, round 2) inst_executed 5.59e+07->4.85e+07, stall_math_throttle 0.0362->0.0331, 1.08x — a / b -> __fdividef(a, b)
    if (threadIdx.x == 0) atomicAdd(loss, __fdividef(row_loss, rows));
}

extern "C" void cross_entropy_forward(const float *logits, const long long *target,
                                      float *loss, int rows, int cols)
{
    int threads = 128;
    int blocks = (rows + threads - 1) / threads;
    cudaMemsetAsync(loss, 0, sizeof(float), 0);
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 19%->44%, achieved_occupancy 11%->91%, 4.15x — one block of 256 threads per row
    cross_entropy_kernel<<<rows, 256>>>(logits, target, loss, rows, cols);
}

// Seed for the layernorm task: y = (x - mean) / sqrt(var + eps) * gamma + beta over
// each row (biased variance, as torch.nn.LayerNorm). One thread per row, three passes.
#include <cuda_runtime.h>

// kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->71%, achieved_occupancy 6%->92%, 9.93x — the shipped row reductions (share/kernelskill/templates/ks_rowreduce.cuh)
/* ks_rowreduce.cuh — the row reductions of rule row-reduce
 * (lib/rewrite/rules/row-reduce.c, docs/rules/row-reduce.md): after a row's
 * threads have each reduced their strided share, one call combines the
 * partials so that every thread of the row gets the result.
 *
 *   ks_rowred::block_sum<float>(v)    one row a block (blockDim.x threads)
 *   ks_rowred::warp_max<float>(v)     one row a warp (blockDim.y rows a block)
 *   ks_rowred::group_sum<double>(v)   threads=auto: blockDim.x threads a row; a
 *                                     group of one warp (blockDim.y rows a block)
 *                                     returns after its shuffles
 *   ks_rowred::block_argmax<float>(v, i)   the value and the first index of it
 *
 * Warps combine by __shfl_xor_sync butterflies; a block or group of several
 * warps puts one partial per warp in shared memory and every warp combines
 * them itself (no second broadcast). The first barrier keeps a previous call's
 * readers ahead of this call's writers. Blocks are multiples of 32 threads
 * (the rule's launches set them). max and min use fmaxf / fminf (fmax / fmin):
 * a NaN partial loses, as it does against fmaxf in the loop.
 *
 * Arg-max / arg-min: a partner's pair wins when its value is strictly better,
 * or equal with a smaller index. Each thread's partial holds the first index of
 * its best value (it scans increasing j with a strict comparison), so the
 * combine yields the first index of the row's extreme, as the sequential loop
 * does. Only > / < and == compare values: a NaN never wins, and when the
 * uniform start value is NaN every pair stays (NaN, start index).
 *
 * The rule inserts this text once per file, so the rewritten file compiles on
 * its own; function templates, so those a file does not call cost nothing. */
#ifndef KS_ROWREDUCE_CUH
#define KS_ROWREDUCE_CUH

namespace ks_rowred {

enum { BLOCK = 0, WARP = 1, GROUP = 2 };

struct op_sum {
  template <class T> static __device__ __forceinline__ T f(T a, T b) { return a + b; }
};
struct op_max {
  static __device__ __forceinline__ float f(float a, float b) { return fmaxf(a, b); }
  static __device__ __forceinline__ double f(double a, double b) { return fmax(a, b); }
};
struct op_min {
  static __device__ __forceinline__ float f(float a, float b) { return fminf(a, b); }
  static __device__ __forceinline__ double f(double a, double b) { return fmin(a, b); }
};

template <class Op, class T> __device__ __forceinline__ T butterfly(T v) {
  for (int o = 16; o > 0; o >>= 1) v = Op::f(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

/* SUM: lanes past the warp count take 0; max / min: warp 0's partial again. */
template <class Op, int KIND, bool SUM, class T> __device__ __forceinline__ T all(T v) {
  __shared__ T part[32];
  v = butterfly<Op>(v);
  if (KIND == WARP || (KIND == GROUP && blockDim.x == 32u)) return v; /* a warp per row: no shared slots */
  __syncthreads();
  if ((threadIdx.x & 31u) == 0u) part[threadIdx.x >> 5] = v;
  __syncthreads();
  unsigned lane = threadIdx.x & 31u;
  if (SUM) v = lane < (blockDim.x >> 5) ? part[lane] : T(0);
  else v = part[lane < (blockDim.x >> 5) ? lane : 0u];
  return butterfly<Op>(v);
}

template <bool MAX, class T> __device__ __forceinline__ void arg_butterfly(T &v, int &i) {
  for (int o = 16; o > 0; o >>= 1) {
    T ov = __shfl_xor_sync(0xffffffffu, v, o);
    int oi = __shfl_xor_sync(0xffffffffu, i, o);
    if ((MAX ? ov > v : ov < v) || (ov == v && oi < i)) {
      v = ov;
      i = oi;
    }
  }
}

template <bool MAX, int KIND, class T> __device__ __forceinline__ T arg(T v, int &i) {
  __shared__ T part[32];
  __shared__ int part_i[32];
  arg_butterfly<MAX>(v, i);
  if (KIND == WARP || (KIND == GROUP && blockDim.x == 32u)) return v;
  __syncthreads();
  if ((threadIdx.x & 31u) == 0u) {
    part[threadIdx.x >> 5] = v;
    part_i[threadIdx.x >> 5] = i;
  }
  __syncthreads();
  unsigned w = (threadIdx.x & 31u) < (blockDim.x >> 5) ? (threadIdx.x & 31u) : 0u;
  v = part[w];
  i = part_i[w];
  arg_butterfly<MAX>(v, i);
  return v;
}

template <class T> __device__ __forceinline__ T block_sum(T v) { return all<op_sum, BLOCK, true>(v); }
template <class T> __device__ __forceinline__ T block_max(T v) { return all<op_max, BLOCK, false>(v); }
template <class T> __device__ __forceinline__ T block_min(T v) { return all<op_min, BLOCK, false>(v); }
template <class T> __device__ __forceinline__ T block_argmax(T v, int &i) { return arg<true, BLOCK>(v, i); }
template <class T> __device__ __forceinline__ T block_argmin(T v, int &i) { return arg<false, BLOCK>(v, i); }
template <class T> __device__ __forceinline__ T warp_sum(T v) { return all<op_sum, WARP, true>(v); }
template <class T> __device__ __forceinline__ T warp_max(T v) { return all<op_max, WARP, false>(v); }
template <class T> __device__ __forceinline__ T warp_min(T v) { return all<op_min, WARP, false>(v); }
template <class T> __device__ __forceinline__ T warp_argmax(T v, int &i) { return arg<true, WARP>(v, i); }
template <class T> __device__ __forceinline__ T warp_argmin(T v, int &i) { return arg<false, WARP>(v, i); }
template <class T> __device__ __forceinline__ T group_sum(T v) { return all<op_sum, GROUP, true>(v); }
template <class T> __device__ __forceinline__ T group_max(T v) { return all<op_max, GROUP, false>(v); }
template <class T> __device__ __forceinline__ T group_min(T v) { return all<op_min, GROUP, false>(v); }
template <class T> __device__ __forceinline__ T group_argmax(T v, int &i) { return arg<true, GROUP>(v, i); }
template <class T> __device__ __forceinline__ T group_argmin(T v, int &i) { return arg<false, GROUP>(v, i); }

} /* namespace ks_rowred */

#endif /* KS_ROWREDUCE_CUH */


// kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->71%, achieved_occupancy 6%->92%, 9.93x — the row groups' size from the row length: about 16 elements a thread, 32 to 256 threads, a warp per row (8 rows a block) under 1024 elements
static inline dim3 ks_row_block(long long cols) {
  unsigned g = 32;
  while (g < 256u && (long long)g * 32 <= cols) g *= 2;
  return g == 32u ? dim3(32, 8) : dim3(g, 1);
}
static inline dim3 ks_row_grid(long long rows, long long cols) {
  long long y = (long long)ks_row_block(cols).y;
  return dim3((unsigned)((rows + y - 1) / y));
}

// kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->71%, achieved_occupancy 6%->92%, 9.93x — a group of threads per row (blockDim.x threads, blockDim.y rows a block), sized at each launch from the row length; cooperative reductions
// kernelskill: mem.restrict-const (rule restrict-const, round 3) inst_executed 7.54e+07->7.59e+07, duration 157->154 us, 1.05x — __restrict__ x, __restrict__ gamma, __restrict__ beta, __restrict__ y
__global__ void layernorm_kernel(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                                 float *__restrict__ y, float eps, int rows, int cols)
{
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= rows)
        return;
    const float *xr = x + (size_t)row * cols;
    float *yr = y + (size_t)row * cols;
    float sum = 0.0f;
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->71%, achieved_occupancy 6%->92%, 9.93x — row strided over the group's threads (coalesced), then group-wide sum(sum)
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
    sum = ks_rowred::group_sum<float>(sum);
    float mean = sum / cols;
    float sq = 0.0f;
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->71%, achieved_occupancy 6%->92%, 9.93x — row strided over the group's threads (coalesced), then group-wide sum(sq)
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
    sq = ks_rowred::group_sum<float>(sq);
    float rstd = 1.0f / sqrtf(sq / cols + eps);
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->71%, achieved_occupancy 6%->92%, 9.93x — row strided over the group's threads (coalesced stores)
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
    // kernelskill: mem.row-reduce-block (rule row-reduce, round 1) dram 14%->71%, achieved_occupancy 6%->92%, 9.93x — a group of threads per row, sized from the row length
    layernorm_kernel<<<ks_row_grid(rows, cols), ks_row_block(cols)>>>(x, gamma, beta, y, eps, rows, cols);
}

#include <cuda_runtime.h>
// Generated for this experiment (README.md): k_rule is the rule's threads=auto rewrite with restrict-const (a1r.cu), k_rule_cs the same with its last pass's stores as __stcs, k_res16 a hand-written resident form (h16r.cu), k_res16_cs with __stcs; the row reductions are the shipped ks_rowreduce.cuh as the rewrite inserts it.
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
static inline dim3 ks_row_block(long long cols) {
  unsigned g = 32;
  while (g < 256u && (long long)g * 32 <= cols) g *= 2;
  return g == 32u ? dim3(32, 8) : dim3(g, 1);
}
static inline dim3 ks_row_grid(long long rows, long long cols) {
  long long y = (long long)ks_row_block(cols).y;
  return dim3((unsigned)((rows + y - 1) / y));
}
__global__ void k_rule(float* __restrict__ att, const float* __restrict__ preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.y + threadIdx.y;
    int total_threads = B * T * NH;
    if (idx < total_threads) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);
        const float* preatt_bth = preatt + b * NH * T * T + h * T * T + t * T;
        float* att_bth = att + b * NH * T * T + h * T * T + t * T;
        float maxval = -10000.0f;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced), then group-wide max(maxval)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < ((long long)(t) + 1); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  if (preatt_bth[t2] > maxval) {
                      maxval = preatt_bth[t2];
                  }
              }
            }
          }
          for (int t2 = ks_j; t2 < ((long long)(t) + 1); t2 += blockDim.x) {
              if (preatt_bth[t2] > maxval) {
                  maxval = preatt_bth[t2];
              }
          }
        }
        maxval = ks_rowred::group_max<float>(maxval);
        float expsum = 0.0f;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced), then group-wide sum(expsum)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < ((long long)(t) + 1); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  float expv = expf(preatt_bth[t2] - maxval);
                  expsum += expv;
                  att_bth[t2] = expv;
              }
            }
          }
          for (int t2 = ks_j; t2 < ((long long)(t) + 1); t2 += blockDim.x) {
              float expv = expf(preatt_bth[t2] - maxval);
              expsum += expv;
              att_bth[t2] = expv;
          }
        }
        expsum = ks_rowred::group_sum<float>(expsum);
        float expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced stores)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < (T); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  if (t2 <= t) {
                      att_bth[t2] *= expsum_inv;
                  } else {
                      att_bth[t2] = 0.0f;
                  }
              }
            }
          }
          for (int t2 = ks_j; t2 < (T); t2 += blockDim.x) {
              if (t2 <= t) {
                  att_bth[t2] *= expsum_inv;
              } else {
                  att_bth[t2] = 0.0f;
              }
          }
        }
    }
}

__global__ void k_rule_cs(float* __restrict__ att, const float* __restrict__ preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.y + threadIdx.y;
    int total_threads = B * T * NH;
    if (idx < total_threads) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);
        const float* preatt_bth = preatt + b * NH * T * T + h * T * T + t * T;
        float* att_bth = att + b * NH * T * T + h * T * T + t * T;
        float maxval = -10000.0f;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced), then group-wide max(maxval)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < ((long long)(t) + 1); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  if (preatt_bth[t2] > maxval) {
                      maxval = preatt_bth[t2];
                  }
              }
            }
          }
          for (int t2 = ks_j; t2 < ((long long)(t) + 1); t2 += blockDim.x) {
              if (preatt_bth[t2] > maxval) {
                  maxval = preatt_bth[t2];
              }
          }
        }
        maxval = ks_rowred::group_max<float>(maxval);
        float expsum = 0.0f;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced), then group-wide sum(expsum)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < ((long long)(t) + 1); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  float expv = expf(preatt_bth[t2] - maxval);
                  expsum += expv;
                  att_bth[t2] = expv;
              }
            }
          }
          for (int t2 = ks_j; t2 < ((long long)(t) + 1); t2 += blockDim.x) {
              float expv = expf(preatt_bth[t2] - maxval);
              expsum += expv;
              att_bth[t2] = expv;
          }
        }
        expsum = ks_rowred::group_sum<float>(expsum);
        float expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced stores)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < (T); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  if (t2 <= t) {
                      __stcs(&att_bth[t2], att_bth[t2] * expsum_inv);
                  } else {
                      __stcs(&att_bth[t2], 0.0f);
                  }
              }
            }
          }
          for (int t2 = ks_j; t2 < (T); t2 += blockDim.x) {
              if (t2 <= t) {
                  __stcs(&att_bth[t2], att_bth[t2] * expsum_inv);
              } else {
                  __stcs(&att_bth[t2], 0.0f);
              }
          }
        }
    }
}

__global__ void k_res16(float* __restrict__ att, const float* __restrict__ preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.y + threadIdx.y;
    int total_threads = B * T * NH;
    if (idx < total_threads) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);
        const float* preatt_bth = preatt + b * NH * T * T + h * T * T + t * T;
        float* att_bth = att + b * NH * T * T + h * T * T + t * T;
        float ks_r0[16];
        float ks_r1[16];
        unsigned long long ks_lo0, ks_hi0, ks_lo1, ks_hi1;
        { int t2 = (int)(0); ks_lo0 = (unsigned long long)&(preatt_bth[t2]); ks_lo1 = (unsigned long long)&(att_bth[t2]);
          t2 = (int)(T); ks_hi0 = (unsigned long long)&(preatt_bth[t2]); ks_hi1 = (unsigned long long)&(att_bth[t2]); }
        const bool ks_res = (long long)((long long)(t) + 1) - (long long)(0) <= (long long)16 * (long long)(blockDim.x)
            && (long long)(T) - (long long)(0) <= (long long)16 * (long long)(blockDim.x)
            && (ks_hi0 <= ks_lo1 || ks_hi1 <= ks_lo0);
        if (ks_res) {
        float maxval = -10000.0f;
          #pragma unroll
          for (int ks_k = 0; ks_k < 16; ks_k++) {
            int t2 = threadIdx.x + (int)(ks_k * blockDim.x);
            if (t2 < ((long long)(t) + 1)) ks_r0[ks_k] = preatt_bth[t2];
          }
          #pragma unroll
          for (int ks_k = 0; ks_k < 16; ks_k++) {
            int t2 = threadIdx.x + (int)(ks_k * blockDim.x);
            if (t2 < ((long long)(t) + 1)) {
                  if (ks_r0[ks_k] > maxval) {
                      maxval = ks_r0[ks_k];
                  }
            }
          }
        maxval = ks_rowred::group_max<float>(maxval);
        float expsum = 0.0f;
          #pragma unroll
          for (int ks_k = 0; ks_k < 16; ks_k++) {
            int t2 = threadIdx.x + (int)(ks_k * blockDim.x);
            if (t2 < ((long long)(t) + 1)) {
                  float expv = expf(ks_r0[ks_k] - maxval);
                  expsum += expv;
                  ks_r1[ks_k] = expv;
            }
          }
        expsum = ks_rowred::group_sum<float>(expsum);
        float expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum;
          #pragma unroll
          for (int ks_k = 0; ks_k < 16; ks_k++) {
            int t2 = threadIdx.x + (int)(ks_k * blockDim.x);
            if (t2 < (T)) {
                  if (t2 <= t) {
                      (t2 < ((long long)(t) + 1) ? ks_r1[ks_k] : (ks_r1[ks_k] = att_bth[t2])) *= expsum_inv;
                  } else {
                      ks_r1[ks_k] = 0.0f;
                  }
                  att_bth[t2] = ks_r1[ks_k];
            }
          }
        } else {
        float maxval = -10000.0f;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced), then group-wide max(maxval)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < ((long long)(t) + 1); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  if (preatt_bth[t2] > maxval) {
                      maxval = preatt_bth[t2];
                  }
              }
            }
          }
          for (int t2 = ks_j; t2 < ((long long)(t) + 1); t2 += blockDim.x) {
              if (preatt_bth[t2] > maxval) {
                  maxval = preatt_bth[t2];
              }
          }
        }
        maxval = ks_rowred::group_max<float>(maxval);
        float expsum = 0.0f;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced), then group-wide sum(expsum)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < ((long long)(t) + 1); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  float expv = expf(preatt_bth[t2] - maxval);
                  expsum += expv;
                  att_bth[t2] = expv;
              }
            }
          }
          for (int t2 = ks_j; t2 < ((long long)(t) + 1); t2 += blockDim.x) {
              float expv = expf(preatt_bth[t2] - maxval);
              expsum += expv;
              att_bth[t2] = expv;
          }
        }
        expsum = ks_rowred::group_sum<float>(expsum);
        float expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced stores)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < (T); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  if (t2 <= t) {
                      att_bth[t2] *= expsum_inv;
                  } else {
                      att_bth[t2] = 0.0f;
                  }
              }
            }
          }
          for (int t2 = ks_j; t2 < (T); t2 += blockDim.x) {
              if (t2 <= t) {
                  att_bth[t2] *= expsum_inv;
              } else {
                  att_bth[t2] = 0.0f;
              }
          }
        }
        }
    }
}

__global__ void k_res16_cs(float* __restrict__ att, const float* __restrict__ preatt, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.y + threadIdx.y;
    int total_threads = B * T * NH;
    if (idx < total_threads) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);
        const float* preatt_bth = preatt + b * NH * T * T + h * T * T + t * T;
        float* att_bth = att + b * NH * T * T + h * T * T + t * T;
        float ks_r0[16];
        float ks_r1[16];
        unsigned long long ks_lo0, ks_hi0, ks_lo1, ks_hi1;
        { int t2 = (int)(0); ks_lo0 = (unsigned long long)&(preatt_bth[t2]); ks_lo1 = (unsigned long long)&(att_bth[t2]);
          t2 = (int)(T); ks_hi0 = (unsigned long long)&(preatt_bth[t2]); ks_hi1 = (unsigned long long)&(att_bth[t2]); }
        const bool ks_res = (long long)((long long)(t) + 1) - (long long)(0) <= (long long)16 * (long long)(blockDim.x)
            && (long long)(T) - (long long)(0) <= (long long)16 * (long long)(blockDim.x)
            && (ks_hi0 <= ks_lo1 || ks_hi1 <= ks_lo0);
        if (ks_res) {
        float maxval = -10000.0f;
          #pragma unroll
          for (int ks_k = 0; ks_k < 16; ks_k++) {
            int t2 = threadIdx.x + (int)(ks_k * blockDim.x);
            if (t2 < ((long long)(t) + 1)) ks_r0[ks_k] = preatt_bth[t2];
          }
          #pragma unroll
          for (int ks_k = 0; ks_k < 16; ks_k++) {
            int t2 = threadIdx.x + (int)(ks_k * blockDim.x);
            if (t2 < ((long long)(t) + 1)) {
                  if (ks_r0[ks_k] > maxval) {
                      maxval = ks_r0[ks_k];
                  }
            }
          }
        maxval = ks_rowred::group_max<float>(maxval);
        float expsum = 0.0f;
          #pragma unroll
          for (int ks_k = 0; ks_k < 16; ks_k++) {
            int t2 = threadIdx.x + (int)(ks_k * blockDim.x);
            if (t2 < ((long long)(t) + 1)) {
                  float expv = expf(ks_r0[ks_k] - maxval);
                  expsum += expv;
                  ks_r1[ks_k] = expv;
            }
          }
        expsum = ks_rowred::group_sum<float>(expsum);
        float expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum;
          #pragma unroll
          for (int ks_k = 0; ks_k < 16; ks_k++) {
            int t2 = threadIdx.x + (int)(ks_k * blockDim.x);
            if (t2 < (T)) {
                  if (t2 <= t) {
                      (t2 < ((long long)(t) + 1) ? ks_r1[ks_k] : (ks_r1[ks_k] = att_bth[t2])) *= expsum_inv;
                  } else {
                      ks_r1[ks_k] = 0.0f;
                  }
                  __stcs(&att_bth[t2], ks_r1[ks_k]);
            }
          }
        } else {
        float maxval = -10000.0f;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced), then group-wide max(maxval)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < ((long long)(t) + 1); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  if (preatt_bth[t2] > maxval) {
                      maxval = preatt_bth[t2];
                  }
              }
            }
          }
          for (int t2 = ks_j; t2 < ((long long)(t) + 1); t2 += blockDim.x) {
              if (preatt_bth[t2] > maxval) {
                  maxval = preatt_bth[t2];
              }
          }
        }
        maxval = ks_rowred::group_max<float>(maxval);
        float expsum = 0.0f;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced), then group-wide sum(expsum)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < ((long long)(t) + 1); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  float expv = expf(preatt_bth[t2] - maxval);
                  expsum += expv;
                  att_bth[t2] = expv;
              }
            }
          }
          for (int t2 = ks_j; t2 < ((long long)(t) + 1); t2 += blockDim.x) {
              float expv = expf(preatt_bth[t2] - maxval);
              expsum += expv;
              att_bth[t2] = expv;
          }
        }
        expsum = ks_rowred::group_sum<float>(expsum);
        float expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum;
        // kernelskill: rule:row-reduce (rule row-reduce) row strided over the group's threads (coalesced stores)
        {
          int ks_j = threadIdx.x;
          for (; ks_j + (int)(3 * blockDim.x) < (T); ks_j += (int)(4 * blockDim.x)) {
            #pragma unroll
            for (int ks_u = 0; ks_u < 4; ks_u++) {
              int t2 = ks_j + (int)(ks_u * blockDim.x);
              {
                  if (t2 <= t) {
                      att_bth[t2] *= expsum_inv;
                  } else {
                      att_bth[t2] = 0.0f;
                  }
              }
            }
          }
          for (int t2 = ks_j; t2 < (T); t2 += blockDim.x) {
              if (t2 <= t) {
                  att_bth[t2] *= expsum_inv;
              } else {
                  att_bth[t2] = 0.0f;
              }
          }
        }
        }
    }
}


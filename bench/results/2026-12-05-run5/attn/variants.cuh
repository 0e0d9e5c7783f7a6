#include <cuda_runtime.h>
// Generated for this experiment (README.md): k_rule is the rule's threads=auto rewrite with restrict-const (a1r.cu), k_rule_cs the same with its last pass's stores as __stcs, k_res16 a hand-written resident form (h16r.cu), k_res16_cs with __stcs; the row reductions are the shipped ks_rowreduce.cuh, included (the measured build had its text pasted, as the rewrite does; the same text).
// The row reductions as the rewrite inserts them (it pastes this header's text):
#include "../../../../lib/rewrite/templates/ks_rowreduce.cuh"
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


// bench/results/2026-12-05-run5/attn/attn_causal.cu — what limits the causal attention softmax
// (corpus attention_softmax: B=64, NH=8, T=512, rows in (b, t, h) order)?
// Side by side in one process, CUDA events after an L2 flush, median of 20:
// the rule's memory path (k_rule, variants.cuh), the access pattern alone (read
// t+1, write T: the pattern's ceiling), 3-pass forms with and without the
// exp pass's store, streaming stores, and a 2-pass online softmax.
//   nvcc -O3 -arch=sm_90 -o attn_causal attn_causal.cu   (with variants.cuh beside it)
#include "variants.cuh"
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__device__ __forceinline__ float wmax(float v) { for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(~0u, v, o)); return v; }
__device__ __forceinline__ float wsum(float v) { for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o); return v; }

// warp per row, blockDim (32, 8)
#define ROW_SETUP                                                        \
  int idx = blockIdx.x * blockDim.y + threadIdx.y;                       \
  if (idx >= B * T * NH) return;                                         \
  int h = idx % NH, t = (idx / NH) % T, b = idx / (NH * T);              \
  const float *in = preatt + (size_t)b * NH * T * T + (size_t)h * T * T + (size_t)t * T; \
  float *out = att + (size_t)b * NH * T * T + (size_t)h * T * T + (size_t)t * T; \
  int L = threadIdx.x;

template <int CS>
__global__ void pattern(float *__restrict__ att, const float *__restrict__ preatt, int B, int T, int NH) {
  ROW_SETUP
  #pragma unroll 4
  for (int j = L; j < T; j += 32) {
    float v = j <= t ? in[j] : 0.0f;
    if (CS) __stcs(out + j, v); else out[j] = v;
  }
}

__global__ void pattern4(float *__restrict__ att, const float *__restrict__ preatt, int B, int T, int NH) {
  ROW_SETUP
  for (int j = 4 * L; j < T; j += 128) {
    float4 v = make_float4(0, 0, 0, 0);
    if (j <= t) v = *reinterpret_cast<const float4 *>(in + j);
    if (j + 1 > t) v.y = 0; if (j + 2 > t) v.z = 0; if (j + 3 > t) v.w = 0;
    *reinterpret_cast<float4 *>(out + j) = v;
  }
}

// 3 passes: max; exp-sum (STORE2: store exp, pass 3 scales it; else pass 3 recomputes exp from preatt)
template <int STORE2, int CS>
__global__ void three(float *__restrict__ att, const float *__restrict__ preatt, int B, int T, int NH) {
  ROW_SETUP
  float m = -10000.0f;
  #pragma unroll 4
  for (int j = L; j <= t; j += 32) m = fmaxf(m, in[j]);
  m = wmax(m);
  float s = 0.0f;
  #pragma unroll 4
  for (int j = L; j <= t; j += 32) { float e = expf(in[j] - m); s += e; if (STORE2) out[j] = e; }
  s = wsum(s);
  float inv = s == 0.0f ? 0.0f : 1.0f / s;
  #pragma unroll 4
  for (int j = L; j < T; j += 32) {
    float v = j <= t ? (STORE2 ? out[j] : expf(in[j] - m)) * inv : 0.0f;
    if (CS) __stcs(out + j, v); else out[j] = v;
  }
}

// 2 passes: online max and sum, then the output
template <int CS>
__global__ void online2(float *__restrict__ att, const float *__restrict__ preatt, int B, int T, int NH) {
  ROW_SETUP
  float m = -10000.0f, s = 0.0f;
  #pragma unroll 4
  for (int j = L; j <= t; j += 32) {
    float x = in[j];
    if (x > m) { s = s * expf(m - x); m = x; }
    s += expf(x - m);
  }
  float M = wmax(m);
  s = wsum(s * expf(m - M));
  float inv = s == 0.0f ? 0.0f : 1.0f / s;
  #pragma unroll 4
  for (int j = L; j < T; j += 32) {
    float v = j <= t ? expf(in[j] - M) * inv : 0.0f;
    if (CS) __stcs(out + j, v); else out[j] = v;
  }
}

__global__ void online2f4(float *__restrict__ att, const float *__restrict__ preatt, int B, int T, int NH) {
  ROW_SETUP
  float m = -10000.0f, s = 0.0f;
  for (int j = 4 * L; j <= t; j += 128) {
    float4 x = *reinterpret_cast<const float4 *>(in + j);
    float a[4] = {x.x, x.y, x.z, x.w};
    #pragma unroll
    for (int e = 0; e < 4; e++) if (j + e <= t) {
      if (a[e] > m) { s = s * expf(m - a[e]); m = a[e]; }
      s += expf(a[e] - m);
    }
  }
  float M = wmax(m);
  s = wsum(s * expf(m - M));
  float inv = s == 0.0f ? 0.0f : 1.0f / s;
  for (int j = 4 * L; j < T; j += 128) {
    float4 v = make_float4(0, 0, 0, 0);
    if (j <= t) {
      float4 x = *reinterpret_cast<const float4 *>(in + j);
      v.x = expf(x.x - M) * inv;
      v.y = j + 1 <= t ? expf(x.y - M) * inv : 0.0f;
      v.z = j + 2 <= t ? expf(x.z - M) * inv : 0.0f;
      v.w = j + 3 <= t ? expf(x.w - M) * inv : 0.0f;
    }
    __stcs(reinterpret_cast<float4 *>(out + j), v);
  }
}

__global__ void copy4(float4 *d, const float4 *s, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) d[i] = s[i];
}

static char *g_flush;
static const size_t FLUSH = 512ull << 20;
template <class F> static float time_med(F launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> v;
  for (int r = 0; r < 21; r++) {
    CK(cudaMemsetAsync(g_flush, r, FLUSH));
    CK(cudaEventRecord(a)); launch(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r) v.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  const int B = 64, NH = 8, T = 512;
  size_t n = (size_t)B * NH * T * T;
  float *pre, *att, *ref;
  CK(cudaMalloc(&g_flush, FLUSH)); CK(cudaMalloc(&pre, n * 4)); CK(cudaMalloc(&att, n * 4)); CK(cudaMalloc(&ref, n * 4));
  std::vector<float> h(n);
  for (size_t i = 0; i < n; i++) h[i] = (float)((i * 2654435761u) % 1000) / 250.0f - 2.0f;
  CK(cudaMemcpy(pre, h.data(), n * 4, cudaMemcpyHostToDevice));
  double bytes = 6.0 * n;  // the task's cost: read half the rows (t + 1 of T), write all
  float cms = time_med([&] { copy4<<<132 * 8, 512>>>((float4 *)att, (const float4 *)pre, n / 4); });
  double copy = 2.0 * n * 4 / (cms * 1e-3) / 1e9;
  printf("copy %zu MB: %.1f us %.0f GB/s (read + write)\n", n * 4 >> 20, cms * 1e3, copy);
  dim3 blk(32, 8), grd((unsigned)(B * T * NH / 8));
  k_rule<<<ks_row_grid(B * T * NH, T), ks_row_block(T)>>>(ref, pre, B, T, NH);
  CK(cudaDeviceSynchronize());
  std::vector<float> r(n), o(n);
  CK(cudaMemcpy(r.data(), ref, n * 4, cudaMemcpyDeviceToHost));
  auto rep = [&](const char *name, float ms, bool check) {
    double gbs = bytes / (ms * 1e-3) / 1e9, md = 0;
    if (check) {
      CK(cudaMemcpy(o.data(), att, n * 4, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < n; i++) md = std::max(md, (double)fabsf(o[i] - r[i]));
    }
    printf("%-28s %8.1f us %6.0f GB/s %5.1f%% of copy  maxdiff %s%.2g\n", name, ms * 1e3, gbs, 100 * gbs / copy,
           check ? "" : "(n/a) ", md);
  };
  rep("rule (a1r, memory path)", time_med([&] { k_rule<<<ks_row_grid(B * T * NH, T), ks_row_block(T)>>>(att, pre, B, T, NH); }), true);
  rep("rule, last pass __stcs", time_med([&] { k_rule_cs<<<ks_row_grid(B * T * NH, T), ks_row_block(T)>>>(att, pre, B, T, NH); }), true);
  rep("resident K=16", time_med([&] { k_res16<<<ks_row_grid(B * T * NH, T), ks_row_block(T)>>>(att, pre, B, T, NH); }), true);
  rep("resident K=16, __stcs", time_med([&] { k_res16_cs<<<ks_row_grid(B * T * NH, T), ks_row_block(T)>>>(att, pre, B, T, NH); }), true);
  rep("online2 float4, __stcs", time_med([&] { online2f4<<<grd, blk>>>(att, pre, B, T, NH); }), true);
  rep("pattern: read t+1, write T", time_med([&] { pattern<0><<<grd, blk>>>(att, pre, B, T, NH); }), false);
  rep("pattern, __stcs", time_med([&] { pattern<1><<<grd, blk>>>(att, pre, B, T, NH); }), false);
  rep("pattern float4", time_med([&] { pattern4<<<grd, blk>>>(att, pre, B, T, NH); }), false);
  rep("three, store2", time_med([&] { three<1, 0><<<grd, blk>>>(att, pre, B, T, NH); }), true);
  rep("three, store2, __stcs", time_med([&] { three<1, 1><<<grd, blk>>>(att, pre, B, T, NH); }), true);
  rep("three, recompute exp", time_med([&] { three<0, 0><<<grd, blk>>>(att, pre, B, T, NH); }), true);
  rep("three, recompute, __stcs", time_med([&] { three<0, 1><<<grd, blk>>>(att, pre, B, T, NH); }), true);
  rep("online2", time_med([&] { online2<0><<<grd, blk>>>(att, pre, B, T, NH); }), true);
  rep("online2, __stcs", time_med([&] { online2<1><<<grd, blk>>>(att, pre, B, T, NH); }), true);
  return 0;
}

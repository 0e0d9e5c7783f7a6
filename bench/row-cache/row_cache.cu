// bench/row-cache/row_cache.cu — does keeping a row in registers between the
// passes of a multi-pass row kernel (layernorm, softmax) pay on this GPU, and
// how much of the rest is the block shape or the vector width? Side by side in
// one process: the form rule row-reduce emits today (every pass reads the row
// again) against hand-written variants, each timed with CUDA events after an
// L2 flush, median of 20 runs, against a device-to-device copy of the same
// bytes. Evidence for docs/rules/row-reduce.md; not a test.
//
//   nvcc -O3 -arch=sm_90 -o row_cache row_cache.cu && ./row_cache
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <vector>

#define CK(x)                                                                     \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

__device__ __forceinline__ float block_sum(float v) {
  __shared__ float part[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  if ((threadIdx.x & 31u) == 0u) part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? part[threadIdx.x & 31u] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double block_sum_d(double v) {
  __shared__ double part[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  if ((threadIdx.x & 31u) == 0u) part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? part[threadIdx.x & 31u] : 0.0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float block_max(float v) {
  __shared__ float part[32];
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();
  if ((threadIdx.x & 31u) == 0u) part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = part[(threadIdx.x & 31u) < (blockDim.x >> 5) ? (threadIdx.x & 31u) : 0u];
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

struct pk8 { uint4 q; __device__ __nv_bfloat16 &operator[](int e) { return reinterpret_cast<__nv_bfloat16 *>(&q)[e]; } };

// ---- layernorm, bf16 rows, f32 gamma/beta: every pass loads its packs (today's rule) ----
__global__ void ln_reload(__nv_bfloat16 *y, const __nv_bfloat16 *x, const float *g, const float *b, int rows, int cols, float eps) {
  int row = blockIdx.x;
  if (row >= rows) return;
  const __nv_bfloat16 *xr = x + (int64_t)row * cols;
  float mean = 0.f;
  for (int j = 8 * threadIdx.x; j < cols; j += 8 * blockDim.x) {
    pk8 p; p.q = *reinterpret_cast<const uint4 *>(xr + j);
#pragma unroll
    for (int e = 0; e < 8; e++) mean += __bfloat162float(p[e]);
  }
  mean = block_sum(mean) / cols;
  float var = 0.f;
  for (int j = 8 * threadIdx.x; j < cols; j += 8 * blockDim.x) {
    pk8 p; p.q = *reinterpret_cast<const uint4 *>(xr + j);
#pragma unroll
    for (int e = 0; e < 8; e++) { float d = __bfloat162float(p[e]) - mean; var += d * d; }
  }
  float rstd = rsqrtf(block_sum(var) / cols + eps);
  for (int j = 8 * threadIdx.x; j < cols; j += 8 * blockDim.x) {
    pk8 p; p.q = *reinterpret_cast<const uint4 *>(xr + j);
    pk8 o;
#pragma unroll
    for (int e = 0; e < 8; e++) o[e] = __float2bfloat16((__bfloat162float(p[e]) - mean) * rstd * g[j + e] + b[j + e]);
    *reinterpret_cast<uint4 *>(y + (int64_t)row * cols + j) = o.q;
  }
}

// ---- the same with the row's packs kept in registers (K packs per thread) ----
template <int K>
__global__ void ln_cached(__nv_bfloat16 *y, const __nv_bfloat16 *x, const float *g, const float *b, int rows, int cols, float eps) {
  int row = blockIdx.x;
  if (row >= rows) return;
  const __nv_bfloat16 *xr = x + (int64_t)row * cols;
  pk8 c[K];
  float mean = 0.f;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 8 * (threadIdx.x + u * blockDim.x);
    if (j < cols) {
      c[u].q = *reinterpret_cast<const uint4 *>(xr + j);
#pragma unroll
      for (int e = 0; e < 8; e++) mean += __bfloat162float(c[u][e]);
    }
  }
  mean = block_sum(mean) / cols;
  float var = 0.f;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 8 * (threadIdx.x + u * blockDim.x);
    if (j < cols) {
#pragma unroll
      for (int e = 0; e < 8; e++) { float d = __bfloat162float(c[u][e]) - mean; var += d * d; }
    }
  }
  float rstd = rsqrtf(block_sum(var) / cols + eps);
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 8 * (threadIdx.x + u * blockDim.x);
    if (j < cols) {
      pk8 o;
#pragma unroll
      for (int e = 0; e < 8; e++) o[e] = __float2bfloat16((__bfloat162float(c[u][e]) - mean) * rstd * g[j + e] + b[j + e]);
      *reinterpret_cast<uint4 *>(y + (int64_t)row * cols + j) = o.q;
    }
  }
}

// ---- softmax f32 rows as rule row-reduce emits it today (scalar strided, 3 passes, double sum) ----
__global__ void sm_reload(float *out, const float *inp, int N, int C) {
  int i = blockIdx.x;
  if (i >= N) return;
  const float *ir = inp + (int64_t)i * C;
  float *orow = out + (int64_t)i * C;
  float mx = -INFINITY;
  for (int j = threadIdx.x; j < C; j += blockDim.x) mx = fmaxf(mx, ir[j]);
  mx = block_max(mx);
  double sum = 0.0;
  for (int j = threadIdx.x; j < C; j += blockDim.x) { orow[j] = expf(ir[j] - mx); sum += orow[j]; }
  sum = block_sum_d(sum);
  for (int j = threadIdx.x; j < C; j += blockDim.x) orow[j] /= (float)sum;
}

// ---- cached: inputs and the exp values kept in registers; STORE2 keeps pass 2's store ----
template <int K, bool STORE2>
__global__ void sm_cached(float *out, const float *inp, int N, int C) {
  int i = blockIdx.x;
  if (i >= N) return;
  const float *ir = inp + (int64_t)i * C;
  float *orow = out + (int64_t)i * C;
  float v[K];
  float mx = -INFINITY;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = threadIdx.x + u * blockDim.x;
    if (j < C) { v[u] = ir[j]; mx = fmaxf(mx, v[u]); }
  }
  mx = block_max(mx);
  double sum = 0.0;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = threadIdx.x + u * blockDim.x;
    if (j < C) { v[u] = expf(v[u] - mx); if (STORE2) orow[j] = v[u]; sum += v[u]; }
  }
  sum = block_sum_d(sum);
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = threadIdx.x + u * blockDim.x;
    if (j < C) orow[j] = v[u] / (float)sum;
  }
}

// ---- cached, float4 per thread (4 consecutive elements), pass 2's store dropped ----
template <int K>
__global__ void sm_cached4(float *out, const float *inp, int N, int C) {
  int i = blockIdx.x;
  if (i >= N) return;
  const float *ir = inp + (int64_t)i * C;
  float *orow = out + (int64_t)i * C;
  float4 v[K];
  float mx = -INFINITY;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 4 * (threadIdx.x + u * blockDim.x);
    if (j < C) {
      v[u] = *reinterpret_cast<const float4 *>(ir + j);
      mx = fmaxf(fmaxf(mx, fmaxf(v[u].x, v[u].y)), fmaxf(v[u].z, v[u].w));
    }
  }
  mx = block_max(mx);
  double sum = 0.0;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 4 * (threadIdx.x + u * blockDim.x);
    if (j < C) {
      v[u].x = expf(v[u].x - mx); v[u].y = expf(v[u].y - mx); v[u].z = expf(v[u].z - mx); v[u].w = expf(v[u].w - mx);
      sum += v[u].x; sum += v[u].y; sum += v[u].z; sum += v[u].w;
    }
  }
  sum = block_sum_d(sum);
  float s = (float)sum;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 4 * (threadIdx.x + u * blockDim.x);
    if (j < C) *reinterpret_cast<float4 *>(orow + j) = make_float4(v[u].x / s, v[u].y / s, v[u].z / s, v[u].w / s);
  }
}

// ---- gamma/beta as packs too (today's rule): reload every pass, or keep x's packs (K per thread) ----
__device__ __forceinline__ void ld8f(float *r, const float *p) {
  float4 a = *reinterpret_cast<const float4 *>(p), b = *reinterpret_cast<const float4 *>(p + 4);
  r[0] = a.x; r[1] = a.y; r[2] = a.z; r[3] = a.w; r[4] = b.x; r[5] = b.y; r[6] = b.z; r[7] = b.w;
}
// ROWS rows a block, blockDim.x threads a row (blockDim.y rows); reductions within the row's group
__device__ __forceinline__ float group_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (blockDim.x == 32u) return v;
  __shared__ float part[32][33];
  __syncthreads();
  if ((threadIdx.x & 31u) == 0u) part[threadIdx.y][threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? part[threadIdx.y][threadIdx.x & 31u] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
template <int K, bool CACHE>
__global__ void ln_packs(__nv_bfloat16 *y, const __nv_bfloat16 *x, const float *g, const float *b, int rows, int cols, float eps) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const __nv_bfloat16 *xr = x + (int64_t)row * cols;
  pk8 c[K];
  float mean = 0.f;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 8 * (threadIdx.x + u * blockDim.x);
    if (j < cols) {
      c[u].q = *reinterpret_cast<const uint4 *>(xr + j);
#pragma unroll
      for (int e = 0; e < 8; e++) mean += __bfloat162float(c[u][e]);
    }
  }
  mean = group_sum(mean) / cols;
  float var = 0.f;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 8 * (threadIdx.x + u * blockDim.x);
    if (j < cols) {
      if (!CACHE) c[u].q = *reinterpret_cast<const uint4 *>(xr + j);
#pragma unroll
      for (int e = 0; e < 8; e++) { float d = __bfloat162float(c[u][e]) - mean; var += d * d; }
    }
  }
  float rstd = rsqrtf(group_sum(var) / cols + eps);
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 8 * (threadIdx.x + u * blockDim.x);
    if (j < cols) {
      if (!CACHE) c[u].q = *reinterpret_cast<const uint4 *>(xr + j);
      float gg[8], bb[8];
      ld8f(gg, g + j);
      ld8f(bb, b + j);
      pk8 o;
#pragma unroll
      for (int e = 0; e < 8; e++) o[e] = __float2bfloat16((__bfloat162float(c[u][e]) - mean) * rstd * gg[e] + bb[e]);
      *reinterpret_cast<uint4 *>(y + (int64_t)row * cols + j) = o.q;
    }
  }
}

// ---- softmax f32 in packs of 8 (two float4), K packs a thread: reload or cache, pass 2's store kept or not ----
template <int K, bool CACHE, bool STORE2>
__global__ void sm_packs(float *out, const float *inp, int N, int C) {
  int i = blockIdx.x;
  if (i >= N) return;
  const float *ir = inp + (int64_t)i * C;
  float *orow = out + (int64_t)i * C;
  float v[K][8];
  float mx = -INFINITY;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 8 * (threadIdx.x + u * blockDim.x);
    if (j < C) { ld8f(v[u], ir + j);
#pragma unroll
      for (int e = 0; e < 8; e++) mx = fmaxf(mx, v[u][e]); }
  }
  mx = block_max(mx);
  double sum = 0.0;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 8 * (threadIdx.x + u * blockDim.x);
    if (j < C) {
      if (!CACHE) ld8f(v[u], ir + j);
#pragma unroll
      for (int e = 0; e < 8; e++) { v[u][e] = expf(v[u][e] - mx); sum += v[u][e]; }
      if (STORE2) { *reinterpret_cast<float4 *>(orow + j) = make_float4(v[u][0], v[u][1], v[u][2], v[u][3]);
                    *reinterpret_cast<float4 *>(orow + j + 4) = make_float4(v[u][4], v[u][5], v[u][6], v[u][7]); }
    }
  }
  sum = block_sum_d(sum);
  float s = (float)sum;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 8 * (threadIdx.x + u * blockDim.x);
    if (j < C) {
      if (!CACHE) ld8f(v[u], orow + j);
      *reinterpret_cast<float4 *>(orow + j) = make_float4(v[u][0] / s, v[u][1] / s, v[u][2] / s, v[u][3] / s);
      *reinterpret_cast<float4 *>(orow + j + 4) = make_float4(v[u][4] / s, v[u][5] / s, v[u][6] / s, v[u][7] / s);
    }
  }
}

// ---- softmax f32 in packs of 4 (one float4), K packs a thread: reload or cache, pass 2's store kept or not ----
template <int K, bool CACHE, bool STORE2>
__global__ void sm_packs4(float *out, const float *inp, int N, int C) {
  int i = blockIdx.x;
  if (i >= N) return;
  const float *ir = inp + (int64_t)i * C;
  float *orow = out + (int64_t)i * C;
  float4 v[K];
  float mx = -INFINITY;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 4 * (threadIdx.x + u * blockDim.x);
    if (j < C) { v[u] = *reinterpret_cast<const float4 *>(ir + j); mx = fmaxf(fmaxf(mx, fmaxf(v[u].x, v[u].y)), fmaxf(v[u].z, v[u].w)); }
  }
  mx = block_max(mx);
  double sum = 0.0;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 4 * (threadIdx.x + u * blockDim.x);
    if (j < C) {
      if (!CACHE) v[u] = *reinterpret_cast<const float4 *>(ir + j);
      v[u].x = expf(v[u].x - mx); v[u].y = expf(v[u].y - mx); v[u].z = expf(v[u].z - mx); v[u].w = expf(v[u].w - mx);
      sum += v[u].x; sum += v[u].y; sum += v[u].z; sum += v[u].w;
      if (STORE2) *reinterpret_cast<float4 *>(orow + j) = v[u];
    }
  }
  sum = block_sum_d(sum);
  float s = (float)sum;
#pragma unroll
  for (int u = 0; u < K; u++) {
    int j = 4 * (threadIdx.x + u * blockDim.x);
    if (j < C) {
      if (!CACHE) v[u] = *reinterpret_cast<const float4 *>(orow + j);
      *reinterpret_cast<float4 *>(orow + j) = make_float4(v[u].x / s, v[u].y / s, v[u].z / s, v[u].w / s);
    }
  }
}

__global__ void copy4(float4 *d, const float4 *s, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) d[i] = s[i];
}

static char *g_flush;
static const size_t FLUSH = 512ull << 20;

template <class F> static float time_med(F launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < 21; r++) {
    CK(cudaMemsetAsync(g_flush, r, FLUSH));
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r) t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static void report(const char *name, float ms, double bytes, double peak) {
  double gbs = bytes / (ms * 1e-3) / 1e9;
  printf("%-34s %9.1f us %8.0f GB/s %6.1f%% of copy\n", name, ms * 1e3, gbs, 100.0 * gbs / peak);
}

int main() {
  CK(cudaMalloc(&g_flush, FLUSH));
  const int R = 65536, C = 2048, N = 32768, SC = 2048;
  size_t nb = (size_t)R * C;
  __nv_bfloat16 *x, *y;
  float *g, *b, *in, *out, *out2;
  CK(cudaMalloc(&x, nb * 2));
  CK(cudaMalloc(&y, nb * 2));
  CK(cudaMalloc(&g, C * 4));
  CK(cudaMalloc(&b, C * 4));
  CK(cudaMalloc(&in, (size_t)N * SC * 4));
  CK(cudaMalloc(&out, (size_t)N * SC * 4));
  CK(cudaMalloc(&out2, (size_t)N * SC * 4));
  std::vector<float> h((size_t)N * SC);
  for (size_t i = 0; i < h.size(); i++) h[i] = (float)((i * 2654435761u) % 1000) / 250.0f - 2.0f;
  CK(cudaMemcpy(in, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  std::vector<__nv_bfloat16> hx(nb);
  for (size_t i = 0; i < nb; i++) hx[i] = __float2bfloat16(h[i % h.size()]);
  CK(cudaMemcpy(x, hx.data(), nb * 2, cudaMemcpyHostToDevice));
  std::vector<float> hg(C, 1.1f), hb(C, 0.1f);
  CK(cudaMemcpy(g, hg.data(), C * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, hb.data(), C * 4, cudaMemcpyHostToDevice));

  size_t cn = (size_t)N * SC / 4;
  float cms = time_med([&] { copy4<<<132 * 8, 512>>>((float4 *)out, (const float4 *)in, cn); });
  double peak = 2.0 * N * SC * 4 / (cms * 1e-3) / 1e9;
  printf("copy %zu MB: %.1f us, %.0f GB/s (read + write)\n", (size_t)N * SC * 4 >> 20, cms * 1e3, peak);

  double lnb = 4.0 * R * C;
  report("layernorm bf16: reload, 256 thr", time_med([&] { ln_reload<<<R, 256>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("layernorm bf16: reload, 128 thr", time_med([&] { ln_reload<<<R, 128>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("layernorm bf16: cached, 256 thr", time_med([&] { ln_cached<1><<<R, 256>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("layernorm bf16: cached, 128 thr", time_med([&] { ln_cached<2><<<R, 128>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("layernorm bf16: cached, 64 thr", time_med([&] { ln_cached<4><<<R, 64>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("layernorm bf16: cached K=4, 256 thr", time_med([&] { ln_cached<4><<<R, 256>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);

  double smb = 8.0 * N * SC;
  report("softmax f32: reload, 256 thr", time_med([&] { sm_reload<<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("softmax f32: reload, 512 thr", time_med([&] { sm_reload<<<N, 512>>>(out, in, N, SC); }), smb, peak);
  report("softmax f32: cached+store2, 256", time_med([&] { sm_cached<8, true><<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("softmax f32: cached, 256", time_med([&] { sm_cached<8, false><<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("softmax f32: cached, 512", time_med([&] { sm_cached<4, false><<<N, 512>>>(out, in, N, SC); }), smb, peak);
  report("softmax f32: cached K=16, 256", time_med([&] { sm_cached<16, false><<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("softmax f32: cached float4, 256", time_med([&] { sm_cached4<2><<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("softmax f32: cached float4, 128", time_med([&] { sm_cached4<4><<<N, 128>>>(out, in, N, SC); }), smb, peak);

  report("ln packs: reload, 256 thr", time_med([&] { ln_packs<1, false><<<R, dim3(256, 1)>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("ln packs: cached, 256 thr", time_med([&] { ln_packs<1, true><<<R, dim3(256, 1)>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("ln packs: cached, 128 thr", time_med([&] { ln_packs<2, true><<<R, dim3(128, 1)>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("ln packs: cached, 64x2 rows", time_med([&] { ln_packs<4, true><<<R / 2, dim3(64, 2)>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("ln packs: cached, warp x8 rows", time_med([&] { ln_packs<8, true><<<R / 8, dim3(32, 8)>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("ln packs: reload, warp x8 rows", time_med([&] { ln_packs<8, false><<<R / 8, dim3(32, 8)>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("ln packs: cached, warp x4 rows", time_med([&] { ln_packs<8, true><<<R / 4, dim3(32, 4)>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("sm packs: reload, 256", time_med([&] { sm_packs<1, false, true><<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("sm packs: cached+store2, 256", time_med([&] { sm_packs<1, true, true><<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("sm packs: cached, 256", time_med([&] { sm_packs<1, true, false><<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("sm packs: cached+store2, 128", time_med([&] { sm_packs<2, true, true><<<N, 128>>>(out, in, N, SC); }), smb, peak);
  report("sm packs: reload, 128", time_med([&] { sm_packs<2, false, true><<<N, 128>>>(out, in, N, SC); }), smb, peak);

  report("sm packs4: reload+store2, 256", time_med([&] { sm_packs4<2, false, true><<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("sm packs4: reload+store2, 512", time_med([&] { sm_packs4<1, false, true><<<N, 512>>>(out, in, N, SC); }), smb, peak);
  report("sm packs4: cached+store2, 256", time_med([&] { sm_packs4<2, true, true><<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("sm packs4: cached, 256", time_med([&] { sm_packs4<2, true, false><<<N, 256>>>(out, in, N, SC); }), smb, peak);
  report("sm packs4: cached+store2, 128", time_med([&] { sm_packs4<4, true, true><<<N, 128>>>(out, in, N, SC); }), smb, peak);
  report("sm packs4: cached, 128", time_med([&] { sm_packs4<4, true, false><<<N, 128>>>(out, in, N, SC); }), smb, peak);
  report("ln packs: reload, 64 thr", time_med([&] { ln_packs<4, false><<<R, dim3(64, 1)>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("ln packs: cached, 64 thr", time_med([&] { ln_packs<4, true><<<R, dim3(64, 1)>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);
  report("ln packs: reload, 128 thr", time_med([&] { ln_packs<2, false><<<R, dim3(128, 1)>>>(y, x, g, b, R, C, 1e-5f); }), lnb, peak);

  // the cached forms compute what the reload forms compute
  sm_reload<<<N, 256>>>(out, in, N, SC);
  sm_cached<8, false><<<N, 256>>>(out2, in, N, SC);
  CK(cudaDeviceSynchronize());
  std::vector<float> o1((size_t)N * SC), o2((size_t)N * SC);
  CK(cudaMemcpy(o1.data(), out, o1.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(o2.data(), out2, o2.size() * 4, cudaMemcpyDeviceToHost));
  double md = 0;
  for (size_t i = 0; i < o1.size(); i++) md = std::max(md, (double)fabsf(o1[i] - o2[i]));
  printf("softmax cached vs reload: max abs diff %.3g\n", md);
  return 0;
}

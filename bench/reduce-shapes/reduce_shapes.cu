// reduce_shapes.cu — which thread shapes reach the DRAM bandwidth for row and column
// reductions on the GPU in front of it: copies of 16 MB..1 GiB (the size effect), a row sum
// and a three-pass layernorm with a group of G threads per row (G = 32..512, a warp and
// several rows a block, 4 or 8 loads in flight, float4), column sums with COLS x ROWS
// blocks and 1..16 loads in flight. Cold L2 (a 512 MB memset before each run), CUDA events,
// mean of 20 runs. Prints one line per variant; the choices of rules row-reduce
// (threads=auto) and column-walk (rows=32 unroll=8) come from its output on the H200
// (docs/corpus-gpu.md). Build and run: nvcc -O3 -arch=sm_90 -std=c++17 reduce_shapes.cu -o rs && ./rs
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)

__device__ __forceinline__ float group_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (blockDim.x == 32) return v;
  __shared__ float part[32];
  __syncthreads();
  if ((threadIdx.x & 31u) == 0u) part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? part[threadIdx.x & 31u] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// y[r] = sum_j A[r*C+j] * p[j]; U loads in flight per thread
template <int U>
__global__ void rowdot(const float* __restrict__ A, const float* __restrict__ p, float* __restrict__ y, int R, int C) {
  int r = blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= R) return;
  const float* a = A + (size_t)r * C;
  float s = 0.f;
  int j = threadIdx.x;
  for (; j + (U - 1) * (int)blockDim.x < C; j += U * blockDim.x) {
#pragma unroll
    for (int u = 0; u < U; u++) s += a[j + u * blockDim.x] * p[j + u * blockDim.x];
  }
  for (; j < C; j += blockDim.x) s += a[j] * p[j];
  s = group_sum(s);
  if (threadIdx.x == 0) y[r] = s;
}
// float4 version (C % 4 == 0, aligned)
template <int U>
__global__ void rowdot4(const float* __restrict__ A, const float* __restrict__ p, float* __restrict__ y, int R, int C) {
  int r = blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= R) return;
  const float4* a = (const float4*)(A + (size_t)r * C);
  const float4* q = (const float4*)p;
  int C4 = C / 4;
  float s = 0.f;
  int j = threadIdx.x;
  for (; j + (U - 1) * (int)blockDim.x < C4; j += U * blockDim.x) {
#pragma unroll
    for (int u = 0; u < U; u++) { float4 x = a[j + u * blockDim.x], w = q[j + u * blockDim.x]; s += x.x*w.x + x.y*w.y + x.z*w.z + x.w*w.w; }
  }
  for (; j < C4; j += blockDim.x) { float4 x = a[j], w = q[j]; s += x.x*w.x + x.y*w.y + x.z*w.z + x.w*w.w; }
  s = group_sum(s);
  if (threadIdx.x == 0) y[r] = s;
}
// three-pass layernorm like the rule's output
template <int U>
__global__ void lnorm(float* out, float* mean, float* rstd, const float* __restrict__ inp, const float* __restrict__ w,
                      const float* __restrict__ b, int N, int C) {
  int idx = blockIdx.x * blockDim.y + threadIdx.y;
  if (idx >= N) return;
  const float* x = inp + (size_t)idx * C;
  float m = 0.f;
  { int j = threadIdx.x;
    for (; j + (U - 1) * (int)blockDim.x < C; j += U * blockDim.x) {
#pragma unroll
      for (int u = 0; u < U; u++) m += x[j + u * blockDim.x]; }
    for (; j < C; j += blockDim.x) m += x[j]; }
  m = group_sum(m) / C;
  float v = 0.f;
  { int j = threadIdx.x;
    for (; j + (U - 1) * (int)blockDim.x < C; j += U * blockDim.x) {
#pragma unroll
      for (int u = 0; u < U; u++) { float d = x[j + u * blockDim.x] - m; v += d * d; } }
    for (; j < C; j += blockDim.x) { float d = x[j] - m; v += d * d; } }
  v = group_sum(v) / C;
  float s = 1.0f / sqrtf(v + 1e-5f);
  float* o = out + (size_t)idx * C;
  { int j = threadIdx.x;
    for (; j + (U - 1) * (int)blockDim.x < C; j += U * blockDim.x) {
#pragma unroll
      for (int u = 0; u < U; u++) { int i = j + u * blockDim.x; o[i] = s * (x[i] - m) * w[i] + b[i]; } }
    for (; j < C; j += blockDim.x) o[j] = s * (x[j] - m) * w[j] + b[j]; }
  if (threadIdx.x == 0) { mean[idx] = m; rstd[idx] = s; }
}

static float *flushbuf;
static void flush() { CK(cudaMemsetAsync(flushbuf, 0, 512u << 20)); }
template <class F> static float timeit(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  float best = 1e9, tot = 0; int n = 20;
  f(); CK(cudaDeviceSynchronize());
  for (int i = 0; i < n; i++) { flush(); cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); tot += ms; if (ms < best) best = ms; }
  CK(cudaGetLastError());
  return tot / n;
}

// column walk: out[c] = sum_r in[r*C + c], block (CX, RY): slice ty walks rows ty, ty+RY, ...
template <int CX, int RY, int U>
__global__ void colsum(const float* in, float* out, int R, int C) {
  int c = blockIdx.x * CX + threadIdx.x;
  bool ok = c < C;
  float s = 0.f;
  if (ok) {
#pragma unroll U
    for (int r = threadIdx.y; r < R; r += RY) s += in[(size_t)r * C + c];
  }
  __shared__ float sh[RY][CX];
  sh[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  for (int h = RY / 2; h > 0; h >>= 1) { if ((int)threadIdx.y < h) sh[threadIdx.y][threadIdx.x] += sh[threadIdx.y + h][threadIdx.x]; __syncthreads(); }
  if (ok && threadIdx.y == 0) out[c] = sh[0][threadIdx.x];
}
template <int CX, int RY, int U> static float runcol(const float* in, float* out, int R, int C) {
  return timeit([&] { colsum<CX, RY, U><<<(C + CX - 1) / CX, dim3(CX, RY)>>>(in, out, R, C); });
}
static void colbench(double peak) {
  struct S { int R, C; } ss[] = {{4096, 4096}, {512, 4096 * 16}, {8192, 8192}, {1024, 16384}, {16384, 4096}};
  for (auto s : ss) {
    float *in, *out; CK(cudaMalloc(&in, (size_t)s.R * s.C * 4)); CK(cudaMalloc(&out, (size_t)s.C * 4));
    cudaMemset(in, 0, (size_t)s.R * s.C * 4);
    double b = (double)s.R * s.C * 4 + s.C * 4.0;
    printf("colsum R=%d C=%d (%.0f MB)\n", s.R, s.C, b / 1e6);
#define C1(cx, ry, u) { float t = runcol<cx, ry, u>(in, out, s.R, s.C); printf("  %3dx%-3d u%-2d %8.1f us %6.0f GB/s %5.1f%%\n", cx, ry, u, t * 1e3, b / (t * 1e-3) / 1e9, 100 * b / (t * 1e-3) / 1e9 / peak); }
    C1(32, 16, 1) C1(32, 16, 8) C1(16, 32, 8) C1(8, 64, 8) C1(8, 64, 4) C1(16, 32, 4) C1(8, 128, 8) C1(4, 128, 8) C1(32, 32, 8)
    cudaFree(in); cudaFree(out);
  }
}
int main() {
  CK(cudaMalloc(&flushbuf, 512u << 20));
  // peak: a copy kernel by cudaMemcpy of 1 GiB
  size_t big = 1u << 30; float *s1, *s2; CK(cudaMalloc(&s1, big)); CK(cudaMalloc(&s2, big));
  float tcp = timeit([&] { CK(cudaMemcpyAsync(s2, s1, big, cudaMemcpyDeviceToDevice)); });
  double peak = 2.0 * big / (tcp * 1e-3) / 1e9;
  printf("peak copy %.0f GB/s\n", peak);
  for (size_t mb = 16; mb <= 1024; mb *= 2) { size_t n = mb << 20; float t = timeit([&] { CK(cudaMemcpyAsync(s2, s1, n, cudaMemcpyDeviceToDevice)); });
    printf("  memcpy %5zu MB (moves %zu MB) %8.1f us %5.1f%% of peak\n", mb, 2 * mb, t * 1e3, 100 * 2.0 * n / (t * 1e-3) / 1e9 / peak); }
  { float t = timeit([&] { }); printf("  empty event pair %.1f us\n", t * 1e3); }
  struct Shape { int R, C; } shapes[] = {{4096, 4096}, {16384, 1024}, {65536, 1024}, {8192, 2048}, {32768, 2048}, {16384, 4096}, {65536, 256}, {262144, 256}};
  for (auto sh : shapes) {
    int R = sh.R, C = sh.C;
    float *A, *p, *y; CK(cudaMalloc(&A, (size_t)R * C * 4)); CK(cudaMalloc(&p, C * 4)); CK(cudaMalloc(&y, R * 4));
    cudaMemset(A, 0, (size_t)R * C * 4); cudaMemset(p, 0, C * 4);
    double bytes = (double)R * C * 4 + C * 4 + R * 4;
    struct V { const char* n; int gx, gy, u, vec; } vs[] = {
      {"blk256 u4", 256, 1, 4, 0}, {"blk128 u4", 128, 1, 4, 0}, {"blk64 u4", 64, 1, 4, 0}, {"blk256 u8", 256, 1, 8, 0}, {"blk128 u8", 128, 1, 8, 0},
      {"warp x8 u4", 32, 8, 4, 0}, {"warp x8 u8", 32, 8, 8, 0}, {"warp x4 u8", 32, 4, 8, 0},
      {"blk256 v4u2", 256, 1, 2, 1}, {"blk128 v4u2", 128, 1, 2, 1}, {"warp x8 v4u2", 32, 8, 2, 1}, {"warp x8 v4u4", 32, 8, 4, 1}, {"blk64 v4u2", 64, 1, 2, 1}};
    printf("rowdot R=%d C=%d (%.0f MB)\n", R, C, bytes / 1e6);
    for (auto v : vs) {
      dim3 blk(v.gx, v.gy), grd((R + v.gy - 1) / v.gy);
      float t = timeit([&] {
        if (!v.vec) { if (v.u == 4) rowdot<4><<<grd, blk>>>(A, p, y, R, C); else rowdot<8><<<grd, blk>>>(A, p, y, R, C); }
        else { if (v.u == 2) rowdot4<2><<<grd, blk>>>(A, p, y, R, C); else rowdot4<4><<<grd, blk>>>(A, p, y, R, C); } });
      printf("  %-14s %8.1f us %6.0f GB/s %5.1f%%\n", v.n, t * 1e3, bytes / (t * 1e-3) / 1e9, 100 * bytes / (t * 1e-3) / 1e9 / peak);
    }
    float *o, *mn, *rs; CK(cudaMalloc(&o, (size_t)R * C * 4)); CK(cudaMalloc(&mn, R * 4)); CK(cudaMalloc(&rs, R * 4));
    double lb = 2.0 * R * C * 4 + 8.0 * C + 8.0 * R;
    printf("layernorm R=%d C=%d (%.0f MB)\n", R, C, lb / 1e6);
    for (auto v : vs) {
      if (v.vec) continue;
      dim3 blk(v.gx, v.gy), grd((R + v.gy - 1) / v.gy);
      float t = timeit([&] { if (v.u == 4) lnorm<4><<<grd, blk>>>(o, mn, rs, A, p, p, R, C); else lnorm<8><<<grd, blk>>>(o, mn, rs, A, p, p, R, C); });
      printf("  %-14s %8.1f us %6.0f GB/s %5.1f%%\n", v.n, t * 1e3, lb / (t * 1e-3) / 1e9, 100 * lb / (t * 1e-3) / 1e9 / peak);
    }
    cudaFree(A); cudaFree(p); cudaFree(y); cudaFree(o); cudaFree(mn); cudaFree(rs);
  }
  colbench(peak);
  return 0;
}

// rows16.cu — 16-bit row reductions before and after rule row-reduce (issue 14):
// the corpus's layernorm_bf16_kernel and rmsnorm_half_rows (copies of
// test/corpus/Inputs/framework_kernels.cu and research_kernels.cu) over 65536 rows of
// COLS elements (2048 by default, the corpus tasks; odd lengths take the packs' scalar
// path every other row). This file is the naive version; rows16.sh rewrites it with
// kernelskill (threads=auto, pack=off and pack=on) and builds one program per variant.
// Each prints, per kernel, the mean time of 20 runs with a cold L2 (a 512 MB memset
// before each), the bytes moved per second, and a checksum of the output (the variants
// should agree to about 1e-3 relative).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void layernorm_bf16_kernel(__nv_bfloat16* y, const __nv_bfloat16* x, const float* gamma, const float* beta,
                                      int rows, int cols, float eps) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float mean = 0.0f;
  for (int c = 0; c < cols; ++c) mean += __bfloat162float(x[(int64_t)row * cols + c]);
  mean /= cols;
  float var = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float d = __bfloat162float(x[(int64_t)row * cols + c]) - mean;
    var += d * d;
  }
  float rstd = rsqrtf(var / cols + eps);
  for (int c = 0; c < cols; ++c) {
    float v = (__bfloat162float(x[(int64_t)row * cols + c]) - mean) * rstd;
    y[(int64_t)row * cols + c] = __float2bfloat16(v * gamma[c] + beta[c]);
  }
}

__global__ void rmsnorm_half_rows(__half* out, const __half* x, const __half* w, int rows, int d, float eps) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    const __half* xr = x + (size_t)row * d;
    __half* yr = out + (size_t)row * d;
    float ss = 0.f;
    for (int j = 0; j < d; ++j) {
      float v = __half2float(xr[j]);
      ss += v * v;
    }
    float inv = rsqrtf(ss / d + eps);
    for (int j = 0; j < d; ++j) yr[j] = __float2half(__half2float(xr[j]) * inv * __half2float(w[j]));
  }
}

void launch_layernorm(__nv_bfloat16* y, const __nv_bfloat16* x, const float* g, const float* b, int rows, int cols) {
  layernorm_bf16_kernel<<<(rows + 255) / 256, 256>>>(y, x, g, b, rows, cols, 1e-5f);
}
void launch_rmsnorm(__half* y, const __half* x, const __half* w, int rows, int cols) {
  rmsnorm_half_rows<<<(rows + 127) / 128, 128>>>(y, x, w, rows, cols, 1e-6f);
}

static float time_it(void (*fn)(void*), void* arg, void* flush, size_t nFlush) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  float total = 0;
  fn(arg); /* warm-up */
  for (int i = 0; i < 20; i++) {
    CK(cudaMemset(flush, i, nFlush));
    CK(cudaEventRecord(a));
    fn(arg);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    total += ms;
  }
  CK(cudaGetLastError());
  return total / 20;
}

struct bufs { void *y, *x, *g, *b; int rows, cols; };
static void run_ln(void* p) {
  bufs* q = (bufs*)p;
  launch_layernorm((__nv_bfloat16*)q->y, (const __nv_bfloat16*)q->x, (const float*)q->g, (const float*)q->b, q->rows, q->cols);
}
static void run_rms(void* p) {
  bufs* q = (bufs*)p;
  launch_rmsnorm((__half*)q->y, (const __half*)q->x, (const __half*)q->g, q->rows, q->cols);
}

int main(int argc, char** argv) {
  int rows = 65536, cols = argc > 1 ? atoi(argv[1]) : 2048;
  size_t n = (size_t)rows * cols, nFlush = 512u << 20;
  std::vector<__nv_bfloat16> hb(n);
  std::vector<__half> hh(n);
  std::vector<float> hg(cols), hbeta(cols);
  std::vector<__half> hw(cols);
  for (size_t i = 0; i < n; i++) {
    float v = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
    hb[i] = __float2bfloat16(v);
    hh[i] = __float2half(v);
  }
  for (int c = 0; c < cols; c++) {
    hg[c] = 1.0f + (c % 7) / 16.0f;
    hbeta[c] = (c % 5) / 8.0f;
    hw[c] = __float2half(hg[c]);
  }
  bufs ln = {0, 0, 0, 0, rows, cols}, rm = {0, 0, 0, 0, rows, cols};
  void* flush;
  CK(cudaMalloc(&flush, nFlush));
  CK(cudaMalloc(&ln.y, n * 2));
  CK(cudaMalloc(&ln.x, n * 2));
  CK(cudaMalloc(&ln.g, cols * 4));
  CK(cudaMalloc(&ln.b, cols * 4));
  CK(cudaMemcpy(ln.x, hb.data(), n * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(ln.g, hg.data(), cols * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(ln.b, hbeta.data(), cols * 4, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&rm.y, n * 2));
  CK(cudaMalloc(&rm.x, n * 2));
  CK(cudaMalloc(&rm.g, cols * 2));
  CK(cudaMemcpy(rm.x, hh.data(), n * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(rm.g, hw.data(), cols * 2, cudaMemcpyHostToDevice));
  /* bytes the kernel must move: x once, y once (the cache serves the re-reads at best) */
  double bytes = 2.0 * n * 2;
  float ms = time_it(run_ln, &ln, flush, nFlush);
  CK(cudaMemcpy(hb.data(), ln.y, n * 2, cudaMemcpyDeviceToHost));
  double sum = 0;
  for (size_t i = 0; i < n; i += 97) sum += __bfloat162float(hb[i]);
  printf("layernorm_bf16 %dx%d: %.4f ms, %.0f GB/s, checksum %.6g\n", rows, cols, ms, bytes / ms / 1e6, sum);
  ms = time_it(run_rms, &rm, flush, nFlush);
  CK(cudaMemcpy(hh.data(), rm.y, n * 2, cudaMemcpyDeviceToHost));
  sum = 0;
  for (size_t i = 0; i < n; i += 97) sum += __half2float(hh[i]);
  printf("rmsnorm_half %dx%d: %.4f ms, %.0f GB/s, checksum %.6g\n", rows, cols, ms, bytes / ms / 1e6, sum);
  return 0;
}

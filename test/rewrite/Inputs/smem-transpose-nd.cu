// smem-transpose's N-D form: a flat index split into digits, a copy whose
// load is a permutation of the digits. No CHECK lines here: see
// smem-transpose-nd.test.
#include <cstdint>
#include <cuda_runtime.h>

// NCHW -> NHWC (the corpus kernel): 64-bit flat index, a total in a local,
// digits narrowed into int locals, the store on the flat index.
__global__ void nchw_to_nhwc(const float* src, float* dst, int N, int C, int H, int W) {
  int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t total = (int64_t)N * C * H * W;
  if (idx >= total) return;
  int c = idx % C;
  int w = (idx / C) % W;
  int h = (idx / ((int64_t)C * W)) % H;
  int n = idx / ((int64_t)C * W * H);
  dst[idx] = src[(((int64_t)n * C + c) * H + h) * W + w];
}

void run_nchw_to_nhwc(const float* src, float* dst, int N, int C, int H, int W) {
  int64_t total = (int64_t)N * C * H * W;
  nchw_to_nhwc<<<(unsigned)((total + 255) / 256), 256>>>(src, dst, N, C, H, W);
}

// NHWC -> NCHW the other way round: 32-bit index, if (i < total) { ... },
// the digits declared outermost first, the load on the flat index and the
// store a permutation of the digits.
__global__ void nhwc_to_nchw(float* out, const float* in, int N, int H, int W, int C) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < N * H * W * C) {
    int n = i / (H * W * C);
    int h = i / (W * C) % H;
    int w = i / C % W;
    int c = i % C;
    out[n * C * H * W + c * H * W + h * W + w] = in[i];
  }
}

void run_nhwc_to_nchw(float* out, const float* in, int N, int H, int W, int C) {
  nhwc_to_nchw<<<(N * H * W * C + 127) / 128, 128>>>(out, in, N, H, W, C);
}

// [B][T][C] -> [B][C][T] with size_t arithmetic and the digits in place.
__global__ void btc_to_bct(const float* x, float* y, int B, int T, int C) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)B * T * C) return;
  y[i] = x[(i / ((size_t)T * C)) * T * C + (i % T) * C + (i / T) % C];
}

void run_btc_to_bct(const float* x, float* y, int B, int T, int C) {
  btc_to_bct<<<(B * T * C + 255) / 256, 256>>>(x, y, B, T, C);
}

// [A][M][K] -> [K][M][A] (full reverse): the tile digits are the outermost and
// the innermost, the batch digit sits between them.
__global__ void reverse3(const float* a, float* b, int A, int M, int K) {
  long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  long long n = (long long)A * M * K;
  if (t >= n) return;
  long long ai = t % A;
  long long mi = t / A % M;
  long long ki = t / ((long long)A * M);
  b[t] = a[(ai * M + mi) * K + ki];
}

void run_reverse3(const float* a, float* b, int A, int M, int K) {
  long long n = (long long)A * M * K;
  reverse3<<<(unsigned)((n + 255) / 256), 256>>>(a, b, A, M, K);
}

// Must not change: the innermost digit D keeps its place on both sides
// (llm.c's permute: [B][N][NH][D] -> [B][NH][N][D]); both sides are coalesced.
__global__ void permute_keep_d(const float* inp, float* q, int B, int N, int NH, int D) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * NH * N * D) return;
  int b = idx / (NH * N * D);
  int nh = idx / (N * D) % NH;
  int n = idx / D % N;
  int d = idx % D;
  q[idx] = inp[b * N * NH * D + n * NH * D + nh * D + d];
}

void run_permute_keep_d(const float* inp, float* q, int B, int N, int NH, int D) {
  permute_keep_d<<<(B * NH * N * D + 255) / 256, 256>>>(inp, q, B, N, NH, D);
}

// Must not change: the digits do not split the flat index (w's place value
// C * H where h's radix sits: a place value has no digit).
__global__ void wrong_chain(const float* src, float* dst, int N, int C, int H, int W) {
  int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (int64_t)N * C * H * W) return;
  int c = idx % C;
  int w = (idx / ((int64_t)C * H)) % W;
  int h = (idx / ((int64_t)C * W)) % H;
  int n = idx / ((int64_t)C * W * H);
  dst[idx] = src[(((int64_t)n * C + c) * H + h) * W + w];
}

void run_wrong_chain(const float* src, float* dst, int N, int C, int H, int W) {
  wrong_chain<<<(N * C * H * W + 255) / 256, 256>>>(src, dst, N, C, H, W);
}

// Must not change: a broadcast (the load drops digit n), not a permutation.
__global__ void broadcast_n(const float* src, float* dst, int N, int C, int W) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * C * W) return;
  int c = idx % C;
  int w = idx / C % W;
  dst[idx] = src[c * W + w];
}

void run_broadcast_n(const float* src, float* dst, int N, int C, int W) {
  broadcast_n<<<(N * C * W + 255) / 256, 256>>>(src, dst, N, C, W);
}

// Must not change: also launched through cudaLaunchKernel, which the rule
// cannot give the tiled grid.
__global__ void nchw_api(const float* src, float* dst, int N, int C, int H, int W) {
  int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (int64_t)N * C * H * W) return;
  int64_t c = idx % C, w = idx / C % W, h = idx / ((int64_t)C * W) % H, n = idx / ((int64_t)C * W * H);
  dst[idx] = src[((n * C + c) * H + h) * W + w];
}

void run_nchw_api(const float* src, float* dst, int N, int C, int H, int W) {
  nchw_api<<<(N * C * H * W + 255) / 256, 256>>>(src, dst, N, C, H, W);
  void* args[] = {&src, &dst, &N, &C, &H, &W};
  cudaLaunchKernel((const void*)nchw_api, dim3((N * C * H * W + 255) / 256), dim3(256), args, 0, 0);
}

// Must not change: a digit narrowed into a type narrower than its radix's
// parameter (long long C, int digit): it may wrap.
__global__ void narrow_digit(const float* src, float* dst, int N, long long C, int W) {
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * C * W) return;
  int c = idx % C;
  long long w = idx / C % W;
  long long n = idx / (C * W);
  dst[idx] = src[(n * C + c) * W + w];
}

void run_narrow_digit(const float* src, float* dst, int N, long long C, int W) {
  narrow_digit<<<(unsigned)((N * C * W + 255) / 256), 256>>>(src, dst, N, C, W);
}

// Must not change: the load's strides are not a layout of the digits (W's
// place written H): not a permutation, whatever it reads.
__global__ void bad_strides(const float* src, float* dst, int N, int C, int H, int W) {
  int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (int64_t)N * C * H * W) return;
  int c = idx % C;
  int w = (idx / C) % W;
  int h = (idx / ((int64_t)C * W)) % H;
  int n = idx / ((int64_t)C * W * H);
  dst[idx] = src[(((int64_t)n * C + c) * H + h) * H + w];
}

void run_bad_strides(const float* src, float* dst, int N, int C, int H, int W) {
  bad_strides<<<(N * C * H * W + 255) / 256, 256>>>(src, dst, N, C, H, W);
}

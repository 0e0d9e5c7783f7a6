// bench/inputs/features300.cu — a 300-line CUDA file for timing the Feature
// Extractor: full CUDA runtime headers, a dozen kernels of the usual shapes,
// templates and host launch code.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdio.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e_)); } } while (0)

__global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

template <typename T>
__global__ void relu_gs(const T *x, T *y, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x)
    y[i] = x[i] > T(0) ? x[i] : T(0);
}

__global__ void shift(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) y[i] = x[i + 1];
}

__global__ void loopy(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int j = 0; j < 4; ++j) s = s * 0.5f + 1.0f;
  if (i < n) y[i] = x[i] * s;
}

__global__ void scatter(const float *x, const int *idx, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[idx[i]] = x[i];
}

__global__ void sgemm_naive(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

__global__ void sgemm_1d(const float *A, const float *B, float *C, int N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int row = idx / N, col = idx % N;
  if (row < N) {
    float acc = 0.f;
    for (int k = 0; k < N; k++) acc = acc + A[row * N + k] * B[k * N + col];
    C[idx] = acc;
  }
}

__global__ void matvec(const float *A, const float *x, float *y, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N) {
    float acc = 0.f;
    for (int k = 0; k < N; ++k) acc += A[row * N + k] * x[k];
    y[row] = acc;
  }
}

__global__ void blur1d(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
}

__global__ void conv3x3(const float *in, const float *w, float *out, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float acc = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int yy = min(max(y + dy, 0), H - 1), xx = min(max(x + dx, 0), W - 1);
      acc += w[(dy + 1) * 3 + dx + 1] * in[yy * W + xx];
    }
  out[y * W + x] = acc;
}

__global__ void axpy(const float *x, const float *y, float *z, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

__global__ void softmax_rows(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float m = -1e30f;
  for (int k = 0; k < cols; ++k) m = fmaxf(m, x[r * cols + k]);
  float s = 0.f;
  for (int k = 0; k < cols; ++k) s += expf(x[r * cols + k] - m);
  for (int k = 0; k < cols; ++k) y[r * cols + k] = expf(x[r * cols + k] - m) / s;
}

__global__ void rowsum_block(const float *x, float *y, int cols) {
  __shared__ float part[128];
  float s = 0.f;
  for (int k = threadIdx.x; k < cols; k += blockDim.x) s += x[blockIdx.x * cols + k];
  part[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int i = 0; i < 128; ++i) t += part[i];
    y[blockIdx.x] = t;
  }
}

__global__ void sum_atomic(const float *x, float *out, long n) {
  float s = 0.f;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x)
    s += x[i];
  atomicAdd(out, s);
}

__global__ void block_tree(const float *in, float *out, int n) {
  __shared__ float buf[256];
  int t = threadIdx.x;
  int i = blockIdx.x * 256 + t;
  buf[t] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

__global__ void fill_rows(float *y, int cols) {
  int r = blockIdx.x;
  for (int k = threadIdx.x; k < cols; k += blockDim.x) y[r * cols + k] = 1.0f;
}

__global__ void histo(const int *in, unsigned *bins, int *maxv, int n) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&local[in[i] & 255], 1u);
    atomicMax(maxv, in[i]);
  }
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__global__ void warp_sum(const float *x, float *out) {
  float v = x[blockIdx.x * 32 + threadIdx.x];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
  unsigned m = __ballot_sync(0xffffffff, v > 0.f);
  if (__any_sync(0xffffffff, v < 0.f) && threadIdx.x == 0) out[blockIdx.x] = v + (float)m;
}

__global__ void gelu(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}

__global__ void mixed(const float *x, float *y, int n, int w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r = i / w, c = i % w;
  float a = x[i] * 2.0;  // double multiply: a classic slip
  y[i] = a / x[r] + powf(a, 3.0f) + logf(a) + expf(a) + (float)c * 0.5f + 1.0f;
}

__global__ void divconst(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = (float)(i / 4) + (float)(i % 8) + y[i] / 3.0f;
}

__global__ void divergent(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if (threadIdx.x % 2 == 0) v = v * 2.f;
  else v = v + 1.f;
  y[i] = (i & 1) ? v : -v;
}

__global__ void uniform_branch(const float *x, float *y, int n, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mode == 1) y[i] = x[i];
  else y[i] = -x[i];
}

__global__ void two_d_bounds(float *y, int w, int h) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < w && r < h) y[r * w + c] = 0.f;
}
#define TILE 8

__global__ void loops(float *p, int n) {
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 16; ++i) s += p[i];
  for (int i = 0; i <= 10; i += 2) s += 1.f;
  for (int i = 31; i >= 0; --i) {
    #pragma unroll 4
    for (int j = 0; j < TILE; j++) s *= 0.5f;
  }
  for (int i = 0; i < n; ++i) s -= 1.f;
  int k = 0;
  while (k < n) k += 3;
  do { s += 2.f; } while (s < 0.f);
  p[threadIdx.x] = s;
}

__global__ void noloops(float *p) { p[threadIdx.x] = 0.f; }

__global__ void k_restrict(const float *__restrict__ a, float *__restrict__ b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}

__global__ void k_plain(float *a, float *b, const int *c, double s) {
  b[threadIdx.x] = a[threadIdx.x] * (float)s + c[0];
}

__global__ void k_atomic(const float *x, float *acc) { atomicAdd(acc, x[threadIdx.x]); }

__global__ void patterns(const float *a, const int *idx, float *out, int n, int stride) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y;
  float v = 0.f;
  v += a[tid];                    // contiguous
  v += a[n - 1 - tid];            // contiguous (reversed)
  v += a[tid * 2];                // strided, constant stride
  v += a[tid * stride];           // strided, run-time stride
  v += a[threadIdx.x * n + row];  // strided
  v += a[row];                    // uniform
  v += a[blockIdx.x * 7 + 3];     // uniform
  v += a[idx[tid]];               // indirect
  v += a[tid / 2];                // unknown
  v += a[(tid << 2) + 1];         // strided (shift by a constant)
  out[tid] = v;
}

__global__ void two_d(const float *a, const float *b, float *c, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  c[row * N + col] = a[row * K] + b[col];
}

__global__ void aliases(const float *x, float *y, int cols) {
  int r = blockIdx.x;
  const float *row = x + r * cols;
  float *out = y + r * cols;
  out[threadIdx.x] = row[threadIdx.x] + *(x + threadIdx.x);
}

extern "C" void run_all(float *a, float *b, float *c, int n) {
  vadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
  dim3 blk(16, 16), grd((n + 15) / 16, (n + 15) / 16);
  sgemm_naive<<<grd, blk>>>(a, b, c, n, n, n);
  blur1d<<<(n + 127) / 128, 128>>>(a, c, n);
  softmax_rows<<<(n + 255) / 256, 256>>>(a, c, n, n);
  CHECK(cudaGetLastError());
}

__global__ void k1(float *p) { p[threadIdx.x] = 1.f; }
__global__ void k2(float *p) { p[threadIdx.x] = 2.f; }

static const int kThreads = 512;

extern "C" void entry(float *p, int n, cudaStream_t s) {
  k1<<<(n + 255) / 256, 256>>>(p);
  dim3 block(16, 16);
  k2<<<dim3(n / 16, n / 16), dim3(16, 16), 1024, s>>>(p);
  k1<<<n, kThreads, 0, s>>>(p);
  k2<<<n, block>>>(p);
}

namespace ns {
struct Runner {
  void go(float *p) { k1<<<1, 32>>>(p); }
};
}


// Corpus (issue 14): more kernels in the style of research repositories:
// templates instantiated with __half, bf16 with f32 math, GEMM in every layout
// (NN/NT/TN/TT, alpha/beta, bias + activation epilogue, batched over
// blockIdx.z), gathers, 3-D and size_t grid-stride maps, and the unsafe cases
// a tool must refuse: a macro that expands to several accesses, an in-place
// shift (a race once reordered), a non-affine index, a kernel launched through
// cudaLaunchKernelEx and through a function pointer, launches inside a
// template. The extern "C" entries are the corpus tasks' entries. Written for
// this project.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

#define CUDA_1D_KERNEL_LOOP(i, n) for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)blockDim.x * gridDim.x)
#define AXPY_AT(y, a, x, i) ((y)[i] = (a) * (x)[i] + (y)[i])
#define IDX2C(i, j, ld) (((j) * (ld)) + (i))

template <typename T>
__device__ __forceinline__ T add_op(T a, T b) { return a + b; }

template <typename T>
__global__ void vec_add(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = add_op<T>(a[i], b[i]);
}

__device__ __forceinline__ float gelu_tanh(float x) {
  const float k0 = 0.7978845608f, k1 = 0.044715f;
  return 0.5f * x * (1.0f + tanhf(k0 * (x + k1 * x * x * x)));
}

__global__ void gelu_bf16_kernel(__nv_bfloat16* out, const __nv_bfloat16* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(gelu_tanh(__bfloat162float(in[i])));
}

// bias broadcast along the rows, f16 storage, f32 math
__global__ void bias_gelu_half(__half* y, const __half* x, const __half* bias, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) {
    float v = __half2float(x[i]) + __half2float(bias[i % cols]);
    y[i] = __float2half(gelu_tanh(v));
  }
}

// RMSNorm over f16 rows, f32 accumulation, a thread per row
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

// C = alpha * A * B^T + beta * C  (NT), row-major
__global__ void sgemm_nt(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[col * K + k];
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
  }
}

// C = A^T * B  (TN), column-major through IDX2C as in BLAS-style code
__global__ void sgemm_tn_colmajor(int M, int N, int K, const float* A, const float* B, float* C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += A[IDX2C(k, i, K)] * B[IDX2C(k, j, K)];
    C[IDX2C(i, j, M)] = s;
  }
}

// C = A^T * B^T  (TT), row-major
__global__ void sgemm_tt(int M, int N, int K, const float* A, const float* B, float* C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += A[k * M + row] * B[col * K + k];
  C[row * N + col] = s;
}

// y = relu(x W^T + b): a linear layer with bias and activation epilogue
__global__ void linear_bias_relu(float* y, const float* x, const float* W, const float* b, int batch, int in_f, int out_f) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y * blockDim.y + threadIdx.y;
  if (n < batch && o < out_f) {
    float acc = b[o];
    for (int k = 0; k < in_f; ++k) acc += x[n * in_f + k] * W[o * in_f + k];
    y[n * out_f + o] = acc > 0.f ? acc : 0.f;
  }
}

// a batch of independent GEMMs, the batch on blockIdx.z
__global__ void batched_gemm_nn(const float* A, const float* B, float* C, int M, int N, int K) {
  int bz = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  const float* Ab = A + (size_t)bz * M * K;
  const float* Bb = B + (size_t)bz * K * N;
  float* Cb = C + (size_t)bz * M * N;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += Ab[row * K + k] * Bb[k * N + col];
    Cb[row * N + col] = s;
  }
}

// token embedding lookup: a row of the table per token
__global__ void embedding_lookup(float* out, const int64_t* ids, const float* table, int ntok, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < ntok * dim) {
    int t = i / dim, c = i % dim;
    out[i] = table[ids[t] * dim + c];
  }
}

// index_select along dim 0, 2-D launch
__global__ void index_select_rows(float* out, const float* in, const int* index, int nidx, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (r < nidx && c < cols) out[r * cols + c] = in[index[r] * cols + c];
}

// nearest-neighbour 2x upsampling of an H x W image
__global__ void upsample_nearest2x(float* out, const float* in, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 2 * W && y < 2 * H) out[y * (2 * W) + x] = in[(y / 2) * W + (x / 2)];
}

// grid-stride with size_t indices through a framework-style loop macro
__global__ void scale_inplace_gridstride(float* x, float s, size_t n) {
  CUDA_1D_KERNEL_LOOP(i, n) { x[i] *= s; }
}

// 3-D launch over a D x H x W volume
__global__ void add3d(float* out, const float* a, const float* b, int D, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < W && y < H && z < D) {
    int p = (z * H + y) * W + x;
    out[p] = a[p] + b[p];
  }
}

// a macro that expands to three accesses of y and x: its use must be kept whole
__global__ void axpy_macro(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) AXPY_AT(y, a, x, i);
}

// in-place left shift: each thread reads the element the next thread writes
__global__ void shift_left_inplace(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) x[i] = x[i + 1];
}

// a non-affine (hashed) index
__global__ void hashed_read(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(unsigned)(i * i) % (unsigned)n];
}

// thread-per-row sums launched through cudaLaunchKernelEx: a rule that changes
// the launch contract cannot rewrite that use
__global__ void row_sum_ex(const float* x, float* s, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.f;
    for (int j = 0; j < cols; ++j) acc += x[(size_t)r * cols + j];
    s[r] = acc;
  }
}

// thread-per-row maximum launched through a function pointer
__global__ void row_max_fp(const float* x, float* m, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float v = -INFINITY;
    for (int j = 0; j < cols; ++j) v = fmaxf(v, x[r * cols + j]);
    m[r] = v;
  }
}

template <typename T>
__global__ void scale_t(T* y, const T* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (T)((float)x[i] * s);
}

// a launch inside a host template
template <typename T>
void launch_scale(T* y, const T* x, float s, int n, cudaStream_t st) {
  scale_t<T><<<(n + 255) / 256, 256, 0, st>>>(y, x, s, n);
}

void research_run(float* a, float* b, float* c, __half* h, __half* h2, __half* h3, __nv_bfloat16* bf, __nv_bfloat16* bf2,
                  int64_t* ids, int* idx, int n, int M, int N, int K) {
  vec_add<__half><<<(n + 255) / 256, 256>>>(h, h2, h3, n);
  gelu_bf16_kernel<<<(n + 255) / 256, 256>>>(bf2, bf, n);
  bias_gelu_half<<<(M * N + 255) / 256, 256>>>(h2, h, h, M, N);
  rmsnorm_half_rows<<<(M + 127) / 128, 128>>>(h2, h, h, M, N, 1e-6f);
  dim3 blk(16, 16), grd((N + 15) / 16, (M + 15) / 16);
  sgemm_nt<<<grd, blk>>>(M, N, K, 1.0f, a, b, 0.0f, c);
  sgemm_tn_colmajor<<<dim3((M + 15) / 16, (N + 15) / 16), blk>>>(M, N, K, a, b, c);
  sgemm_tt<<<grd, blk>>>(M, N, K, a, b, c);
  linear_bias_relu<<<grd, blk>>>(c, a, b, a, M, K, N);
  batched_gemm_nn<<<dim3((N + 15) / 16, (M + 15) / 16, 8), blk>>>(a, b, c, M, N, K);
  embedding_lookup<<<(n + 255) / 256, 256>>>(c, ids, a, n / 64, 64);
  index_select_rows<<<dim3((N + 255) / 256, M), 256>>>(c, a, idx, M, N);
  upsample_nearest2x<<<dim3((2 * N + 31) / 32, (2 * M + 7) / 8), dim3(32, 8)>>>(c, a, M, N);
  scale_inplace_gridstride<<<1024, 256>>>(a, 0.5f, (size_t)n);
  add3d<<<dim3((N + 7) / 8, (M + 7) / 8, (K + 3) / 4), dim3(8, 8, 4)>>>(c, a, b, K, M, N);
  axpy_macro<<<(n + 255) / 256, 256>>>(b, a, 2.0f, n);
  shift_left_inplace<<<(n + 255) / 256, 256>>>(a, n);
  hashed_read<<<(n + 255) / 256, 256>>>(b, a, n);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((M + 127) / 128);
  cfg.blockDim = dim3(128);
  cudaLaunchKernelEx(&cfg, row_sum_ex, (const float*)a, b, M, N);
  void (*kfn)(const float*, float*, int, int) = row_max_fp;
  kfn<<<(M + 127) / 128, 128>>>(a, b, M, N);
  launch_scale<float>(b, a, 3.0f, n, 0);
}

extern "C" void corpus_vec_add_half(const __half* a, const __half* b, __half* c, int n) {
  vec_add<__half><<<(n + 255) / 256, 256>>>(a, b, c, n);
}

extern "C" void corpus_gelu_bf16(__nv_bfloat16* out, const __nv_bfloat16* in, int n) {
  gelu_bf16_kernel<<<(n + 255) / 256, 256>>>(out, in, n);
}

extern "C" void corpus_bias_gelu_half(__half* y, const __half* x, const __half* bias, int rows, int cols) {
  bias_gelu_half<<<(rows * cols + 255) / 256, 256>>>(y, x, bias, rows, cols);
}

extern "C" void corpus_rmsnorm_half(__half* out, const __half* x, const __half* w, int rows, int d) {
  rmsnorm_half_rows<<<(rows + 127) / 128, 128>>>(out, x, w, rows, d, 1e-6f);
}

extern "C" void corpus_sgemm_nt(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 blk(16, 16), grd((N + 15) / 16, (M + 15) / 16);
  sgemm_nt<<<grd, blk>>>(M, N, K, 1.0f, A, B, 0.5f, C);
}

extern "C" void corpus_linear_bias_relu(float* y, const float* x, const float* W, const float* b, int batch, int in_f,
                                        int out_f) {
  dim3 blk(32, 8), grd((out_f + 31) / 32, (batch + 7) / 8);
  linear_bias_relu<<<grd, blk>>>(y, x, W, b, batch, in_f, out_f);
}

extern "C" void corpus_embedding(float* out, const int64_t* ids, const float* table, int ntok, int dim) {
  embedding_lookup<<<(ntok * dim + 255) / 256, 256>>>(out, ids, table, ntok, dim);
}

extern "C" void corpus_upsample(float* out, const float* in, int H, int W) {
  upsample_nearest2x<<<dim3((2 * W + 31) / 32, (2 * H + 7) / 8), dim3(32, 8)>>>(out, in, H, W);
}

extern "C" void corpus_scale_gridstride(float* x, int n) {
  scale_inplace_gridstride<<<1024, 256>>>(x, 0.5f, (size_t)n);
}

extern "C" void corpus_add3d(float* out, const float* a, const float* b, int D, int H, int W) {
  add3d<<<dim3((W + 7) / 8, (H + 7) / 8, (D + 3) / 4), dim3(8, 8, 4)>>>(out, a, b, D, H, W);
}

// framework_kernels.cu -- corpus (issue 14): more ops in the style of a deep-
// learning framework's hand-written CUDA: dropout with a u8 mask, where, a
// middle-dimension sum (column walk over (outer, inner)), log-softmax and
// argmax rows, bf16 layernorm rows, 2x2 max pooling, a depthwise 1-D
// convolution over a constant window, a 2-D bias + ReLU, an f32 -> bf16 cast, a
// column max, a global loss accumulated with one atomic per element.
// THREADS / CEIL_DIV macros, early returns, `int64_t` sizes. The extern "C"
// entries are the corpus tasks' entries. Written for this project.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <float.h>

#define THREADS 256
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define KSIZE 3

__global__ void dropout_forward_kernel(const float* x, const uint8_t* keep, float* y, float scale, int64_t n) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  y[idx] = keep[idx] ? x[idx] * scale : 0.0f;
}

__global__ void where_kernel(const uint8_t* cond, const float* a, const float* b, float* out, int n) {
  int idx = threadIdx.x + blockIdx.x * blockDim.x;
  if (idx < n) out[idx] = cond[idx] ? a[idx] : b[idx];
}

// out[o, i] = sum_r in[o, r, i]: a thread per (o, i), walking r
__global__ void sum_dim1_kernel(const float* in, float* out, int outer, int reduce, int inner) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int o = blockIdx.y;
  if (o >= outer || i >= inner) return;
  float s = 0.0f;
  for (int r = 0; r < reduce; ++r) s += in[((int64_t)o * reduce + r) * inner + i];
  out[(int64_t)o * inner + i] = s;
}

__global__ void log_softmax_rows_kernel(const float* in, float* out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* x = in + (int64_t)row * cols;
  float* y = out + (int64_t)row * cols;
  float mx = -FLT_MAX;
  for (int c = 0; c < cols; ++c) mx = fmaxf(mx, x[c]);
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) sum += __expf(x[c] - mx);
  float lse = mx + __logf(sum);
  for (int c = 0; c < cols; ++c) y[c] = x[c] - lse;
}

__global__ void argmax_rows_kernel(const float* in, int* out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    int best = 0;
    float bv = in[(int64_t)row * cols];
    for (int c = 1; c < cols; ++c) {
      float v = in[(int64_t)row * cols + c];
      if (v > bv) {
        bv = v;
        best = c;
      }
    }
    out[row] = best;
  }
}

// layernorm over bf16 rows (f32 statistics), gamma/beta in f32
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

// 2x2 max pooling, stride 2, NCHW planes flattened into rows
__global__ void maxpool2x2_kernel(const float* in, float* out, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int OW = W / 2, OH = H / 2;
  if (ox >= OW || oy >= OH) return;
  const float* p = in + (2 * oy) * W + 2 * ox;
  out[oy * OW + ox] = fmaxf(fmaxf(p[0], p[1]), fmaxf(p[W], p[W + 1]));
}

// depthwise 1-D convolution along the rows, constant window, zero padding
__global__ void conv1d_depthwise_kernel(const float* x, const float* w, float* y, int channels, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int ch = blockIdx.y;
  if (t >= len) return;
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < KSIZE; ++k) {
    int src = t + k - KSIZE / 2;
    if (src >= 0 && src < len) acc += w[ch * KSIZE + k] * x[ch * len + src];
  }
  y[ch * len + t] = acc;
}

__global__ void bias_relu_2d_kernel(float* out, const float* in, const float* bias, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    float v = in[row * cols + col] + bias[col];
    out[row * cols + col] = v > 0.0f ? v : 0.0f;
  }
}

__global__ void cast_f32_bf16_kernel(const float* in, __nv_bfloat16* out, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}

__global__ void col_max_kernel(const float* in, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float m = -FLT_MAX;
  for (int r = 0; r < rows; ++r) m = fmaxf(m, in[r * cols + col]);
  out[col] = m;
}

// every thread adds its squared error into one scalar
__global__ void mse_loss_atomic_kernel(const float* pred, const float* target, float* loss, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float d = pred[i] - target[i];
    atomicAdd(loss, d * d / n);
  }
}

void framework_kernels(float* a, float* b, float* c, uint8_t* m, int* idx, __nv_bfloat16* h, int n, int rows,
                       int cols) {
  dropout_forward_kernel<<<CEIL_DIV(n, THREADS), THREADS>>>(a, m, b, 2.0f, n);
  where_kernel<<<CEIL_DIV(n, THREADS), THREADS>>>(m, a, b, c, n);
  sum_dim1_kernel<<<dim3(CEIL_DIV(cols, THREADS), 16), THREADS>>>(a, b, 16, rows / 16, cols);
  log_softmax_rows_kernel<<<CEIL_DIV(rows, THREADS), THREADS>>>(a, b, rows, cols);
  argmax_rows_kernel<<<CEIL_DIV(rows, THREADS), THREADS>>>(a, idx, rows, cols);
  layernorm_bf16_kernel<<<CEIL_DIV(rows, THREADS), THREADS>>>(h, h, a, b, rows, cols, 1e-5f);
  maxpool2x2_kernel<<<dim3(CEIL_DIV(cols / 2, 32), CEIL_DIV(rows / 2, 8)), dim3(32, 8)>>>(a, b, rows, cols);
  conv1d_depthwise_kernel<<<dim3(CEIL_DIV(cols, THREADS), rows), THREADS>>>(a, b, c, rows, cols);
  bias_relu_2d_kernel<<<dim3(CEIL_DIV(cols, 32), CEIL_DIV(rows, 8)), dim3(32, 8)>>>(b, a, c, rows, cols);
  cast_f32_bf16_kernel<<<CEIL_DIV(n, THREADS), THREADS>>>(a, h, n);
  col_max_kernel<<<CEIL_DIV(cols, THREADS), THREADS>>>(a, b, rows, cols);
  mse_loss_atomic_kernel<<<CEIL_DIV(n, THREADS), THREADS>>>(a, b, c, n);
}

extern "C" void corpus_dropout(const float* x, const uint8_t* keep, float* y, int64_t n) {
  dropout_forward_kernel<<<CEIL_DIV(n, THREADS), THREADS>>>(x, keep, y, 2.0f, n);
}

extern "C" void corpus_sum_dim1(const float* in, float* out, int outer, int reduce, int inner) {
  sum_dim1_kernel<<<dim3(CEIL_DIV(inner, THREADS), outer), THREADS>>>(in, out, outer, reduce, inner);
}

extern "C" void corpus_log_softmax(const float* in, float* out, int rows, int cols) {
  log_softmax_rows_kernel<<<CEIL_DIV(rows, THREADS), THREADS>>>(in, out, rows, cols);
}

extern "C" void corpus_layernorm_bf16(__nv_bfloat16* y, const __nv_bfloat16* x, const float* gamma, const float* beta,
                                      int rows, int cols) {
  layernorm_bf16_kernel<<<CEIL_DIV(rows, 128), 128>>>(y, x, gamma, beta, rows, cols, 1e-5f);
}

extern "C" void corpus_maxpool(const float* in, float* out, int H, int W) {
  maxpool2x2_kernel<<<dim3(CEIL_DIV(W / 2, 32), CEIL_DIV(H / 2, 8)), dim3(32, 8)>>>(in, out, H, W);
}

extern "C" void corpus_bias_relu_2d(float* out, const float* in, const float* bias, int rows, int cols) {
  bias_relu_2d_kernel<<<dim3(CEIL_DIV(cols, 32), CEIL_DIV(rows, 8)), dim3(32, 8)>>>(out, in, bias, rows, cols);
}

extern "C" void corpus_cast_bf16(const float* in, __nv_bfloat16* out, int64_t n) {
  cast_f32_bf16_kernel<<<CEIL_DIV(n, THREADS), THREADS>>>(in, out, n);
}

extern "C" void corpus_col_max(const float* in, float* out, int rows, int cols) {
  col_max_kernel<<<CEIL_DIV(cols, THREADS), THREADS>>>(in, out, rows, cols);
}

// Kernels for the row-reduce rule's 16-bit float tests (issue 14): rows of
// __half / __nv_bfloat16 read through the conversion intrinsics
// (__half2float, __bfloat162float) and stored through __float2half /
// __float2bfloat16_rn, the statistics in f32. bad_* must be refused.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstddef>

// RMSNorm of f16 rows: a sum of squares, then a store pass.
__global__ void rms_half_rows(const __half *x, __half *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float ss = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float v = __half2float(x[(size_t)row * cols + c]);
    ss += v * v;
  }
  float inv = rsqrtf(ss / cols + 1e-6f);
  for (int c = 0; c < cols; ++c) y[(size_t)row * cols + c] = __float2half(__half2float(x[(size_t)row * cols + c]) * inv);
}

// Mean-centred bf16 rows: mean, variance, then the normalised store.
__global__ void center_bf16_rows(const __nv_bfloat16 *x, __nv_bfloat16 *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    const __nv_bfloat16 *xr = x + (size_t)row * cols;
    __nv_bfloat16 *yr = y + (size_t)row * cols;
    float mean = 0.0f;
    for (int c = 0; c < cols; ++c) mean += __bfloat162float(xr[c]);
    mean /= cols;
    float var = 0.0f;
    for (int c = 0; c < cols; ++c) {
      float d = __bfloat162float(xr[c]) - mean;
      var += d * d;
    }
    float rstd = rsqrtf(var / cols + 1e-5f);
    for (int c = 0; c < cols; ++c) yr[c] = __float2bfloat16_rn((__bfloat162float(xr[c]) - mean) * rstd);
  }
}

// A helper with a side effect (a counter) looks like a conversion but is not one.
__device__ int g_calls;
__device__ float __half2float_counted(__half h) {
  atomicAdd(&g_calls, 1);
  return __half2float(h);
}
__global__ void bad_counted_rows(const __half *x, float *out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += __half2float_counted(x[(size_t)row * cols + c]);
  out[row] = s;
}

// A 16-bit element written other than by assignment (a compound update through
// operator+=): not a store this rule understands.
__global__ void bad_half_update_rows(__half *y, const __half *x, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int c = 0; c < cols; ++c) y[(size_t)row * cols + c] += x[(size_t)row * cols + c];
}

// Softmax of f16 rows in three passes: a max from element 1 on (a loop start
// that is not a pack boundary of an aligned row), the exponentials stored in y
// and summed as stored (read back in the same loop), then y scaled in place.
__global__ void softmax_half_rows(const __half *x, __half *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const __half *xr = x + (size_t)row * cols;
  __half *yr = y + (size_t)row * cols;
  float m = __half2float(xr[0]);
  for (int c = 1; c < cols; ++c) m = fmaxf(m, __half2float(xr[c]));
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) {
    yr[c] = __float2half(expf(__half2float(xr[c]) - m));
    s += __half2float(yr[c]);
  }
  for (int c = 0; c < cols; ++c) yr[c] = __float2half(__half2float(yr[c]) / s);
}

// RMSNorm of f16 rows into f32 rows: the packs of the f32 store are 32 bytes.
__global__ void rms_half_to_float_rows(const __half *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float ss = 0.0f;
  for (int c = 0; c < cols; ++c) ss += __half2float(x[(size_t)row * cols + c]) * __half2float(x[(size_t)row * cols + c]);
  float inv = rsqrtf(ss / cols + 1e-6f);
  for (int c = 0; c < cols; ++c) y[(size_t)row * cols + c] = __half2float(x[(size_t)row * cols + c]) * inv;
}

void run(const __half *hx, __half *hy, const __nv_bfloat16 *bx, __nv_bfloat16 *by, float *out, int rows, int cols) {
  rms_half_rows<<<(rows + 255) / 256, 256>>>(hx, hy, rows, cols);
  center_bf16_rows<<<(rows + 255) / 256, 256>>>(bx, by, rows, cols);
  bad_counted_rows<<<(rows + 255) / 256, 256>>>(hx, out, rows, cols);
  bad_half_update_rows<<<(rows + 255) / 256, 256>>>(hy, hx, rows, cols);
  softmax_half_rows<<<(rows + 255) / 256, 256>>>(hx, hy, rows, cols);
  rms_half_to_float_rows<<<(rows + 255) / 256, 256>>>(hx, out, rows, cols);
}

// column-walk.cu — input of test/rewrite/column-walk.test: thread-per-column walks
// the rule must rewrite (cw_*) and kernels it must leave alone (no_*). Every
// kernel has the signature (m, x, out, rows, cols) so that one CPU emulation
// (Inputs/column-walk-emu.py) can run each before and after.
#include <cuda_runtime.h>

// column sums, the guard wrapping the rest
__global__ void cw_sum(const float* m, const float* x, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float acc = 0.f;
    for (int r = 0; r < rows; ++r) acc += m[r * cols + c];
    out[c] = acc;
  }
}

// column max, early return, a first value that is not an identity
__global__ void cw_max(const float* m, const float* x, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float best = -1e30f;
  for (int r = 0; r < rows; r++) best = fmaxf(best, m[r * cols + col]);
  out[col] = best;
}

// column min, the accumulator first
__global__ void cw_min(const float* m, const float* x, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float lo = 1e30f;
  for (int r = 0; r < rows; r++) lo = fminf(m[r * cols + col], lo);
  out[col] = lo;
}

// mean over dim 0 through const int temporaries, s / rows epilogue
__global__ void cw_mean(const float* m, const float* x, float* out, int rows, int cols) {
  const int tid = threadIdx.x;
  const int col = blockIdx.x * blockDim.x + tid;
  const int R = rows;
  if (col >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < R; ++r) {
    const float v = m[r * cols + col];
    s = s + v;
  }
  out[col] = s / R;
}

// A^T x accumulated in memory (polybench style), loop variable declared before
__global__ void cw_atx(const float* m, const float* x, float* out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < cols) {
    out[j] = 0;
    int i;
    for (i = 0; i < rows; i++) {
      out[j] += m[i * cols + j] * x[i];
    }
    out[j] *= 2.0f;
  }
}

// a 64-bit index, a sum that starts at a nonzero value, sum of squares and sum together
__global__ void cw_wide(const float* m, const float* x, float* out, int rows, int cols) {
  long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 1.0f, q = 0.0f;
  for (long long r = 0; r < rows; ++r) {
    float v = m[r * cols + c];
    s += v;
    q += v * v;
  }
  out[c] = q - s;
}

// nested row loops (batch x time, as a bias gradient), a double accumulator
__global__ void cw_nested(const float* m, const float* x, float* out, int rows, int cols) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o < cols) {
    double sum = 0.0;
    for (int b = 0; b < rows; b += 1) {
      for (int t = b; t < b + 1; t++) {
        sum += m[t * cols + o];
      }
    }
    out[o] += (float)sum;
  }
}

// ---- must not change ----

// row-major walk: each thread owns a row (row-reduce's shape)
__global__ void no_rowwalk(const float* m, const float* x, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += m[r * cols + c];
  out[r] = s;
}

// a store inside the loop (a running column sum)
__global__ void no_store_in_loop(const float* m, const float* x, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) {
    s += m[r * cols + c];
    out[r * cols + c] = s;
  }
}

// a data-dependent bound
__global__ void no_data_bound(const float* m, const float* x, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < (int)x[c]; ++r) s += m[r * cols + c];
  out[c] = s;
}

// an aliasing output: the loop reads the buffer it accumulates into
__global__ void no_alias(float* m, const float* x, float* out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < cols) {
    for (int j = 0; j < rows; j++) {
      out[i] += m[j * cols + i] * out[j];
    }
  }
}

// the epilogue stores into the buffer the loop reads
__global__ void no_store_read(float* m, const float* x, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) s += m[r * cols + c];
  m[c] = s;
}

// launched through cudaLaunchKernel too
__global__ void no_api_launch(const float* m, const float* x, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) s += m[r * cols + c];
  out[c] = s;
}

// a __device__ helper that only computes a value from its arguments (pure.h)
__device__ __forceinline__ float cw_signed_half(float v, int r) {
  float s = v;
  if (r % 2 != 0) s = -s;
  return s * 0.5f;
}
__global__ void cw_helper(const float* m, const float* x, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float acc = 0.f;
    for (int r = 0; r < rows; ++r) acc += cw_signed_half(m[r * cols + c], r) + x[r];
    out[c] = acc;
  }
}

// a helper with an effect: it counts its calls in a global
__device__ int cw_calls;
__device__ float cw_counted(float v) {
  cw_calls += 1;
  return v;
}
__global__ void no_effect_helper(const float* m, const float* x, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) s += cw_counted(m[r * cols + c]);
  out[c] = s;
}

void run(const float* m, const float* x, float* out, int rows, int cols) {
  cw_sum<<<(cols + 255) / 256, 256>>>(m, x, out, rows, cols);
  cw_max<<<(cols + 255) / 256, 256>>>(m, x, out, rows, cols);
  cw_min<<<(cols + 255) / 256, 256>>>(m, x, out, rows, cols);
  cw_mean<<<(cols + 255) / 256, 256>>>(m, x, out, rows, cols);
  dim3 block1(256, 1);
  dim3 grid1((cols + 255) / 256, 1);
  cw_atx<<<grid1, block1>>>(m, x, out, rows, cols);
  cw_wide<<<dim3((cols + 255) / 256), dim3(256)>>>(m, x, out, rows, cols);
  cw_nested<<<(cols + 255) / 256, 256>>>(m, x, out, rows, cols);
  no_rowwalk<<<(rows + 255) / 256, 256>>>(m, x, out, rows, cols);
  no_store_in_loop<<<(cols + 255) / 256, 256>>>(m, x, out, rows, cols);
  no_data_bound<<<(cols + 255) / 256, 256>>>(m, x, out, rows, cols);
  no_alias<<<(cols + 255) / 256, 256>>>((float*)m, x, out, rows, cols);
  no_store_read<<<(cols + 255) / 256, 256>>>((float*)m, x, out, rows, cols);
  no_api_launch<<<(cols + 255) / 256, 256>>>(m, x, out, rows, cols);
  cw_helper<<<(cols + 255) / 256, 256>>>(m, x, out, rows, cols);
  no_effect_helper<<<(cols + 255) / 256, 256>>>(m, x, out, rows, cols);
  void* args[] = {&m, &x, &out, &rows, &cols};
  cudaLaunchKernel((const void*)no_api_launch, dim3((cols + 255) / 256), dim3(256), args, 0, 0);
}

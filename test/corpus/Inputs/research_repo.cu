// Corpus (issue 14): kernels in the style of research repositories: scalar_t
// templates, __half / __nv_bfloat16 elements, 64-bit index temporaries, 3-D
// launches, device helpers, several kernels per file. Written for this project.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

__device__ __forceinline__ float silu(float x) { return x / (1.0f + __expf(-x)); }

template <typename scalar_t>
__global__ void silu_kernel(const scalar_t* __restrict__ input, scalar_t* __restrict__ output, int64_t numel) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= numel) return;
  output[idx] = (scalar_t)silu((float)input[idx]);
}

__global__ void add_half(const __half* a, const __half* b, __half* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __float2half(__half2float(a[i]) + __half2float(b[i]));
}

__global__ void scale_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16(__bfloat162float(x[i]) * s);
}

// 3-D 7-point stencil, one thread per interior point
__global__ void heat3d(const float* u, float* un, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t p = ((size_t)z * ny + y) * nx + x;
  un[p] = u[p] + 0.1f * (u[p - 1] + u[p + 1] + u[p - nx] + u[p + nx] + u[p - (size_t)nx * ny] +
                         u[p + (size_t)nx * ny] - 6.0f * u[p]);
}

// rms norm: one thread per row, statements between the index and the guard
__global__ void rmsnorm_rows(float* out, const float* x, const float* w, int rows, int d) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const float eps = 1e-6f;
  if (row >= rows) return;
  float ss = 0.0f;
  for (int j = 0; j < d; ++j) ss += x[(size_t)row * d + j] * x[(size_t)row * d + j];
  const float inv = rsqrtf(ss / d + eps);
  for (int j = 0; j < d; ++j) out[(size_t)row * d + j] = x[(size_t)row * d + j] * inv * w[j];
}

// column sums: thread per column, walk down the rows
__global__ void col_sum(const float* m, float* s, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float acc = 0.f;
    for (int r = 0; r < rows; ++r) acc += m[r * cols + c];
    s[c] = acc;
  }
}

__global__ void scatter_add(const float* src, const int* index, float* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&dst[index[i]], src[i]);
}

void run(const float* a, float* b, const __half* h, __half* h2, const __nv_bfloat16* bf, __nv_bfloat16* bf2,
         const int* idx, int n, int nx, int ny, int nz) {
  silu_kernel<float><<<(n + 255) / 256, 256>>>(a, b, n);
  add_half<<<(n + 255) / 256, 256>>>(h, h, h2, n);
  scale_bf16<<<(n + 255) / 256, 256>>>(bf, bf2, 0.5f, n);
  dim3 blk(8, 8, 4), grd((nx + 7) / 8, (ny + 7) / 8, (nz + 3) / 4);
  heat3d<<<grd, blk>>>(a, b, nx, ny, nz);
  rmsnorm_rows<<<(n + 127) / 128, 128>>>(b, a, a, n, nx);
  col_sum<<<(nx + 255) / 256, 256>>>(a, b, n, nx);
  scatter_add<<<(n + 255) / 256, 256>>>(a, idx, b, n);
}

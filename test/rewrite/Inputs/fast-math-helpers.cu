// Input of fast-math-helpers.test: kernels that reach their math through
// __device__ helpers of the file, in the forms other people's code has.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <math.h>

__device__ __forceinline__ float gelu(float x) {
  const float k0 = 0.7978845608f, k1 = 0.044715f;
  return 0.5f * x * (1.0f + tanhf(k0 * (x + k1 * x * x * x)));
}

__device__ float scale2(float x) { return 2.0f * x; }

template <typename T>
__device__ T sig_t(T x) { return T(1) / (T(1) + expf(-x)); }

__device__ float late(float x);

#define APPLY_GELU(x) gelu(x)

__global__ void k_half(__half* y, const __half* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = __half2float(x[i]);
    float a = gelu(v) + scale2(v) + late(v) + sig_t<float>(v);
    y[i] = __float2half(a + APPLY_GELU(v));
  }
}

__global__ void k_other(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = gelu(x[i]);
}

__global__ void k_direct(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tanhf(x[i]);
}

__global__ void k_plain(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale2(x[i]);
}

// __host__ __device__ helpers (host code calls them too): the copy is
// device-only; one whose __host__ comes from a macro is not copied.
#define HOSTDEV __host__ __device__
__host__ __device__ inline float sig_hd(float x) { return 1.0f / (1.0f + expf(-x)); }
HOSTDEV inline float sig_m(float x) { return 1.0f / (1.0f + expf(-x)); }

__global__ void k_hd(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sig_hd(x[i]) + sig_m(x[i]);
}

float host_sig(float v) { return sig_hd(v) + sig_m(v); }

__device__ float late(float x) { return expf(x); }

extern "C" void run(__half* hy, const __half* hx, float* y, const float* x, int n) {
  k_half<<<(n + 255) / 256, 256>>>(hy, hx, n);
  k_other<<<(n + 255) / 256, 256>>>(y, x, n);
  k_direct<<<(n + 255) / 256, 256>>>(y, x, n);
  k_plain<<<(n + 255) / 256, 256>>>(y, x, n);
  k_hd<<<(n + 255) / 256, 256>>>(y, x, n);
}

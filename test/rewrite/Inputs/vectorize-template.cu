// Rule vectorize on template kernels (issue 14): kernels whose element type is
// a template parameter T, launched with T explicit, deduced, and as a host
// template's own parameter; and the ones the rule must refuse. Input of
// test/rewrite/vectorize-template.test (its emulation runs the run_* entries).
#include <cuda_runtime.h>
#include <cuda_fp16.h>

template <typename T>
__device__ __forceinline__ T add_op(T a, T b) { return a + b; }

// two instantiations of two sizes: __half (8 lanes) and float (4, deduced)
template <typename T>
__global__ void vec_add(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = add_op<T>(a[i], b[i]);
}

// launched inside a host template with its parameter (__half, float, double);
// early return, 64-bit index, the index read in the body
template <typename T>
__global__ void scale_t(T* y, const T* x, float s, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = (T)((float)x[i] * s + (float)(i % 3));
}

template <typename T>
void launch_scale(T* y, const T* x, float s, long long n, cudaStream_t st) {
  scale_t<T><<<(n + 127) / 128, 128, 0, st>>>(y, x, s, n);
}

// a grid-stride loop: the launches stay (any grid covers the range)
template <typename T>
__global__ void axpy_gs(T* y, const T* x, T a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

// a template on something else than the element type: float4 as before
template <int K>
__global__ void scale_k(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * K;
}

// refused: buffers of T and of float
template <typename T>
__global__ void mixed_t(const T* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (float)x[i];
}

// refused: two template element types
template <typename T, typename U>
__global__ void cast_tu(const T* x, U* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (U)x[i];
}

// refused: T deduced inside a host template
template <typename T>
__global__ void copy_d(T* y, const T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

template <typename T>
void launch_copy_d(T* y, const T* x, int n) {
  copy_d<<<(n + 255) / 256, 256>>>(y, x, n);
}

// refused: an instantiation of 3 bytes (16 is not a multiple)
struct rgb {
  unsigned char r, g, b;
};

template <typename T>
__global__ void copy3(T* y, const T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

// refused: the same through a host template's instantiation
template <typename T>
__global__ void copy3h(T* y, const T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

template <typename T>
void launch_copy3h(T* y, const T* x, int n) {
  copy3h<T><<<(n + 255) / 256, 256>>>(y, x, n);
}

void run_vec_add(const __half* ha, const __half* hb, __half* hc, const float* fa, const float* fb, float* fc, int n) {
  vec_add<__half><<<(n + 255) / 256, 256>>>(ha, hb, hc, n);
  vec_add<<<(n + 255) / 256, 256>>>(fa, fb, fc, n);
}

void run_scale(__half* hy, const __half* hx, float* fy, const float* fx, double* dy, const double* dx, int n) {
  launch_scale<__half>(hy, hx, 0.5f, n, 0);
  launch_scale<float>(fy, fx, 1.5f, n, 0);
  launch_scale(dy, dx, -2.0f, n, 0);
}

void run_axpy_gs(__half* hy, const __half* hx, double* dy, const double* dx, int n) {
  axpy_gs<__half><<<3, 128>>>(hy, hx, __float2half(0.5f), n);
  axpy_gs<<<2, 256>>>(dy, dx, 1.5, n);
}

void run_scale_k(float* y, const float* x, int n) {
  scale_k<3><<<(n + 255) / 256, 256>>>(y, x, n);
}

void run_refused(float* f, double* d, rgb* c, int n) {
  mixed_t<double><<<(n + 255) / 256, 256>>>(d, f, n);
  cast_tu<double, float><<<(n + 255) / 256, 256>>>(d, f, n);
  launch_copy_d(f, f, n);
  copy3<rgb><<<(n + 255) / 256, 256>>>(c, c, n);
  launch_copy3h<rgb>(c, c, n);
}

// operators on T with no overload in scope (no cuda_fp16 operator for T):
// the template's pattern has the element as a plain operand of `>` and `?:`
template <typename T>
__global__ void relu_t(const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > T(0) ? x[i] : T(0);
}

// the element copied into a local of type T, then compared and assigned
template <typename T>
__global__ void clip_t(const T* x, T* y, T lo, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T v = x[i];
  y[i] = v < lo ? lo : v;
}

// refused: the element bound to a reference of T and written through it
template <typename T>
__global__ void ref_t(const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    T& r = y[i];
    r = x[i] * T(2);
  }
}

void run_relu(const float* fx, float* fy, const double* dx, double* dy, int n) {
  relu_t<float><<<(n + 255) / 256, 256>>>(fx, fy, n);
  relu_t<<<(n + 127) / 128, 128>>>(dx, dy, n);
}

void run_clip(const float* fx, float* fy, const double* dx, double* dy, int n) {
  clip_t<float><<<(n + 255) / 256, 256>>>(fx, fy, -0.5f, n);
  clip_t<double><<<(n + 255) / 256, 256>>>(dx, dy, 0.25, n);
  ref_t<float><<<(n + 255) / 256, 256>>>(fx, fy, n);
}

void run_mixed(const double* dx, float* fy, int n) {
  mixed_t<double><<<(n + 255) / 256, 256>>>(dx, fy, n);
  cast_tu<double, float><<<(n - 1 + 127) / 128, 128>>>(dx, fy + 1, n - 1);
}

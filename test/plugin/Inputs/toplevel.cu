// toplevel.cu — top-level declarations of every kind the plugin passes to the
// library by offset (test/plugin/toplevel.test): a template kernel with
// implicit and explicit instantiations, kernels in a namespace and in
// extern "C", a kernel whose __global__ comes from a macro, typedef'd structs, a class
// template, a variable list, and launches from host functions and a method.
#include <cuda_runtime.h>
#define N 256

typedef struct { float x, y; } pair_t;
template <int W> struct tile { float v[W]; };
int g_a = 1, g_b = 2;

template <typename T, int B>
__global__ void scale(T *p, T s, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) p[i] *= s;
}
template __global__ void scale<double, 128>(double *, double, int);

__global__ void tiled(float *p) {
  __shared__ tile<32> t;
  t.v[threadIdx.x % 32] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = t.v[31 - threadIdx.x % 32];
}

namespace ops {
__device__ float sq(float v) { return v * v; }
__global__ void norm(const pair_t *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(sq(in[i].x) + sq(in[i].y));
}
} // namespace ops

extern "C" {
__global__ void gather(const float *in, const int *idx, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
}
}

#define GLOBAL __global__
GLOBAL void by_macro(float *p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) p[i] = expf(p[i]);
}

struct Runner {
  void run(float *p, int n) { scale<float, N><<<(n + N - 1) / N, N>>>(p, 2.0f, n); }
};

void host(pair_t *pr, float *f, int *ix, int n) {
  ops::norm<<<n / 128, 128>>>(pr, f, n);
  gather<<<n / 128, 128>>>(f, ix, f, n);
  by_macro<<<64, 256>>>(f, n);
  tiled<<<1, 32>>>(f);
  Runner r;
  r.run(f, n);
}

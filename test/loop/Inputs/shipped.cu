// Lit input: a file that an accepted rewrite gave one of KernelSkill's shipped
// templates (its kernels in a namespace ks_*), the user's kernel kept as the
// fallback. The loop plans the user's kernel, never the template's.
#include <cuda_runtime.h>

namespace ks_shipped_demo {
__global__ void tuned_scale(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
static cudaError_t scale(const float *x, float *y, float a, int n) {
  tuned_scale<<<(n + 255) / 256, 256>>>(x, y, a, n);
  return cudaGetLastError();
}
} // namespace ks_shipped_demo

__global__ void user_scale(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

extern "C" void scale_forward(const float *x, float *y, float a, int n) {
  if (ks_shipped_demo::scale(x, y, a, n) != cudaSuccess) user_scale<<<(n + 255) / 256, 256>>>(x, y, a, n);
}

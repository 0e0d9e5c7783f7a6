// bad_trap.cu — deliberately bad candidate: a device-side trap, which leaves
// the context with a sticky error (every later CUDA call fails).
#include <cuda_runtime.h>
__global__ void vadd_kernel(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  if (i == n / 3) __trap();
}
extern "C" void vadd(const float *a, const float *b, float *c, int n) { vadd_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n); }

// bad_hang.cu — deliberately bad candidate: its kernel never returns.
#include <cuda_runtime.h>
__device__ volatile int g_never = 0;
__global__ void vadd_kernel(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (g_never == 0) {
  }
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" void vadd(const float *a, const float *b, float *c, int n) { vadd_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n); }

#include <cuda_runtime.h>
__global__ void k(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
extern "C" void entry(const float *x, float *y, float a, int n) {
  k<<<(n + 255) / 256, 256>>>(x, y, n);
}

// slow10.cu — a correct vadd about 10% slower than the seed: a fifth of the
// threads also read a far element of a (adding 0 * it), ~7% more DRAM traffic, ~10% slower on the H200.
#include <cuda_runtime.h>
__global__ void vadd_kernel(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = a[i] + b[i];
    if (i < n / 5) x += 0.0f * a[(i + n / 2) % n];
    c[i] = x;
  }
}
extern "C" void vadd(const float *a, const float *b, float *c, int n) { vadd_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n); }

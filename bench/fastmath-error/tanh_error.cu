// tanh_error.cu — measures the error of rule fast-math's tanh (ks_fast::tanh_approx,
// lib/rewrite/templates/ks_fastmath.cuh) and of the accurate tanhf against tanh
// in double precision, over every float x with 2^-24 <= |x| <= 16 (both signs).
// Prints the largest absolute error and the largest relative error of each.
//   nvcc -O3 -arch=native -I lib/rewrite/templates bench/fastmath-error/tanh_error.cu -o tanh_error && ./tanh_error
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "ks_fastmath.cuh"

// Non-negative floats order as their bit patterns: atomicMax on the bits.
__device__ void max_into(unsigned *p, float v) { atomicMax(p, __float_as_uint(v)); }

__global__ void sweep(unsigned lo, unsigned n, unsigned *out) {
  for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    for (int s = 0; s < 2; s++) {
      float x = __uint_as_float((lo + k) | (s ? 0x80000000u : 0u));
      double ref = tanh((double)x);
      float a = ks_fast::tanh_approx(x), b = tanhf(x);
      double ea = fabs((double)a - ref), eb = fabs((double)b - ref);
      max_into(&out[0], (float)ea);
      max_into(&out[1], (float)(ea / fabs(ref)));
      max_into(&out[2], (float)eb);
      max_into(&out[3], (float)(eb / fabs(ref)));
    }
  }
}

int main() {
  float flo = 0x1p-24f, fhi = 16.0f;
  unsigned lo, hi;
  memcpy(&lo, &flo, 4);
  memcpy(&hi, &fhi, 4);
  unsigned *d, h[4] = {0, 0, 0, 0};
  if (cudaMalloc(&d, sizeof h) != cudaSuccess) { fprintf(stderr, "tanh_error: no GPU\n"); return 2; }
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  sweep<<<1024, 256>>>(lo, hi - lo + 1, d);
  if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) { fprintf(stderr, "tanh_error: kernel failed\n"); return 1; }
  float r[4];
  memcpy(r, h, sizeof r);
  printf("floats swept: %u x 2 signs, 2^-24 <= |x| <= 16, against tanh in double\n", hi - lo + 1);
  printf("ks_fast::tanh_approx: max abs error %.3g, max rel error %.3g (2^%.2f)\n", r[0], r[1], log2((double)r[1]));
  printf("tanhf:                max abs error %.3g, max rel error %.3g (2^%.2f)\n", r[2], r[3], log2((double)r[3]));
  return 0;
}

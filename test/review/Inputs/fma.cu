// fma.cu — the compute-bound fixture: 1024 dependent FMAs per element, little
// memory traffic (8 bytes per element).
#include <cuda_runtime.h>

__global__ void fma_kernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i], w = v * 0.5f;
#pragma unroll 16
    for (int k = 0; k < 512; k++) {
      v = fmaf(v, 0.9999f, 0.0001f);
      w = fmaf(w, 0.9998f, 0.0002f);
    }
    y[i] = v + w;
  }
}

extern "C" void fma_chain(const float *x, float *y, int n) { fma_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }

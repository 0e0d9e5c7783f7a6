// Kernels for test/features/pch.test: a header past the CUDA prefix
// (cuda_fp16.h), a macro from a system header (NULL) and one from the
// command line (-DTILE), a header from an -I folder.
#include <cuda_fp16.h>
#include "pch_local.h"

__global__ void scale_half(__half *y, const __half *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x != NULL) y[i] = __float2half(a * __half2float(x[i]));
}

__global__ void tile_sum(float *out, const float *in, int n) {
  int i = blockIdx.x * TILE + threadIdx.x;
  if (i < n) out[i] = in[i] + LOCAL_BIAS;
}

void launch(__half *y, const __half *x, float *o, const float *p, int n) {
  scale_half<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  tile_sum<<<(n + TILE - 1) / TILE, TILE>>>(o, p, n);
}

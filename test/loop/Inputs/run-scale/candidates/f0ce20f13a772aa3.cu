// Lit and unit test input for `kernelskill optimize`: a naive pointwise
// kernel (y = a * x + b) that the vectorize, coarsen, restrict-const and
// launch-bounds rules all accept.
#include <cuda_runtime.h>

// kernelskill: mem.restrict-const (rule restrict-const, round 2) __restrict__ x, __restrict__ y
__global__ void scale_kernel(const float *__restrict__ x, float *__restrict__ y, float a, float b, int n) {
  // kernelskill: mem.vectorize-128 (rule vectorize, round 1) float4 loads/stores (4 x float per thread), alignment guard, scalar tail
  const long long ks_base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4;
  const long long ks_n = (long long)(n);
  if (ks_base + 4 <= ks_n && (((unsigned long long)(const void *)x | (unsigned long long)(const void *)y) % 16) == 0) {
    const float4 ks_v_x = *reinterpret_cast<const float4 *>(x + ks_base);
    float4 ks_v_y;
    {
      ks_v_y.x = a * ks_v_x.x + b;
    }
    {
      ks_v_y.y = a * ks_v_x.y + b;
    }
    {
      ks_v_y.z = a * ks_v_x.z + b;
    }
    {
      ks_v_y.w = a * ks_v_x.w + b;
    }
    *reinterpret_cast<float4 *>(y + ks_base) = ks_v_y;
  } else {
    for (long long ks_i = ks_base; ks_i < ks_base + 4 && ks_i < ks_n; ++ks_i) {
      int i = (int)ks_i;
      y[i] = a * x[i] + b;
    }
  }
}

extern "C" void scale_forward(const float *x, float *y, float a, float b, int n) {
  // kernelskill: mem.vectorize-128 (rule vectorize, round 1) grid for 4 elements per thread (float4)
  scale_kernel<<<(n + 256 * 4 - 1) / (256 * 4), 256>>>(x, y, a, b, n);
}

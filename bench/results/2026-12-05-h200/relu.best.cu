// Seed for the relu task: y = max(x, 0), one thread per element.
#include <cuda_runtime.h>

__global__ void relu_kernel(const float *x, float *y, long long n)
{
    // kernelskill: mem.vectorize-128 (rule vectorize, round 1) dram 57%->88%, inst_executed 4.82e+07->1.78e+07, 1.56x — float4 loads/stores (4 x float per thread), alignment guard, scalar tail
    const long long ks_base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const long long ks_n = (long long)(n);
    if (ks_base + 4 <= ks_n && (((unsigned long long)(const void *)x | (unsigned long long)(const void *)y) % 16) == 0) {
      const float4 ks_v_x = *reinterpret_cast<const float4 *>(x + ks_base);
      float4 ks_v_y;
      {
        ks_v_y.x = ks_v_x.x > 0.0f ? ks_v_x.x : 0.0f;
      }
      {
        ks_v_y.y = ks_v_x.y > 0.0f ? ks_v_x.y : 0.0f;
      }
      {
        ks_v_y.z = ks_v_x.z > 0.0f ? ks_v_x.z : 0.0f;
      }
      {
        ks_v_y.w = ks_v_x.w > 0.0f ? ks_v_x.w : 0.0f;
      }
      *reinterpret_cast<float4 *>(y + ks_base) = ks_v_y;
    } else {
      for (long long ks_i = ks_base; ks_i < ks_base + 4 && ks_i < ks_n; ++ks_i) {
        long long i = (long long)ks_i;
        y[i] = x[i] > 0.0f ? x[i] : 0.0f;
      }
    }
}

extern "C" void relu_forward(const float *x, float *y, long long n)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    // kernelskill: mem.vectorize-128 (rule vectorize, round 1) dram 57%->88%, inst_executed 4.82e+07->1.78e+07, 1.56x — grid for 4 elements per thread (float4)
    relu_kernel<<<(unsigned)((n + threads * 4 - 1) / (threads * 4)), threads>>>(x, y, n);
}

// Seed for the sigmoid task: y = 1 / (1 + exp(-x)), one thread per element.
#include <cuda_runtime.h>

__global__ void sigmoid_kernel(const float *x, float *y, long long n)
{
    // kernelskill: mem.vectorize-128 (rule vectorize, round 1) dram 52%->87%, inst_executed 8.81e+07->5.51e+07, 1.67x — float4 loads/stores (4 x float per thread), alignment guard, scalar tail
    const long long ks_base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const long long ks_n = (long long)(n);
    if (ks_base + 4 <= ks_n && (((unsigned long long)(const void *)x | (unsigned long long)(const void *)y) % 16) == 0) {
      const float4 ks_v_x = *reinterpret_cast<const float4 *>(x + ks_base);
      float4 ks_v_y;
      {
        ks_v_y.x = 1.0f / (1.0f + expf(-ks_v_x.x));
      }
      {
        ks_v_y.y = 1.0f / (1.0f + expf(-ks_v_x.y));
      }
      {
        ks_v_y.z = 1.0f / (1.0f + expf(-ks_v_x.z));
      }
      {
        ks_v_y.w = 1.0f / (1.0f + expf(-ks_v_x.w));
      }
      *reinterpret_cast<float4 *>(y + ks_base) = ks_v_y;
    } else {
      for (long long ks_i = ks_base; ks_i < ks_base + 4 && ks_i < ks_n; ++ks_i) {
        long long i = (long long)ks_i;
        y[i] = 1.0f / (1.0f + expf(-x[i]));
      }
    }
}

extern "C" void sigmoid_forward(const float *x, float *y, long long n)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    // kernelskill: mem.vectorize-128 (rule vectorize, round 1) dram 52%->87%, inst_executed 8.81e+07->5.51e+07, 1.67x — grid for 4 elements per thread (float4)
    sigmoid_kernel<<<(unsigned)((n + threads * 4 - 1) / (threads * 4)), threads>>>(x, y, n);
}

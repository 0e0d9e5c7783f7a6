// Seed for the scaled_residual_add task: y = x + alpha * residual, one thread per element.
#include <cuda_runtime.h>

__global__ void scaled_residual_add_kernel(const float *x, const float *residual, float *y,
                                           float alpha, long long n)
{
    // kernelskill: mem.vectorize-128 (rule vectorize, round 1) dram 72%->91%, inst_executed 5.87e+07->2.2e+07, 1.26x — float4 loads/stores (4 x float per thread), alignment guard, scalar tail
    const long long ks_base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const long long ks_n = (long long)(n);
    if (ks_base + 4 <= ks_n && (((unsigned long long)(const void *)x | (unsigned long long)(const void *)residual | (unsigned long long)(const void *)y) % 16) == 0) {
      const float4 ks_v_x = *reinterpret_cast<const float4 *>(x + ks_base);
      const float4 ks_v_residual = *reinterpret_cast<const float4 *>(residual + ks_base);
      float4 ks_v_y;
      {
        ks_v_y.x = ks_v_x.x + alpha * ks_v_residual.x;
      }
      {
        ks_v_y.y = ks_v_x.y + alpha * ks_v_residual.y;
      }
      {
        ks_v_y.z = ks_v_x.z + alpha * ks_v_residual.z;
      }
      {
        ks_v_y.w = ks_v_x.w + alpha * ks_v_residual.w;
      }
      *reinterpret_cast<float4 *>(y + ks_base) = ks_v_y;
    } else {
      for (long long ks_i = ks_base; ks_i < ks_base + 4 && ks_i < ks_n; ++ks_i) {
        long long i = (long long)ks_i;
        y[i] = x[i] + alpha * residual[i];
      }
    }
}

extern "C" void scaled_residual_add_forward(const float *x, const float *residual, float *y,
                                            float alpha, long long n)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    // kernelskill: mem.vectorize-128 (rule vectorize, round 1) dram 72%->91%, inst_executed 5.87e+07->2.2e+07, 1.26x — grid for 4 elements per thread (float4)
    scaled_residual_add_kernel<<<(unsigned)((n + threads * 4 - 1) / (threads * 4)), threads>>>(x, residual, y, alpha, n);
}

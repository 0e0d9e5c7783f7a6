// Seed for the gelu_tanh task: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
// the tanh approximation of GELU, one thread per element.
#include <cuda_runtime.h>

__global__ void gelu_tanh_kernel(const float *x, float *y, long long n)
{
    // kernelskill: mem.vectorize-128 (rule vectorize, round 1) dram 53%->88%, inst_executed 9.65e+07->6.29e+07, 1.65x — float4 loads/stores (4 x float per thread), alignment guard, scalar tail
    const long long ks_base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const long long ks_n = (long long)(n);
    if (ks_base + 4 <= ks_n && (((unsigned long long)(const void *)x | (unsigned long long)(const void *)y) % 16) == 0) {
      const float4 ks_v_x = *reinterpret_cast<const float4 *>(x + ks_base);
      float4 ks_v_y;
      {
        float v = ks_v_x.x;
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        ks_v_y.x = 0.5f * v * (1.0f + tanhf(inner));
      }
      {
        float v = ks_v_x.y;
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        ks_v_y.y = 0.5f * v * (1.0f + tanhf(inner));
      }
      {
        float v = ks_v_x.z;
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        ks_v_y.z = 0.5f * v * (1.0f + tanhf(inner));
      }
      {
        float v = ks_v_x.w;
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        ks_v_y.w = 0.5f * v * (1.0f + tanhf(inner));
      }
      *reinterpret_cast<float4 *>(y + ks_base) = ks_v_y;
    } else {
      for (long long ks_i = ks_base; ks_i < ks_base + 4 && ks_i < ks_n; ++ks_i) {
        long long i = (long long)ks_i;
        float v = x[i];
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        y[i] = 0.5f * v * (1.0f + tanhf(inner));
      }
    }
}

extern "C" void gelu_tanh_forward(const float *x, float *y, long long n)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    // kernelskill: mem.vectorize-128 (rule vectorize, round 1) dram 53%->88%, inst_executed 9.65e+07->6.29e+07, 1.65x — grid for 4 elements per thread (float4)
    gelu_tanh_kernel<<<(unsigned)((n + threads * 4 - 1) / (threads * 4)), threads>>>(x, y, n);
}

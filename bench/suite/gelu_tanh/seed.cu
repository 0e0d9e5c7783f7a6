// Seed for the gelu_tanh task: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
// the tanh approximation of GELU, one thread per element.
#include <cuda_runtime.h>

__global__ void gelu_tanh_kernel(const float *x, float *y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        y[i] = 0.5f * v * (1.0f + tanhf(inner));
    }
}

extern "C" void gelu_tanh_forward(const float *x, float *y, long long n)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    gelu_tanh_kernel<<<(unsigned)blocks, threads>>>(x, y, n);
}

// Seed for the relu task: y = max(x, 0), one thread per element.
#include <cuda_runtime.h>

__global__ void relu_kernel(const float *x, float *y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu_forward(const float *x, float *y, long long n)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    relu_kernel<<<(unsigned)blocks, threads>>>(x, y, n);
}

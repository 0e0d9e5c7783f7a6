// Seed for the sigmoid task: y = 1 / (1 + exp(-x)), one thread per element.
#include <cuda_runtime.h>

__global__ void sigmoid_kernel(const float *x, float *y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 1.0f / (1.0f + expf(-x[i]));
}

extern "C" void sigmoid_forward(const float *x, float *y, long long n)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    sigmoid_kernel<<<(unsigned)blocks, threads>>>(x, y, n);
}

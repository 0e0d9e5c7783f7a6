// Seed for the scaled_residual_add task: y = x + alpha * residual, one thread per element.
#include <cuda_runtime.h>

__global__ void scaled_residual_add_kernel(const float *x, const float *residual, float *y,
                                           float alpha, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] + alpha * residual[i];
}

extern "C" void scaled_residual_add_forward(const float *x, const float *residual, float *y,
                                            float alpha, long long n)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    scaled_residual_add_kernel<<<(unsigned)blocks, threads>>>(x, residual, y, alpha, n);
}

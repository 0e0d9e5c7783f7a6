// Seed for the sum_dim task: y[b][d] = sum over r of x[b][r][d] (reduce the middle
// dimension of a 3-D tensor). One thread per output, a sequential loop over r.
#include <cuda_runtime.h>

__global__ void sum_dim_kernel(const float *x, float *y, int batch, int reduce, int inner)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)batch * inner)
        return;
    long long b = i / inner;
    long long d = i % inner;
    const float *xb = x + b * reduce * inner + d;
    float sum = 0.0f;
    for (int r = 0; r < reduce; r++)
        sum += xb[(long long)r * inner];
    y[i] = sum;
}

extern "C" void sum_dim_forward(const float *x, float *y, int batch, int reduce, int inner)
{
    int threads = 256;
    long long n = (long long)batch * inner;
    long long blocks = (n + threads - 1) / threads;
    sum_dim_kernel<<<(unsigned)blocks, threads>>>(x, y, batch, reduce, inner);
}

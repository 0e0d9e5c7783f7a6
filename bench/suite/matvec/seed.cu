// Seed for the matvec task: y = A x for a row-major m x k matrix A.
// One thread per row of A (each thread walks its own row).
#include <cuda_runtime.h>

__global__ void matvec_kernel(const float *a, const float *x, float *y, int m, int k)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m)
        return;
    const float *ar = a + (size_t)row * k;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc += ar[j] * x[j];
    y[row] = acc;
}

extern "C" void matvec_forward(const float *a, const float *x, float *y, int m, int k)
{
    int threads = 256;
    int blocks = (m + threads - 1) / threads;
    matvec_kernel<<<blocks, threads>>>(a, x, y, m, k);
}

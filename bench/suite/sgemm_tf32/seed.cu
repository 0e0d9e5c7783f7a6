// Seed for the sgemm_tf32 task: the sgemm seed, for a task whose tolerance admits
// TF32: C = A B for square row-major n x n fp32 matrices.
// One thread per element of C, a plain dot product over k (no tiling).
#include <cuda_runtime.h>

__global__ void sgemm_kernel(const float *a, const float *b, float *c, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += a[(size_t)row * n + k] * b[(size_t)k * n + col];
    c[(size_t)row * n + col] = acc;
}

extern "C" void sgemm_forward(const float *a, const float *b, float *c, int n)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (n + 15) / 16);
    sgemm_kernel<<<blocks, threads>>>(a, b, c, n);
}

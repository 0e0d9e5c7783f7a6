// Naive GEMMs written the way first drafts often are, for smem-tile-gemm and
// library-gemm: an early-return guard and 64-bit indexing through (size_t)
// casts, which the rewrite must keep. The bad_* kernels must be refused.
#include <cuda_runtime.h>

__global__ void sgemm64(const float *a, const float *b, float *c, int n)
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

// The product is computed in int and only then widened: not the same index
// as a widened row; refused rather than guessed.
__global__ void bad_late_cast(const float *a, const float *b, float *c, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += a[(size_t)(row * n) + k] * b[(size_t)k * n + col];
    c[(size_t)row * n + col] = acc;
}

// A narrowing cast changes the row: refused.
__global__ void bad_narrow(const float *a, const float *b, float *c, long long n)
{
    long long col = blockIdx.x * blockDim.x + threadIdx.x;
    long long row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n)
        return;
    float acc = 0.0f;
    for (long long k = 0; k < n; k++)
        acc += a[(int)row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}

extern "C" void sgemm64_forward(const float *a, const float *b, float *c, int n)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (n + 15) / 16);
    sgemm64<<<blocks, threads>>>(a, b, c, n);
    bad_late_cast<<<blocks, threads>>>(a, b, c, n);
    bad_narrow<<<blocks, threads>>>(a, b, c, (long long)n);
}
// end of file

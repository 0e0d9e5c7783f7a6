// Seed for the argmax_dim task: idx[b] = index of the maximum of row b (the first
// one on ties, as torch.argmax). One thread per row.
#include <cuda_runtime.h>

__global__ void argmax_dim_kernel(const float *x, long long *idx, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    const float *xr = x + (size_t)row * cols;
    float best = xr[0];
    int besti = 0;
    for (int j = 1; j < cols; j++) {
        if (xr[j] > best) {
            best = xr[j];
            besti = j;
        }
    }
    idx[row] = besti;
}

extern "C" void argmax_dim_forward(const float *x, long long *idx, int rows, int cols)
{
    int threads = 128;
    int blocks = (rows + threads - 1) / threads;
    argmax_dim_kernel<<<blocks, threads>>>(x, idx, rows, cols);
}

// Seed for the loop's row-sum task: y[r] = sum over c of x[r][c]. The first
// draft an engineer writes: one thread per row, a sequential loop along it
// (neighbouring threads read a row apart: uncoalesced, and only `rows` threads).
#include <cuda_runtime.h>

__global__ void row_sum_kernel(const float *x, float *y, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    const float *xr = x + (long long)row * cols;
    float sum = 0.0f;
    for (int c = 0; c < cols; c++)
        sum += xr[c];
    y[row] = sum;
}

extern "C" void row_sum_forward(const float *x, float *y, int rows, int cols)
{
    int threads = 256;
    int blocks = (rows + threads - 1) / threads;
    row_sum_kernel<<<blocks, threads>>>(x, y, rows, cols);
}

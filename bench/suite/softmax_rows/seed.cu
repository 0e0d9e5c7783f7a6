// Seed for the softmax_rows task: y = softmax(x) over each row (numerically safe:
// the row maximum is subtracted first). One thread per row, three passes.
#include <cuda_runtime.h>

__global__ void softmax_kernel(const float *x, float *y, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    const float *xr = x + (size_t)row * cols;
    float *yr = y + (size_t)row * cols;
    float m = xr[0];
    for (int j = 1; j < cols; j++)
        m = fmaxf(m, xr[j]);
    float sum = 0.0f;
    for (int j = 0; j < cols; j++)
        sum += expf(xr[j] - m);
    for (int j = 0; j < cols; j++)
        yr[j] = expf(xr[j] - m) / sum;
}

extern "C" void softmax_forward(const float *x, float *y, int rows, int cols)
{
    int threads = 128;
    int blocks = (rows + threads - 1) / threads;
    softmax_kernel<<<blocks, threads>>>(x, y, rows, cols);
}

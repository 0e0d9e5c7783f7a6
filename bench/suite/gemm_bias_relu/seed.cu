// Seed for the gemm_bias_relu task: y = relu(x w^T + bias), the nn.Linear layout
// (w is out_features x in_features, row-major). One thread per output element.
#include <cuda_runtime.h>

__global__ void gemm_bias_relu_kernel(const float *x, const float *w, const float *bias,
                                      float *y, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    const float *xr = x + (size_t)row * k;
    const float *wr = w + (size_t)col * k;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc += xr[j] * wr[j];
    acc += bias[col];
    y[(size_t)row * n + col] = acc > 0.0f ? acc : 0.0f;
}

extern "C" void gemm_bias_relu_forward(const float *x, const float *w, const float *bias,
                                       float *y, int m, int n, int k)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (m + 15) / 16);
    gemm_bias_relu_kernel<<<blocks, threads>>>(x, w, bias, y, m, n, k);
}

// rule_naive.cu — input of bench/gemm/rule_rewrite.sh: the suite's two GEMM
// seeds (bench/suite/sgemm/seed.cu, bench/suite/gemm_bias_relu/seed.cu), one
// copy per configuration the gemm-tiled rule is measured at, each kernel
// named after its configuration. rule_rewrite.sh rewrites every kernel with
// the rule (as the loop would) into rule_tiled.cu, which rule_bench.cu times
// against cuBLAS; sgemm_naive and bias_relu_naive stay as written (the
// bitwise reference). No check lines: the rule rewrites this file.
// rule_tiled.cu is this file as the rule rewrote it: do not edit it, run
// rule_rewrite.sh (test/rewrite/gemm-tiled-bench.test checks they agree).
#include <cuda_runtime.h>

// NN (the sgemm task), unchanged: the reference
__global__ void sgemm_naive(const float *a, const float *b, float *c, int n)
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

extern "C" void sgemm_naive_forward(const float *a, const float *b, float *c, int n)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (n + 15) / 16);
    sgemm_naive<<<blocks, threads>>>(a, b, c, n);
}

__global__ void sgemm_default(const float *a, const float *b, float *c, int n)
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

extern "C" void sgemm_default_forward(const float *a, const float *b, float *c, int n)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (n + 15) / 16);
    sgemm_default<<<blocks, threads>>>(a, b, c, n);
}

__global__ void sgemm_s2(const float *a, const float *b, float *c, int n)
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

extern "C" void sgemm_s2_forward(const float *a, const float *b, float *c, int n)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (n + 15) / 16);
    sgemm_s2<<<blocks, threads>>>(a, b, c, n);
}

__global__ void sgemm_s3(const float *a, const float *b, float *c, int n)
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

extern "C" void sgemm_s3_forward(const float *a, const float *b, float *c, int n)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (n + 15) / 16);
    sgemm_s3<<<blocks, threads>>>(a, b, c, n);
}

__global__ void sgemm_128x64_s3(const float *a, const float *b, float *c, int n)
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

extern "C" void sgemm_128x64_s3_forward(const float *a, const float *b, float *c, int n)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (n + 15) / 16);
    sgemm_128x64_s3<<<blocks, threads>>>(a, b, c, n);
}

// NT + bias + ReLU (the gemm_bias_relu task), unchanged: the reference
__global__ void bias_relu_naive(const float *x, const float *w, const float *bias,
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

extern "C" void bias_relu_naive_forward(const float *x, const float *w, const float *bias,
                                       float *y, int m, int n, int k)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (m + 15) / 16);
    bias_relu_naive<<<blocks, threads>>>(x, w, bias, y, m, n, k);
}

__global__ void bias_relu_default(const float *x, const float *w, const float *bias,
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

extern "C" void bias_relu_default_forward(const float *x, const float *w, const float *bias,
                                       float *y, int m, int n, int k)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (m + 15) / 16);
    bias_relu_default<<<blocks, threads>>>(x, w, bias, y, m, n, k);
}

__global__ void bias_relu_s2(const float *x, const float *w, const float *bias,
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

extern "C" void bias_relu_s2_forward(const float *x, const float *w, const float *bias,
                                       float *y, int m, int n, int k)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (m + 15) / 16);
    bias_relu_s2<<<blocks, threads>>>(x, w, bias, y, m, n, k);
}

__global__ void bias_relu_s3(const float *x, const float *w, const float *bias,
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

extern "C" void bias_relu_s3_forward(const float *x, const float *w, const float *bias,
                                       float *y, int m, int n, int k)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (m + 15) / 16);
    bias_relu_s3<<<blocks, threads>>>(x, w, bias, y, m, n, k);
}

__global__ void bias_relu_128x64_s3(const float *x, const float *w, const float *bias,
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

extern "C" void bias_relu_128x64_s3_forward(const float *x, const float *w, const float *bias,
                                       float *y, int m, int n, int k)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (m + 15) / 16);
    bias_relu_128x64_s3<<<blocks, threads>>>(x, w, bias, y, m, n, k);
}

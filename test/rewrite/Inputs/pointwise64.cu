// Pointwise kernels written the way first drafts often are: a 64-bit global
// index through a cast, the grid computed into a host variable and cast at the
// launch, the guard's bound an expression of the parameters. The positive
// kernels must be accepted by vectorize/coarsen/grid-stride/block-size; the
// bad_* ones must be refused (see the RUN lines of those tests).
#include <cuda_runtime.h>

__global__ void scale64(const float *x, float *y, float alpha, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = alpha * x[i];
    }
}

// The bound is an expression of two parameters; the early-return guard.
__global__ void copy2d(const float *x, float *y, int rows, int cols)
{
    long long i = threadIdx.x + blockDim.x * (size_t)blockIdx.x;
    if (i >= (long long)rows * cols)
        return;
    y[i] = x[i] + 1.0f;
}

// The product wraps in 32 bits before the cast: not the exact 64-bit index.
__global__ void bad_wrap(const float *x, float *y, long long n)
{
    long long i = (long long)(blockIdx.x * blockDim.x) + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

// A 32-bit cast of blockIdx.x keeps the 32-bit index (the model sees the
// same value), but the launch passes (int)n: the grid check refuses it.
__global__ void bad_int_cast(const float *x, float *y, int n)
{
    int i = (int)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

// Launched with a grid variable that is changed before the launch.
__global__ void bad_grid_written(const float *x, float *y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

// Launched with an argument of another type than the bound's parameter.
__global__ void bad_arg_type(const float *x, float *y, int rows, int cols)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)rows * cols)
        return;
    y[i] = x[i];
}

// The bound's argument changes between the grid's computation and the launch.
__global__ void bad_n_written(const float *x, float *y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

extern "C" void run_scale64(const float *x, float *y, float alpha, long long n)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    scale64<<<(unsigned)blocks, threads>>>(x, y, alpha, n);
}

extern "C" void run_copy2d(const float *x, float *y, int rows, int cols)
{
    const int threads = 128;
    long long total = (long long)rows * cols;
    long long blocks = (total + threads - 1) / threads;
    copy2d<<<static_cast<unsigned int>(blocks), threads>>>(x, y, rows, cols);
}

extern "C" void run_bad(const float *x, float *y, long long n, long long r, int c)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    bad_wrap<<<(unsigned)blocks, threads>>>(x, y, n);
    bad_int_cast<<<(unsigned)blocks, threads>>>(x, y, (int)n);
    long long grid = (n + threads - 1) / threads;
    grid = grid / 2;
    bad_grid_written<<<(unsigned)grid, threads>>>(x, y, n);
    long long total = (long long)r * c;
    long long blocks2 = (total + threads - 1) / threads;
    bad_arg_type<<<(unsigned)blocks2, threads>>>(x, y, r, c);
}
extern "C" void run_bad_n(const float *x, float *y, long long n)
{
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    n = n * 2;
    bad_n_written<<<(unsigned)blocks, threads>>>(x, y, n);
}
// end of file

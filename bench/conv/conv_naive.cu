// conv_naive.cu — the suite's conv2d_3x3 seed kernel (bench/suite/conv2d_3x3/seed.cu), one copy
// per configuration the bench times: rule_rewrite.sh rewrites each conv_<tag> with conv-igemm at
// its configuration (conv_ref stays the seed, the reference), and gives each a launcher
// launch_<tag> with the seed's own launch, which the rule rewrites with the kernel.
#include <cuda_runtime.h>

__global__ void conv_ref(const float *x, const float *w, float *y, int batch,
                                  int cin, int cout, int height, int width)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)batch * cout * height * width;
    if (i >= total)
        return;
    int ox = (int)(i % width);
    int oy = (int)((i / width) % height);
    int co = (int)((i / ((long long)width * height)) % cout);
    long long nb = i / ((long long)width * height * cout);
    float acc = 0.0f;
    for (int ci = 0; ci < cin; ci++) {
        const float *xp = x + (nb * cin + ci) * height * width;
        const float *wp = w + ((long long)co * cin + ci) * 9;
        for (int ky = 0; ky < 3; ky++) {
            int iy = oy + ky - 1;
            if (iy < 0 || iy >= height)
                continue;
            for (int kx = 0; kx < 3; kx++) {
                int ix = ox + kx - 1;
                if (ix < 0 || ix >= width)
                    continue;
                acc += xp[(long long)iy * width + ix] * wp[ky * 3 + kx];
            }
        }
    }
    y[i] = acc;
}

static void launch_ref(const float *x, const float *w, float *y, int batch, int cin, int cout, int height,
                       int width)
{
    int threads = 256;
    long long n = (long long)batch * cout * height * width;
    long long blocks = (n + threads - 1) / threads;
    conv_ref<<<(unsigned)blocks, threads>>>(x, w, y, batch, cin, cout, height, width);
}

__global__ void conv_default(const float *x, const float *w, float *y, int batch,
                                  int cin, int cout, int height, int width)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)batch * cout * height * width;
    if (i >= total)
        return;
    int ox = (int)(i % width);
    int oy = (int)((i / width) % height);
    int co = (int)((i / ((long long)width * height)) % cout);
    long long nb = i / ((long long)width * height * cout);
    float acc = 0.0f;
    for (int ci = 0; ci < cin; ci++) {
        const float *xp = x + (nb * cin + ci) * height * width;
        const float *wp = w + ((long long)co * cin + ci) * 9;
        for (int ky = 0; ky < 3; ky++) {
            int iy = oy + ky - 1;
            if (iy < 0 || iy >= height)
                continue;
            for (int kx = 0; kx < 3; kx++) {
                int ix = ox + kx - 1;
                if (ix < 0 || ix >= width)
                    continue;
                acc += xp[(long long)iy * width + ix] * wp[ky * 3 + kx];
            }
        }
    }
    y[i] = acc;
}

static void launch_default(const float *x, const float *w, float *y, int batch, int cin, int cout, int height,
                       int width)
{
    int threads = 256;
    long long n = (long long)batch * cout * height * width;
    long long blocks = (n + threads - 1) / threads;
    conv_default<<<(unsigned)blocks, threads>>>(x, w, y, batch, cin, cout, height, width);
}

__global__ void conv_bk8_s4(const float *x, const float *w, float *y, int batch,
                                  int cin, int cout, int height, int width)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)batch * cout * height * width;
    if (i >= total)
        return;
    int ox = (int)(i % width);
    int oy = (int)((i / width) % height);
    int co = (int)((i / ((long long)width * height)) % cout);
    long long nb = i / ((long long)width * height * cout);
    float acc = 0.0f;
    for (int ci = 0; ci < cin; ci++) {
        const float *xp = x + (nb * cin + ci) * height * width;
        const float *wp = w + ((long long)co * cin + ci) * 9;
        for (int ky = 0; ky < 3; ky++) {
            int iy = oy + ky - 1;
            if (iy < 0 || iy >= height)
                continue;
            for (int kx = 0; kx < 3; kx++) {
                int ix = ox + kx - 1;
                if (ix < 0 || ix >= width)
                    continue;
                acc += xp[(long long)iy * width + ix] * wp[ky * 3 + kx];
            }
        }
    }
    y[i] = acc;
}

static void launch_bk8_s4(const float *x, const float *w, float *y, int batch, int cin, int cout, int height,
                       int width)
{
    int threads = 256;
    long long n = (long long)batch * cout * height * width;
    long long blocks = (n + threads - 1) / threads;
    conv_bk8_s4<<<(unsigned)blocks, threads>>>(x, w, y, batch, cin, cout, height, width);
}

__global__ void conv_64x64(const float *x, const float *w, float *y, int batch,
                                  int cin, int cout, int height, int width)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)batch * cout * height * width;
    if (i >= total)
        return;
    int ox = (int)(i % width);
    int oy = (int)((i / width) % height);
    int co = (int)((i / ((long long)width * height)) % cout);
    long long nb = i / ((long long)width * height * cout);
    float acc = 0.0f;
    for (int ci = 0; ci < cin; ci++) {
        const float *xp = x + (nb * cin + ci) * height * width;
        const float *wp = w + ((long long)co * cin + ci) * 9;
        for (int ky = 0; ky < 3; ky++) {
            int iy = oy + ky - 1;
            if (iy < 0 || iy >= height)
                continue;
            for (int kx = 0; kx < 3; kx++) {
                int ix = ox + kx - 1;
                if (ix < 0 || ix >= width)
                    continue;
                acc += xp[(long long)iy * width + ix] * wp[ky * 3 + kx];
            }
        }
    }
    y[i] = acc;
}

static void launch_64x64(const float *x, const float *w, float *y, int batch, int cin, int cout, int height,
                       int width)
{
    int threads = 256;
    long long n = (long long)batch * cout * height * width;
    long long blocks = (n + threads - 1) / threads;
    conv_64x64<<<(unsigned)blocks, threads>>>(x, w, y, batch, cin, cout, height, width);
}

__global__ void conv_64x256_s2(const float *x, const float *w, float *y, int batch,
                                  int cin, int cout, int height, int width)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)batch * cout * height * width;
    if (i >= total)
        return;
    int ox = (int)(i % width);
    int oy = (int)((i / width) % height);
    int co = (int)((i / ((long long)width * height)) % cout);
    long long nb = i / ((long long)width * height * cout);
    float acc = 0.0f;
    for (int ci = 0; ci < cin; ci++) {
        const float *xp = x + (nb * cin + ci) * height * width;
        const float *wp = w + ((long long)co * cin + ci) * 9;
        for (int ky = 0; ky < 3; ky++) {
            int iy = oy + ky - 1;
            if (iy < 0 || iy >= height)
                continue;
            for (int kx = 0; kx < 3; kx++) {
                int ix = ox + kx - 1;
                if (ix < 0 || ix >= width)
                    continue;
                acc += xp[(long long)iy * width + ix] * wp[ky * 3 + kx];
            }
        }
    }
    y[i] = acc;
}

static void launch_64x256_s2(const float *x, const float *w, float *y, int batch, int cin, int cout, int height,
                       int width)
{
    int threads = 256;
    long long n = (long long)batch * cout * height * width;
    long long blocks = (n + threads - 1) / threads;
    conv_64x256_s2<<<(unsigned)blocks, threads>>>(x, w, y, batch, cin, cout, height, width);
}

__global__ void conv_128x128_s2(const float *x, const float *w, float *y, int batch,
                                  int cin, int cout, int height, int width)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)batch * cout * height * width;
    if (i >= total)
        return;
    int ox = (int)(i % width);
    int oy = (int)((i / width) % height);
    int co = (int)((i / ((long long)width * height)) % cout);
    long long nb = i / ((long long)width * height * cout);
    float acc = 0.0f;
    for (int ci = 0; ci < cin; ci++) {
        const float *xp = x + (nb * cin + ci) * height * width;
        const float *wp = w + ((long long)co * cin + ci) * 9;
        for (int ky = 0; ky < 3; ky++) {
            int iy = oy + ky - 1;
            if (iy < 0 || iy >= height)
                continue;
            for (int kx = 0; kx < 3; kx++) {
                int ix = ox + kx - 1;
                if (ix < 0 || ix >= width)
                    continue;
                acc += xp[(long long)iy * width + ix] * wp[ky * 3 + kx];
            }
        }
    }
    y[i] = acc;
}

static void launch_128x128_s2(const float *x, const float *w, float *y, int batch, int cin, int cout, int height,
                       int width)
{
    int threads = 256;
    long long n = (long long)batch * cout * height * width;
    long long blocks = (n + threads - 1) / threads;
    conv_128x128_s2<<<(unsigned)blocks, threads>>>(x, w, y, batch, cin, cout, height, width);
}

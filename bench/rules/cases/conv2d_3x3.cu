// Seed for the conv2d_3x3 task: y = conv2d(x, w), NCHW, 3x3 kernel, stride 1,
// zero padding 1, no bias (torch.nn.functional.conv2d(x, w, padding=1)).
// One thread per output element, direct convolution.
#include <cuda_runtime.h>

__global__ void conv2d_3x3_kernel(const float *x, const float *w, float *y, int batch,
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

extern "C" void conv2d_3x3_forward(const float *x, const float *w, float *y, int batch,
                                   int cin, int cout, int height, int width)
{
    int threads = 256;
    long long n = (long long)batch * cout * height * width;
    long long blocks = (n + threads - 1) / threads;
    conv2d_3x3_kernel<<<(unsigned)blocks, threads>>>(x, w, y, batch, cin, cout, height, width);
}

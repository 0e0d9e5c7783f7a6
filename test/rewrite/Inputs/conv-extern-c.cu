// A direct convolution inside an extern "C" block, as C-callable kernel
// libraries write it (input of test/rewrite/conv-igemm-scope.test): the shipped
// template goes above the block, at file scope.
#include <cuda_runtime.h>

extern "C" {

__global__ void conv_seed(const float *x, const float *w, float *y, int batch, int cin, int cout, int height,
                          int width)
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

}

void run(const float *x, const float *w, float *y, int batch, int cin, int cout, int H, int W)
{
    long long n = (long long)batch * cout * H * W;
    conv_seed<<<(unsigned)((n + 255) / 256), 256>>>(x, w, y, batch, cin, cout, H, W);
}

// Plan input: 5-point 2-D stencil reading neighbours straight from global memory.
#include <cuda_runtime.h>

__global__ void stencil5(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && y > 0 && x < w - 1 && y < h - 1)
    out[y * w + x] = 0.2f * (in[y * w + x] + in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] +
                             in[(y + 1) * w + x]);
}

void launch_stencil(const float *in, float *out, int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + 31) / 32, (h + 7) / 8);
  stencil5<<<grid, block>>>(in, out, w, h);
}

// Plan input: naive matrix transpose, reads coalesced, writes strided by rows.
#include <cuda_runtime.h>

__global__ void transpose_naive(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

void launch_transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  transpose_naive<<<grid, block>>>(in, out, rows, cols);
}

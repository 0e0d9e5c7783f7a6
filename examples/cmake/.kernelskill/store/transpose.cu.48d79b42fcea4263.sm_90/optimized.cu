// transpose.cu — out = in^T for a rows x cols matrix, one thread per element.
// Reads are coalesced, writes are strided by `rows`: the store holds a
// verified shared-memory-tiled version of this file.
#include "kernels.h"

// kernelskill: mem.coalesce-smem-transpose (by hand) 32x32 tile through shared memory, +1 column against bank conflicts: both the reads and the writes are coalesced
__global__ void transpose_kernel(const float *__restrict__ in, float *__restrict__ out, int rows, int cols) {
  __shared__ float tile[32][33];
  int c = blockIdx.x * 32 + threadIdx.x;
  int r0 = blockIdx.y * 32;
  for (int k = threadIdx.y; k < 32; k += 8) {
    int r = r0 + k;
    if (r < rows && c < cols) tile[k][threadIdx.x] = in[(long)r * cols + c];
  }
  __syncthreads();
  int oc = blockIdx.y * 32 + threadIdx.x; // a row of in, a column of out
  int or0 = blockIdx.x * 32;
  for (int k = threadIdx.y; k < 32; k += 8) {
    int orow = or0 + k;
    if (orow < cols && oc < rows) out[(long)orow * rows + oc] = tile[threadIdx.x][k];
  }
}

extern "C" void transpose_forward(const float *in, float *out, int rows, int cols) {
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 31) / 32);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}

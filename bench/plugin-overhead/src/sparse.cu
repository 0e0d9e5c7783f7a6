// sparse.cu — irregular kernels: CSR SpMV (scalar and warp-per-row), a
// histogram with atomics, and an embedding gather; cooperative-groups style.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void spmv_scalar(int rows, const int *rowptr, const int *col, const float *val, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.f;
    for (int j = rowptr[r]; j < rowptr[r + 1]; j++) s += val[j] * x[col[j]];
    y[r] = s;
  }
}

__global__ void spmv_warp(int rows, const int *__restrict__ rowptr, const int *__restrict__ col,
                          const float *__restrict__ val, const float *__restrict__ x, float *__restrict__ y) {
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (r >= rows) return;
  float s = 0.f;
  for (int j = rowptr[r] + w.thread_rank(); j < rowptr[r + 1]; j += 32) s += val[j] * x[col[j]];
  for (int o = 16; o > 0; o /= 2) s += w.shfl_down(s, o);
  if (w.thread_rank() == 0) y[r] = s;
}

__global__ void histogram(const unsigned char *data, int n, unsigned int *bins) {
  __shared__ unsigned int local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

__global__ void embed(const long *ids, const float *table, float *out, int n, int dim) {
  int i = blockIdx.x, d = threadIdx.x;
  if (i < n && d < dim) out[i * dim + d] = table[ids[i] * dim + d];
}

void run(int rows, const int *rp, const int *c, const float *v, const float *x, float *y, const unsigned char *d, int n,
         unsigned int *bins, const long *ids, const float *tab, float *o, int dim) {
  spmv_scalar<<<(rows + 255) / 256, 256>>>(rows, rp, c, v, x, y);
  spmv_warp<<<(rows * 32 + 255) / 256, 256>>>(rows, rp, c, v, x, y);
  histogram<<<64, 256>>>(d, n, bins);
  embed<<<n, dim>>>(ids, tab, o, n, dim);
}

// stencil.cu — image/grid kernels: a 5-point Jacobi stencil, a 3x3 blur with
// a shared-memory halo, and a transpose (naive and padded tile).
#include <cuda_runtime.h>
#define IDX(x, y, w) ((y) * (w) + (x))
#define BLOCK 16

__global__ void jacobi(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
  out[IDX(x, y, w)] = 0.25f * (in[IDX(x - 1, y, w)] + in[IDX(x + 1, y, w)] + in[IDX(x, y - 1, w)] + in[IDX(x, y + 1, w)]);
}

__global__ void blur3(const unsigned char *in, unsigned char *out, int w, int h) {
  __shared__ unsigned char tile[BLOCK + 2][BLOCK + 2];
  int x = blockIdx.x * BLOCK + threadIdx.x, y = blockIdx.y * BLOCK + threadIdx.y;
  int cx = min(max(x, 0), w - 1), cy = min(max(y, 0), h - 1);
  tile[threadIdx.y + 1][threadIdx.x + 1] = in[IDX(cx, cy, w)];
  if (threadIdx.x == 0) tile[threadIdx.y + 1][0] = in[IDX(max(cx - 1, 0), cy, w)];
  if (threadIdx.x == BLOCK - 1) tile[threadIdx.y + 1][BLOCK + 1] = in[IDX(min(cx + 1, w - 1), cy, w)];
  if (threadIdx.y == 0) tile[0][threadIdx.x + 1] = in[IDX(cx, max(cy - 1, 0), w)];
  if (threadIdx.y == BLOCK - 1) tile[BLOCK + 1][threadIdx.x + 1] = in[IDX(cx, min(cy + 1, h - 1), w)];
  __syncthreads();
  if (x >= w || y >= h) return;
  int s = 0;
  for (int dy = 0; dy < 3; dy++)
    for (int dx = 0; dx < 3; dx++) s += tile[threadIdx.y + dy][threadIdx.x + dx];
  out[IDX(x, y, w)] = (unsigned char)(s / 9);
}

__global__ void transpose_naive(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[x * h + y] = in[y * w + x];
}

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  __shared__ float t[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  if (x < w && y < h) t[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = t[threadIdx.x][threadIdx.y];
}

void run(float *a, float *b, unsigned char *p, unsigned char *q, int w, int h) {
  dim3 blk(BLOCK, BLOCK), grd((w + BLOCK - 1) / BLOCK, (h + BLOCK - 1) / BLOCK);
  jacobi<<<grd, blk>>>(a, b, w, h);
  blur3<<<grd, blk>>>(p, q, w, h);
  transpose_naive<<<grd, blk>>>(a, b, w, h);
  transpose_tiled<<<dim3((w + 31) / 32, (h + 31) / 32), dim3(32, 32)>>>(a, b, w, h);
}

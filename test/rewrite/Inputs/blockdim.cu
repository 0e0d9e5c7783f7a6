// Kernels whose indices write the block size as a constant
// (test/rewrite/blockdim.test): read as blockDim where every launch in the
// file passes that block, and the constant appears nowhere else in the kernel.
#include <cuda_runtime.h>

#define BLOCK_SIZE 256
#define ROWS_PER_BLOCK 128
#define TILE 16
static const int kThreads = 128;

// Elementwise, a macro for the block size.
__global__ void saxpy_bs(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// A grid-stride loop, a constant variable for the block size.
__global__ void scale_gs(const float *x, float *y, float s, int n) {
  for (int i = threadIdx.x + kThreads * blockIdx.x; i < n; i += kThreads * gridDim.x) y[i] = s * x[i];
}

// One thread per row.
__global__ void row_sum_c(const float *__restrict__ x, float *__restrict__ out, int rows, int cols) {
  const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x;
  if (row < rows) {
    float acc = 0.f;
    for (int j = 0; j < cols; ++j) acc += x[row * cols + j];
    out[row] = acc;
  }
}

// A 3x3 box filter on 16x16 tiles.
__global__ void box3_tile(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x >= 1 && y >= 1 && x < w - 1 && y < h - 1) {
    float s = 0.f;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) s += in[(y + dy) * w + x + dx];
    out[y * w + x] = s * (1.f / 9.f);
  }
}

// Refused: launched with two different blocks.
__global__ void add_two_blocks(const float *x, float *y, int n) {
  int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.f;
}

// Refused: the constant also bounds a test on threadIdx.
__global__ void add_half_block(const float *x, float *y, int n) {
  int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (i < n && threadIdx.x < BLOCK_SIZE / 2) y[i] = x[i] * 2.f;
}

// Refused: the block is a variable written after its declaration.
__global__ void add_written_block(const float *x, float *y, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n) y[i] = x[i] - 1.f;
}

// Refused: also launched through cudaLaunchKernel, whose block is not a <<< >>>'s.
__global__ void add_api_launch(const float *x, float *y, int n) {
  int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (i < n) y[i] = x[i] * 3.f;
}

void run(const float *x, float *y, int n, int rows, int cols, int w, int h) {
  saxpy_bs<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, y, 2.f, n);
  scale_gs<<<264, dim3(kThreads)>>>(x, y, 0.5f, n);
  row_sum_c<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, ROWS_PER_BLOCK>>>(x, y, rows, cols);
  dim3 tb(TILE, TILE), tg((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
  box3_tile<<<tg, tb>>>(x, y, w, h);
  add_two_blocks<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, y, n);
  add_two_blocks<<<(n + 127) / 128, 128>>>(x, y, n);
  add_half_block<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, y, n);
  dim3 b(128);
  if (n < 1024) b.x = 64;
  add_written_block<<<(n + 127) / 128, b>>>(x, y, n);
  add_api_launch<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, y, n);
  void *args[] = {&x, &y, &n};
  cudaLaunchKernel((const void *)add_api_launch, dim3((n + 127) / 128), dim3(128), args, 0, 0);
}

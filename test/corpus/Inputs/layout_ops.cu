// layout_ops.cu -- corpus (issue 14): layout changes in the style of a tensor
// library's copy kernels: a flat-index transpose (i / cols, i % cols), a
// batched transpose on a 3-D grid, an NCHW -> NHWC permutation with a 64-bit
// flat index. Written for this project.
#include <cuda_runtime.h>
#include <stdint.h>

// out (cols x rows) = in (rows x cols)^T, one thread per element of in
__global__ void transpose_flat(const float* in, float* out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) {
    int r = i / cols;
    int c = i % cols;
    out[c * rows + r] = in[i];
  }
}

// a batch of R x C matrices transposed, the batch on blockIdx.z
__global__ void batched_transpose(float* __restrict__ out, const float* __restrict__ in, int R, int C) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const size_t b = blockIdx.z;
  if (r < R && c < C) out[b * R * C + (size_t)c * R + r] = in[b * R * C + (size_t)r * C + c];
}

// NCHW -> NHWC, one thread per output element
__global__ void nchw_to_nhwc(const float* src, float* dst, int N, int C, int H, int W) {
  int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t total = (int64_t)N * C * H * W;
  if (idx >= total) return;
  int c = idx % C;
  int w = (idx / C) % W;
  int h = (idx / ((int64_t)C * W)) % H;
  int n = idx / ((int64_t)C * W * H);
  dst[idx] = src[(((int64_t)n * C + c) * H + h) * W + w];
}

void layout_ops(float* a, float* b, int rows, int cols, int batch) {
  transpose_flat<<<(rows * cols + 255) / 256, 256>>>(a, b, rows, cols);
  dim3 blk(32, 8), grd((cols + 31) / 32, (rows + 7) / 8, batch);
  batched_transpose<<<grd, blk>>>(b, a, rows, cols);
  nchw_to_nhwc<<<(batch * 64 * rows * cols + 255) / 256, 256>>>(a, b, batch, 64, rows, cols);
}

extern "C" void corpus_transpose_flat(const float* in, float* out, int rows, int cols) {
  transpose_flat<<<(rows * cols + 255) / 256, 256>>>(in, out, rows, cols);
}

extern "C" void corpus_nchw_to_nhwc(const float* src, float* dst, int N, int C, int H, int W) {
  int64_t total = (int64_t)N * C * H * W;
  nchw_to_nhwc<<<(unsigned)((total + 255) / 256), 256>>>(src, dst, N, C, H, W);
}

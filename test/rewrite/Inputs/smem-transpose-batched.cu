// smem-transpose-batched.cu — input of test/rewrite/smem-transpose-batched.test:
// 2-D transposes with one matrix per blockIdx.z (the rule keeps the grid's z)
// and batched kernels it must refuse.
#include <cuda_runtime.h>
#include <cstddef>

// out[b] = in[b]^T, in[b] R x C
__global__ void bt(float* __restrict__ out, const float* __restrict__ in, int R, int C) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const size_t b = blockIdx.z;
  if (r < R && c < C) out[b * R * C + (size_t)c * R + r] = in[b * R * C + (size_t)r * C + c];
}

// the offset last and first, the early-return guard
__global__ void bt_order(const float* in, float* out, int R, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  long long b = blockIdx.z;
  if (r >= R || c >= C) return;
  out[(long long)c * R + r + b * R * C] = in[b * C * R + (long long)r * C + c];
}

// must not: the batch offset is not a product with scalar parameters (reads memory)
__global__ void no_bt_indirect(float* out, const float* in, const int* off, int R, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int b = blockIdx.z;
  if (r < R && c < C) out[b * off[0] + c * R + r] = in[b * R * C + r * C + c];
}

// must not: the batch index twice in an offset (b * b * R * C)
__global__ void no_bt_square(float* out, const float* in, int R, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int b = blockIdx.z;
  if (r < R && c < C) out[b * b * R * C + c * R + r] = in[b * R * C + r * C + c];
}

void run(float* out, const float* in, const int* off, int batch, int R, int C) {
  dim3 blk(16, 16);
  dim3 grd((C + 15) / 16, (R + 15) / 16, batch);
  bt<<<grd, blk>>>(out, in, R, C);
  bt_order<<<grd, blk>>>(in, out, R, C);
  no_bt_indirect<<<grd, blk>>>(out, in, off, R, C);
  no_bt_square<<<grd, blk>>>(out, in, R, C);
}

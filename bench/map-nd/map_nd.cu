// map_nd.cu — does the vectorize rule's n-dimensional form lose bandwidth to the blocks
// it leaves empty? One 2-D map (out = relu(in + bias[col]), f32, block 32 x 8, the corpus's
// bias_relu_2d) four ways: as written; packs of 4 along x with the launch unchanged
// (the rule's form today: threads past a quarter of the x extent do nothing, so three
// blocks in four are empty); packs of 4 inside each block's own 32 x 8 tile (two warps
// of eight work, no block is empty); packs of 4 with the grid's x divided by 4 (the launch
// changed). Prints each one's ms and GB/s (read in + write out) and checks every output
// against the first. Exit 0 when all match, 1 on a mismatch, 2 on a CUDA error.
//   nvcc -O3 -arch=sm_90 bench/map-nd/map_nd.cu -o map_nd && ./map_nd [ROWS COLS]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../common/cuda_check.cuh"

__device__ __forceinline__ float op(float v, float b) {
  v += b;
  return v > 0.0f ? v : 0.0f;
}

__global__ void naive(float *out, const float *in, const float *bias, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) out[row * cols + col] = op(in[row * cols + col], bias[col]);
}

/* one pack of 4 columns at (row, x0): vector when whole and aligned, else lane by lane */
__device__ __forceinline__ void pack(float *out, const float *in, const float *bias, int rows, int cols, int row,
                                     long long x0, long long nx) {
  if (row >= rows) return;
  const float *pi = in + (long long)row * cols + x0;
  float *po = out + (long long)row * cols + x0;
  if (x0 + 4 <= nx && x0 + 4 <= cols && (((unsigned long long)pi | (unsigned long long)po | (unsigned long long)(bias + x0)) % 16) == 0) {
    float4 v = *reinterpret_cast<const float4 *>(pi), b = *reinterpret_cast<const float4 *>(bias + x0), r;
    r.x = op(v.x, b.x), r.y = op(v.y, b.y), r.z = op(v.z, b.z), r.w = op(v.w, b.w);
    *reinterpret_cast<float4 *>(po) = r;
    return;
  }
  for (int l = 0; l < 4 && x0 + l < nx; l++)
    if (x0 + l < cols) po[l] = op(pi[l], bias[x0 + l]);
}

/* the rule's n-dimensional form: thread t of the x extent takes x0 = 4 t, the launch unchanged */
__global__ void vec_extent(float *out, const float *in, const float *bias, int rows, int cols) {
  long long x0 = (long long)(blockIdx.x * blockDim.x + threadIdx.x) * 4, nx = (long long)gridDim.x * blockDim.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (x0 < nx) pack(out, in, bias, rows, cols, row, x0, nx);
}

/* packs inside the block's own bx x by tile: thread l < bx*by/4 takes pack l (bx % 4 == 0) */
__global__ void vec_tile(float *out, const float *in, const float *bias, int rows, int cols) {
  const int bx = blockDim.x, l = threadIdx.y * bx + threadIdx.x, pr = bx / 4;
  if (l >= pr * (int)blockDim.y) return;
  const int ty = l / pr, tx4 = (l - ty * pr) * 4;
  long long x0 = (long long)blockIdx.x * bx + tx4, nx = (long long)gridDim.x * bx;
  int row = blockIdx.y * blockDim.y + ty;
  pack(out, in, bias, rows, cols, row, x0, nx);
}

/* the grid's x divided by 4 at the launch: the guard's bound alone limits x */
__global__ void vec_shrunk(float *out, const float *in, const float *bias, int rows, int cols) {
  long long x0 = (long long)(blockIdx.x * blockDim.x + threadIdx.x) * 4;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  pack(out, in, bias, rows, cols, row, x0, cols);
}

int main(int argc, char **argv) {
  int rows = argc > 2 ? atoi(argv[1]) : 16384, cols = argc > 2 ? atoi(argv[2]) : 4096;
  size_t n = (size_t)rows * cols;
  float *in, *out, *bias, *ref;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMalloc(&ref, n * 4));
  CK(cudaMalloc(&bias, cols * 4));
  std::vector<float> h(n);
  for (size_t i = 0; i < n; i++) h[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
  CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(bias, h.data(), cols * 4, cudaMemcpyHostToDevice));
  dim3 blk(32, 8), g((cols + 31) / 32, (rows + 7) / 8), g4((cols + 127) / 128, (rows + 7) / 8);
  struct V {
    const char *z;
    void (*k)(float *, const float *, const float *, int, int);
    dim3 g;
  } av[] = {{"as written", naive, g}, {"packs, launch unchanged (the rule today)", vec_extent, g},
            {"packs inside each block's tile", vec_tile, g}, {"packs, grid x / 4", vec_shrunk, g4}};
  naive<<<g, blk>>>(ref, in, bias, rows, cols);
  CK(cudaDeviceSynchronize());
  std::vector<float> a(n), b(n);
  CK(cudaMemcpy(a.data(), ref, n * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  /* the mean ms of 50 back-to-back runs of f (no warm-up here: each kernel ran once for its check) */
  auto mean_ms = [&](auto f) {
    CK(cudaEventRecord(e0));
    for (int r = 0; r < 50; r++) f();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms / 50.0;
  };
  printf("map_nd %d x %d f32, block 32 x 8\n", rows, cols);
  for (auto &v : av) {
    CK(cudaMemset(out, 0, n * 4));
    v.k<<<v.g, blk>>>(out, in, bias, rows, cols);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(b.data(), out, n * 4, cudaMemcpyDeviceToHost));
    int ok = memcmp(a.data(), b.data(), n * 4) == 0;
    bad |= !ok;
    const double ms = mean_ms([&] { v.k<<<v.g, blk>>>(out, in, bias, rows, cols); });
    printf("  %-44s %8.4f ms  %7.1f GB/s  %s\n", v.z, ms, 2.0 * n * 4 / ms / 1e6, ok ? "same" : "MISMATCH");
  }
  /* the copy ceiling, as the harness measures it */
  const double ms = mean_ms([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); });
  printf("  %-44s %8.4f ms  %7.1f GB/s\n", "cudaMemcpy device to device", ms, 2.0 * n * 4 / ms / 1e6);
  return bad;
}

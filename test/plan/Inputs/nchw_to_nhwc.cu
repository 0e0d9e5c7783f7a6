// NCHW -> NHWC through a 64-bit flat index split into digits: six integer
// divisions an element, so the SM pipe can read busier than DRAM.
#include <cstdint>
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

// Seed for the gemm_bias_relu task: y = relu(x w^T + bias), the nn.Linear layout
// (w is out_features x in_features, row-major). One thread per output element.
#include <cuda_runtime.h>

// kernelskill: cmp.register-blocking (rule smem-tile-gemm, round 1) stall_mio_throttle 0.00258->0.0287, sm 11%->72%, 28.83x — 64x64 shared-memory tiles, 4x4 outputs per thread (2-D register blocking), block 16x16, B transposed, epilogue kept
// kernelskill: occ.launch-bounds-static (rule launch-bounds, round 3) registers 64->64, 1.05x — __launch_bounds__(256) for the launch's block size
__global__ void __launch_bounds__(256) gemm_bias_relu_kernel(const float *x, const float *w, const float *bias,
                                      float *y, int m, int n, int k)
{
  __shared__ __align__(16) float ks_As[64][68];
  __shared__ __align__(16) float ks_Bs[64][68];
  const int ks_tid = threadIdx.y * 16 + threadIdx.x;
  const int ks_row0 = blockIdx.y * 64;
  const int ks_col0 = blockIdx.x * 64;
  float ks_acc[4][4];
#pragma unroll
  for (int ks_i = 0; ks_i < 4; ++ks_i)
#pragma unroll
    for (int ks_j = 0; ks_j < 4; ++ks_j) ks_acc[ks_i][ks_j] = 0.0f;
  for (int ks_t = 0; ks_t < (k); ks_t += 64) {
#pragma unroll 4
    for (int ks_l = 0; ks_l < 16; ++ks_l) {
      const int ks_e = ks_tid + ks_l * 256;
      const int ks_r = ks_e / 64, ks_c = ks_e % 64;
      const int ks_ar = ks_row0 + ks_r;
      const int ks_ak = ks_t + ks_c;
      ks_As[ks_r][ks_c] = (ks_ar < (m) && ks_ak < (k)) ? x[(size_t)ks_ar * (k) + ks_ak] : 0.0f;
      const int ks_bn = ks_col0 + ks_r;
      ks_Bs[ks_r][ks_c] = (ks_ak < (k) && ks_bn < (n)) ? w[(size_t)ks_bn * (k) + ks_ak] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int ks_k = 0; ks_k < 64; ++ks_k) {
      float ks_a[4], ks_b[4];
#pragma unroll
      for (int ks_i = 0; ks_i < 4; ++ks_i) ks_a[ks_i] = ks_As[threadIdx.y + ks_i * 16][ks_k];
#pragma unroll
      for (int ks_j = 0; ks_j < 4; ++ks_j) ks_b[ks_j] = ks_Bs[threadIdx.x + ks_j * 16][ks_k];
#pragma unroll
      for (int ks_i = 0; ks_i < 4; ++ks_i)
#pragma unroll
        for (int ks_j = 0; ks_j < 4; ++ks_j) ks_acc[ks_i][ks_j] += ks_a[ks_i] * ks_b[ks_j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int ks_i = 0; ks_i < 4; ++ks_i) {
    const int ks_row = ks_row0 + threadIdx.y + ks_i * 16;
#pragma unroll
    for (int ks_j = 0; ks_j < 4; ++ks_j) {
      const int ks_col = ks_col0 + threadIdx.x + ks_j * 16;
      if (ks_row < (m) && ks_col < (n)) {
        float acc = ks_acc[ks_i][ks_j];
        const int col = ks_col;
        acc += bias[col];
        y[(size_t)ks_row * (n) + ks_col] = acc > 0.0f ? acc : 0.0f;
      }
    }
  }
}

extern "C" void gemm_bias_relu_forward(const float *x, const float *w, const float *bias,
                                       float *y, int m, int n, int k)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (m + 15) / 16);
    // kernelskill: cmp.register-blocking (rule smem-tile-gemm, round 1) stall_mio_throttle 0.00258->0.0287, sm 11%->72%, 28.83x — grid of 64x64 tiles over m x n, block 16x16
    gemm_bias_relu_kernel<<<dim3(((n) + 63) / 64, ((m) + 63) / 64), dim3(16, 16)>>>(x, w, bias, y, m, n, k);
}

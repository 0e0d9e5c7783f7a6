// ceil.cu — the compute ceiling of the device, measured: fp32 FMA throughput of
// independent FMA chains in every thread (no memory traffic). Built with nvcc
// into ks-harness; the memory ceiling is measured with a device-to-device copy.
#include <cuda_runtime.h>

__global__ void ks_ceil_fma_kernel(float *out, int nIter, float a, float b) {
  // 8 independent chains hide the FMA latency; the result is stored so the
  // compiler cannot drop the loop.
  float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
  for (int i = 0; i < nIter; i++) {
#pragma unroll
    for (int k = 0; k < 16; k++) {
      x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
      x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

extern "C" double ks_ceil_fp32_flops(int nSm) {
  const int nThreads = 256, nBlocks = nSm * 8, nIter = 4096;
  float *pOut = 0;
  cudaEvent_t e0, e1;
  double rBest = -1;
  if (cudaMalloc(&pOut, sizeof(float) * nThreads * nBlocks) != cudaSuccess) return -1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  ks_ceil_fma_kernel<<<nBlocks, nThreads>>>(pOut, 64, 0.999f, 0.001f);  // warm-up
  for (int r = 0; r < 5; r++) {
    cudaEventRecord(e0);
    ks_ceil_fma_kernel<<<nBlocks, nThreads>>>(pOut, nIter, 0.999f, 0.001f);
    cudaEventRecord(e1);
    if (cudaEventSynchronize(e1) != cudaSuccess) break;
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    double rFlops = 2.0 * 8 * 16 * (double)nIter * nThreads * nBlocks / (ms * 1e-3);
    if (rFlops > rBest) rBest = rFlops;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(pOut);
  return cudaGetLastError() == cudaSuccess ? rBest : -1;
}

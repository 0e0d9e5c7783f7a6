// allowed.cu — LLM-style code the sandbox must let through: launches, runtime calls,
// math, half types, an error-check macro with fprintf/abort, an own helper.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cmath>
#include <stdio.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e_)); abort(); } } while (0)

__device__ float sq(float x) { return x * x; }
template <int BS>
__global__ void __launch_bounds__(BS) saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
  int i = blockIdx.x * BS + threadIdx.x;
  if (i < n) y[i] = a * x[i] + sq(y[i]) + __half2float(__float2half(1.0f));
  asm volatile("" ::: "memory");
}
static int blocks(int n, int bs) { return (n + bs - 1) / bs; }
extern "C" void saxpy_entry(int n, float a, const float *x, float *y) {
  int dev = 0, sms = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  float *tmp = nullptr;
  CHECK(cudaMalloc(&tmp, 4));
  dim3 g(blocks(n, 256)), b(256);
  int nb = (int)std::ceil(n / 256.0f) + (int)fmaxf(0.f, 1.f) + std::min(1, 2);
  (void)nb;
  CHECK(cudaFuncSetAttribute(saxpy<256>, cudaFuncAttributeMaxDynamicSharedMemorySize, 0));
  saxpy<256><<<g, b>>>(n, a, x, y);
  CHECK(cudaGetLastError());
  cudaFree(tmp);
}
